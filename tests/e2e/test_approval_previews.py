"""Previews through the real `rho` process: a file change's approval shows the diff of exactly
what will be written; a file changed before the approval is planned and asked again, never
written blind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from key_texts import body_lines, rsa_key  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.security import REDACTED
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _finish(rho: RhoProcess, prompt_id: Any) -> None:
    rho.wait_for(lambda m: m.get("id") == prompt_id and "method" not in m)


def test_the_preview_is_what_is_then_written(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / "notes.txt").write_text("one\ntwo\nthree\n")
    server.add(
        tool_call_reply("write_file", {"path": "notes.txt", "content": "one\n2\nthree\n"}),
        tool_call_reply("write_file", {"path": "new.txt", "content": "fresh\n"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    changed = rho.notification("approval/request")["params"]
    assert changed["preview"] == (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
    )
    rho.answer_approval(changed)
    created = rho.notification("approval/request")["params"]
    assert created["preview"] == "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n"
    rho.answer_approval(created)
    _finish(rho, prompt_id)
    assert (project / "notes.txt").read_text() == "one\n2\nthree\n"
    assert (project / "new.txt").read_text() == "fresh\n"
    assert rho.finish() == 0


def test_a_file_changed_before_the_approval_is_planned_and_asked_again(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    target = project / "config.ini"
    target.write_text("a = 1\n")
    server.add(
        tool_call_reply("write_file", {"path": "config.ini", "content": "a = 2\n"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    first = rho.notification("approval/request")["params"]
    assert "-a = 1\n+a = 2\n" in first["preview"]
    target.write_text("a = 1\nb = 1\n")  # someone edits the file while the user reads
    rho.answer_approval(first)
    second = rho.notification("approval/request")["params"]
    assert second["approvalId"] != first["approvalId"]
    assert second["preview"].endswith("-a = 1\n-b = 1\n+a = 2\n")
    assert target.read_text() == "a = 1\nb = 1\n"  # nothing written blind
    rho.answer_approval(second)
    _finish(rho, prompt_id)
    assert target.read_text() == "a = 2\n"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert len(results) == 1 and not results[0]["is_error"]
    assert rho.finish() == 0


def test_an_edit_is_previewed_as_planned_and_a_secret_is_redacted(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / "app.py").write_text('x = 1\ntoken = "sk-ant-' + "a1" * 12 + '"\n')
    edit = {"path": "app.py", "edits": [{"old_text": "x = 1", "new_text": "x = 2"}]}
    server.add(tool_call_reply("edit_file", edit), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    request = rho.notification("approval/request")["params"]
    assert "-x = 1\n+x = 2\n" in request["preview"]
    assert "sk-ant-" not in request["preview"] and "[REDACTED]" in request["preview"]
    rho.answer_approval(request)
    _finish(rho, prompt_id)
    assert (project / "app.py").read_text().startswith("x = 2\n")
    assert rho.finish() == 0


def _changed_line(text: str, index: int) -> str:
    lines = text.split("\n")
    lines[index] = lines[index][::-1]
    return "\n".join(lines)


def test_a_change_inside_a_key_is_previewed_without_a_key_line(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    key = rsa_key(91)
    body = body_lines(key)
    (project / "key.pem").write_text(key)
    (project / "cfg.json").write_text(
        '{\n  "password":\n    "CorrectHorseBattery42",\n  "a": 1\n}\n'
    )
    (project / "notes.txt").write_text("intro\n" + key + "outro\n")
    edits = [{"old_text": "outro", "new_text": "coda"}]
    json_edits = [{"old_text": '"a": 1', "new_text": '"a": 2'}]
    server.add(
        tool_call_reply("write_file", {"path": "key.pem", "content": _changed_line(key, 13)}),
        tool_call_reply("edit_file", {"path": "notes.txt", "edits": edits}),
        tool_call_reply("edit_file", {"path": "cfg.json", "edits": json_edits}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "go"})
    previews = []
    for _ in range(3):
        request = rho.notification("approval/request")["params"]
        previews.append(request["preview"])
        rho.answer_approval(request)
    _finish(rho, prompt_id)
    hunk = [f" {REDACTED}"] * 3 + [f"-{REDACTED}", f"+{REDACTED}"] + [f" {REDACTED}"] * 3
    assert previews[0].split("\n")[3:11] == hunk
    assert previews[1].endswith(f" {REDACTED}\n" * 3 + "-outro\n+coda\n")
    assert '-  "a": 1\n+  "a": 2\n' in previews[2] and f'    "{REDACTED}",' in previews[2]
    for line in body:
        for piece in (line[36:52] if line is body[0] else line[:16], line[-16:]):
            assert piece not in "".join(previews)
    assert "CorrectHorseBattery42" not in "".join(previews)
    assert rho.finish() == 0
