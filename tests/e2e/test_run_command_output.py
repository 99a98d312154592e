"""How much of a command's output the model sees, through the real `rho`: the context budget
decides, as for every tool result, not the per-stream memory guard. Too large for its share,
the output reaches the model as its first and last lines around a marker, with a footer
saying what was left out and how to see it; the client's `tool/result` carries the whole
text in `details` (redacted, as the session keeps it); when it fits, it is whole, even past
the 64 KiB that once cut every command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

SECRET = "sk-proj-" + "Zx9" * 16


def _seq(count: int) -> str:
    return "".join(f"{n}\n" for n in range(1, count + 1))


def _run(rho: RhoProcess) -> dict[str, Any]:
    """Send a prompt, answer the approval the call asks (if it asks), return `tool/result`."""
    rho.request("prompt", {"message": "go"})
    found = rho.wait_for(
        lambda m: isinstance(m, dict) and m.get("method") in ("approval/request", "tool/result")
    )
    if found["method"] == "approval/request":
        rho.answer_approval(found["params"])
        found = rho.notification("tool/result")
    rho.notification("agent/end")
    return dict(found["params"])


def _start(
    start_rho: Any, server: ScriptedServer, command: str, *flags: str, tool: str = "run_command"
) -> RhoProcess:
    server.add(tool_call_reply(tool, {"command": command}), text_reply("done"))
    return start_scripted(start_rho, server, "--ephemeral", *flags)


def _sent_to_model(server: ScriptedServer) -> str:
    """The tool result the model got, in the request after the call."""
    posts = [r for r in server.requests if r.method == "POST"]
    return str(posts[1].json["messages"][-1]["content"])


def _live_stdout(rho: RhoProcess) -> str:
    return "".join(
        m["params"]["text"]
        for m in rho.seen
        if m.get("method") == "tool/output" and m["params"]["stream"] == "stdout"
    )


def test_a_24_kb_output_is_cut_to_its_first_and_last_lines_when_the_budget_is_small(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = _start(start_rho, server, "seq 1 5000", "--token-budget", "16384")
    result = _run(rho)
    whole = "exit_code: 0\n" + _seq(5000)
    output = result["output"]
    lines = output.split("\n")
    gap = next(i for i, line in enumerate(lines) if line.startswith("[… "))
    assert lines[:gap] == whole.split("\n")[:gap] and gap > 20
    assert lines[-3] == "5000" and lines[-2] == ""  # the end: what a command ends with
    tail = len(lines) - gap - 3
    assert lines[gap] == f"[… {5001 - gap - tail} lines left out …]"
    assert lines[-1].startswith(
        f"[output cut to fit the context window: the first {gap} and last {tail} of 5001 "
        f"lines shown; lines {gap + 1}-{5001 - tail} ("
    )
    assert f"run it again piped to `tail -n +{gap} | head -n 200`" in lines[-1]
    assert len(output) < len(whole) // 2 and _sent_to_model(server) == output
    assert result["details"] == {"FullOutput": {"original_size": len(whole), "content": whole}}
    assert _live_stdout(rho).endswith("4999\n5000\n")  # live output as before: to its end
    tool_message = rho.call("getMessages")["result"]["messages"][-2]
    assert tool_message["details"]["FullOutput"]["content"] == whole
    assert rho.finish() == 0


def test_a_24_kb_output_reaches_the_model_whole_when_it_fits(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = _start(start_rho, server, "seq 1 5000", "--token-budget", "131072")
    result = _run(rho)
    assert result["output"] == "exit_code: 0\n" + _seq(5000)
    assert "details" not in result and _sent_to_model(server) == result["output"]
    assert rho.finish() == 0


def test_an_output_past_64_kib_reaches_the_model_whole_when_the_budget_has_room(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = _start(start_rho, server, "seq 1 30000", "--token-budget", "400000")
    result = _run(rho)
    assert len(result["output"]) > 160_000
    assert result["output"] == "exit_code: 0\n" + _seq(30000)
    assert _sent_to_model(server) == result["output"]
    assert rho.finish() == 0


def test_the_share_a_result_may_take_decides_as_the_budget_does(
    start_rho: Any, server: ScriptedServer, home: Path
) -> None:
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text("[agent]\ntool_result_share = 0.02\n")
    rho = _start(start_rho, server, "seq 1 5000", "--token-budget", "131072")
    result = _run(rho)
    assert "lines left out …]" in result["output"] and result["output"].endswith(
        "head -n 200` (or narrowed with grep)]"
    )
    assert result["details"]["FullOutput"]["content"] == "exit_code: 0\n" + _seq(5000)
    assert rho.finish() == 0


def test_a_failing_commands_stderr_at_the_end_is_kept_and_the_hint_says_to_narrow_it(
    start_rho: Any, server: ScriptedServer
) -> None:
    command = "seq 1 5000; echo 'error: it broke' >&2; exit 3"
    rho = _start(start_rho, server, command, "--token-budget", "16384")
    result = _run(rho)
    output = result["output"]
    assert result["is_error"] is True and output.startswith("exit_code: 3\n1\n2\n")
    body, footer = output.rsplit("\n\n", 1)
    assert body.endswith("4999\n5000\n\nstderr:\nerror: it broke")
    assert footer.endswith("run it again narrowed (grep, or head/tail after `2>&1`)]")
    assert result["details"]["FullOutput"]["content"].endswith("\nstderr:\nerror: it broke\n")
    assert rho.finish() == 0


def test_a_secret_in_the_part_left_out_is_redacted_in_what_the_client_gets_too(
    start_rho: Any, server: ScriptedServer, project: Path
) -> None:
    (project / "app.log").write_text(
        _seq(2500) + f"OPENAI_API_KEY={SECRET}\n" + _seq(5000)[len(_seq(2500)) :] + SECRET + "\n"
    )
    rho = _start(start_rho, server, "cat app.log", "--token-budget", "16384")
    result = _run(rho)
    full = result["details"]["FullOutput"]["content"]
    assert "lines left out …]" in result["output"] and "OPENAI_API_KEY=[REDACTED]" in full
    assert result["output"].split("\n\n")[-2].endswith("5000\n[REDACTED]")
    for text in (result["output"], full, _live_stdout(rho), _sent_to_model(server)):
        assert SECRET not in text and SECRET[:20] not in text
    tool_message = rho.call("getMessages")["result"]["messages"][-2]
    assert SECRET not in str(tool_message)
    assert rho.finish() == 0


def test_wait_for_keeps_its_last_line_with_the_polls_and_exit_status(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = _start(start_rho, server, "seq 1 5000", "--token-budget", "16384", tool="wait_for")
    result = _run(rho)
    body = result["output"].rsplit("\n\n", 1)[0]
    assert "lines left out …]" in body and body.startswith("1\n2\n")
    assert body.split("\n")[-1].startswith("[wait_for: 1 poll, ") and body.endswith(", exit 0]")
    assert result["details"]["FullOutput"]["content"].startswith(_seq(5000))
    assert rho.finish() == 0


def test_a_repositorys_config_cannot_make_the_memory_guard_a_way_to_exhaust_memory(
    start_rho: Any, project: Path
) -> None:
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text("[shell]\nmax_output_bytes = 100000000000\n")
    rho = start_rho("--ephemeral")
    assert rho.finish() == 2
    stderr = rho.stderr_text()
    assert stderr.startswith("rho: error: ") and "Traceback" not in stderr
    assert "shell.max_output_bytes: must be at most 16777216, got 100000000000" in stderr
    assert rho.raw == []
