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


KEY_BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
]


def test_partial_reads_and_searches_of_a_private_key_show_no_body(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    key = ["-----BEGIN OPENSSH PRIVATE KEY-----", *KEY_BODY, "-----END OPENSSH PRIVATE KEY-----"]
    (project / "id_rsa").write_text("\r\n".join(key) + "\r\n")
    (project / "cut.pem").write_text("\n".join(key[:3]) + "\n")  # BEGIN without END
    calls = [
        ("read_file", {"path": "id_rsa", "offset": 2, "limit": 1}),
        ("read_file", {"path": "id_rsa", "offset": 4, "limit": 2, "hashline": False}),
        ("read_file", {"path": "cut.pem", "offset": 3}),
        ("batch_read", {"paths": ["id_rsa", "cut.pem"]}),
        ("search_files", {"pattern": "^[A-Za-z0-9+/=]{16,}"}),
        ("edit_file", {"path": "id_rsa", "edits": [{"old_text": "OPENSSH", "new_text": "X"}]}),
    ]
    for name, arguments in calls:
        server.add(tool_call_reply(name, arguments))
    server.add(text_reply("done"))
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text('[approval.per_tool]\nedit_file = "auto"\n')
    rho = start_scripted(start_rho, server)
    assert rho.call("prompt", {"message": "look"}, timeout=60)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert [r["name"] for r in results] == [name for name, _ in calls]
    assert "[REDACTED]" in results[0]["output"] and "[REDACTED]" in results[4]["output"]
    assert rho.finish() == 0
    sent = b"".join(request.body for request in server.requests).decode()
    seen = "\n".join(str(m) for m in rho.seen)
    stored = "".join(p.read_text() for p in (home / ".rho" / "sessions").rglob("*.jsonl"))
    for line in KEY_BODY:
        for where in (sent, seen, stored):
            assert line not in where and line[:24] not in where
