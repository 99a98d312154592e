"""Secret redaction through the real `rho` process: no secret reaches client, session or model."""

from __future__ import annotations

from pathlib import Path

from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

SECRET = "sk-proj-" + "Zx9" * 16


def _read_env(start_rho, server: ScriptedServer, *extra: str):  # type: ignore[no-untyped-def]
    server.add(
        tool_call_reply("read_file", {"path": ".env", "hashline": False}), text_reply("read")
    )
    rho = start_scripted(start_rho, server, *extra)
    assert rho.call("prompt", {"message": "read .env"})["result"]["reply"] == "read"
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    return rho, result


def test_a_secret_read_from_a_file_is_redacted_everywhere(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    (project / ".env").write_text(f"OPENAI_API_KEY={SECRET}\nDB_PASSWORD=hunter2\nPORT=8080\n")
    rho, result = _read_env(start_rho, server)
    assert result["output"] == (
        "<context>\nOPENAI_API_KEY=[REDACTED]\nDB_PASSWORD=[REDACTED]\nPORT=8080\n<context:end>"
    )
    assert SECRET not in server.requests[1].body.decode()
    messages = rho.call("getMessages")["result"]["messages"]
    assert all(SECRET not in str(m) for m in messages)
    assert rho.finish() == 0
    for session in (home / ".rho" / "sessions").rglob("*.jsonl"):
        text = session.read_text()
        assert SECRET not in text and "hunter2" not in text


def test_custom_patterns_apply_and_a_bad_one_is_named_once(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text(
        '[redaction]\ncustom_patterns = ["acme-[0-9]{6}", "(broken"]\n'
    )
    (project / ".env").write_text("ID=acme-123456\n")
    rho, result = _read_env(start_rho, server, "--ephemeral")
    assert result["output"] == "<context>\nID=[REDACTED]\n<context:end>"
    assert rho.finish() == 0
    err = rho.stderr_text()
    assert err.count("rho: warning: invalid redaction pattern skipped: '(broken'") == 1
