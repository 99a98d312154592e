"""edit_file through the real `rho` process: approval, the edit on disk, the result the model
gets, live outline-free output, `[tools.edit] reject_syntax_errors` from the project config,
the syntax warning's line and the stale-anchor error."""

from __future__ import annotations

import json
from pathlib import Path

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
from rho_tools_fs.hashline import line_hash

SOURCE = "def area(width, height):\n    return width * height\n"


def _shared(shared_rho) -> tuple[SharedRho, RhoProcess, ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    """The module's `--ephemeral` rho, fresh for this test (its exit status and a traceback
    on its stderr are checked when the module is done)."""
    shared = shared_rho("--ephemeral")
    return shared, shared.rho, shared.server, shared.project


def _result(rho: RhoProcess) -> dict:
    return next(m for m in rho.seen if m.get("method") == "tool/result")["params"]


def _prompt_with_approval(rho: RhoProcess, approve: bool = True) -> dict:
    prompt = rho.request("prompt", {"message": "edit it"})
    request = rho.notification("approval/request")["params"]
    assert request["tool"] == "edit_file" and request["risk"] == "write"
    rho.answer_approval(request, approved=approve)
    return rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)


def test_edit_file_edits_after_approval_and_reports_the_diff(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared, rho, server, project = _shared(shared_rho)
    (project / "shapes.py").write_text(SOURCE)
    pos = f"2#{line_hash('    return width * height', 2)}"
    server.add(
        tool_call_reply(
            "edit_file",
            {
                "path": "shapes.py",
                "edits": [
                    {"op": "replace", "pos": pos, "lines": ["    return width * height / 2"]},
                    {"old_text": "def area", "new_text": "def triangle_area"},
                ],
            },
        ),
        text_reply("done"),
    )
    response = _prompt_with_approval(rho)
    assert response["result"]["reply"] == "done"
    assert (project / "shapes.py").read_text() == (
        "def triangle_area(width, height):\n    return width * height / 2\n"
    )
    result = _result(rho)
    assert result["is_error"] is False
    assert result["output"].startswith("applied 1 hashline + 1 legacy edit(s) to shapes.py\n<diff>")
    assert f"+ 2#{line_hash('    return width * height / 2', 2)}:" in result["output"]
    # The model got the same text as the tool result.
    tool_message = json.dumps(server.requests[-1].json["messages"][-1])
    assert "<fresh-anchors>" in tool_message
    assert "Traceback" not in shared.drain_stderr()  # exit status: at the module's end


def test_denied_edit_leaves_the_file(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    (project / "shapes.py").write_text(SOURCE)
    server.add(
        tool_call_reply(
            "edit_file",
            {"path": "shapes.py", "edits": [{"old_text": "width *", "new_text": "w *"}]},
        ),
        text_reply("ok"),
    )
    _prompt_with_approval(rho, approve=False)
    assert (project / "shapes.py").read_text() == SOURCE


def test_project_setting_rejects_syntax_errors(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / ".rho").mkdir(exist_ok=True)
    (project / ".rho" / "config.toml").write_text("[tools.edit]\nreject_syntax_errors = true\n")
    (project / "shapes.py").write_text(SOURCE)
    server.add(
        tool_call_reply(
            "edit_file",
            {"path": "shapes.py", "edits": [{"old_text": "height):", "new_text": "height:"}]},
        ),
        text_reply("ok"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    _prompt_with_approval(rho)
    result = _result(rho)
    assert result["is_error"] is True
    assert result["output"].startswith(
        "edit_file: edit refused: it would add 1 syntax error to `shapes.py` (python)"
    )
    assert (project / "shapes.py").read_text() == SOURCE
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert "unknown key" not in stderr and "Traceback" not in stderr


def test_syntax_errors_are_a_warning_by_default(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    (project / "shapes.py").write_text(SOURCE)
    server.add(
        tool_call_reply(
            "edit_file",
            {"path": "shapes.py", "edits": [{"old_text": "height):", "new_text": "height:"}]},
        ),
        text_reply("ok"),
    )
    _prompt_with_approval(rho)
    result = _result(rho)
    assert result["is_error"] is False
    assert "\n[warning] syntax: the edit introduces " in result["output"]
    assert (project / "shapes.py").read_text() == SOURCE.replace("height):", "height:")


def test_an_invalid_tools_edit_value_stops_startup(  # type: ignore[no-untyped-def]
    start_rho, project: Path
) -> None:
    (project / ".rho").mkdir(exist_ok=True)
    path = project / ".rho" / "config.toml"
    path.write_text('[tools.edit]\nreject_syntax_errors = "yes"\n')
    process = start_rho("--ephemeral")
    assert process.finish() == 2
    stderr = process.stderr_text()
    assert stderr.startswith(f"rho: error: {path}: tools.edit.reject_syntax_errors: ")
    assert "Traceback" not in stderr


MAIN = (
    '"""Say hello."""\n\nimport sys\n\nfrom greeting import greet\n\n\n'
    '@command(name="hello")\ndef main() -> None:\n    return greet(sys.argv[1])\n'
)


def test_a_broken_signature_is_warned_about_on_its_own_line(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    (project / "hello.py").write_text(MAIN)
    edit = {"old_text": "def main() -> None:", "new_text": "def main( -> None:"}
    server.add(
        tool_call_reply("edit_file", {"path": "hello.py", "edits": [edit]}), text_reply("done")
    )
    _prompt_with_approval(rho)
    warning = _result(rho)["output"].split("[warning] syntax: ", 1)[1].split("\n")
    assert warning[1] == "  line 9, column 1: syntax error at `def main( -> None:`"


def test_a_stale_anchor_error_says_what_changed(shared_rho) -> None:  # type: ignore[no-untyped-def]
    _, rho, server, project = _shared(shared_rho)
    (project / "shapes.py").write_text(SOURCE.replace("width * height", "height * width"))
    row = f"2#{line_hash('    return width * height', 2)}:    return width * height"
    now = line_hash("    return height * width", 2)
    edit = {"op": "replace", "pos": row, "lines": ["    return 0"]}
    server.add(
        tool_call_reply("edit_file", {"path": "shapes.py", "edits": [edit]}), text_reply("done")
    )
    _prompt_with_approval(rho)
    lines = _result(rho)["output"].split("\n")
    assert lines[1] == f"Expected line:  {row}"
    assert lines[2] == f"Actual line:    2#{now}:    return height * width"
    assert lines[3].startswith(f"Line 2 changed since it was read (its hash was {row[2:6]}")
