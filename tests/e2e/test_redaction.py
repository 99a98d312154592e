"""Secret redaction through the real `rho` process: no secret reaches client, session or model."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from key_texts import rsa_key  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]

from rho_kernel.security import REDACTED
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply
from rho_tools_fs.hashline import line_hash

#: Its tests run commands but are not about confinement: they run on a machine where no OS
#: sandbox works too (`run_anyway`).
pytestmark = pytest.mark.usefixtures("run_anyway")

SECRET = "sk-proj-" + "Zx9" * 16


AUTO_EDITS = '[approval.per_tool]\nedit_file = "auto"\n'


def _shared(shared_rho) -> tuple[RhoProcess, ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    """The module's rho (sessions stored, edit_file allowed in HOME's config), fresh for this
    test; its exit status is checked when the module is done."""
    shared = shared_rho(user_config=AUTO_EDITS)
    return shared.rho, shared.server, shared.project


def _stored(rho: RhoProcess) -> str:
    """The text of the file of this test's session, once rho has closed it (`newSession`)."""
    path = Path(rho.call("getState")["result"]["sessionPath"])
    assert "result" in rho.call("newSession")
    text = path.read_text()
    assert "[REDACTED]" in text  # the session holds what the tools showed
    return text


def _read_env(rho: RhoProcess, server: ScriptedServer):  # type: ignore[no-untyped-def]
    server.add(
        tool_call_reply("read_file", {"path": ".env", "hashline": False}), text_reply("read")
    )
    assert rho.call("prompt", {"message": "read .env"})["result"]["reply"] == "read"
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    return rho, result


def test_a_secret_read_from_a_file_is_redacted_everywhere(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    (project / ".env").write_text(f"OPENAI_API_KEY={SECRET}\nDB_PASSWORD=hunter2\nPORT=8080\n")
    rho, result = _read_env(rho, server)
    assert result["output"] == (
        "<context>\nOPENAI_API_KEY=[REDACTED]\nDB_PASSWORD=[REDACTED]\nPORT=8080\n<context:end>"
    )
    assert SECRET not in server.requests[1].body.decode()
    messages = rho.call("getMessages")["result"]["messages"]
    assert all(SECRET not in str(m) for m in messages)
    text = _stored(rho)
    assert SECRET not in text and "hunter2" not in text


def test_custom_patterns_apply_and_a_bad_one_is_named_once(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text(
        '[redaction]\ncustom_patterns = ["acme-[0-9]{6}", "(broken"]\n'
    )
    (project / ".env").write_text("ID=acme-123456\n")
    rho, result = _read_env(start_scripted(start_rho, server, "--ephemeral"), server)
    assert result["output"] == "<context>\nID=[REDACTED]\n<context:end>"
    assert rho.finish() == 0
    err = rho.stderr_text()
    assert err.count("rho: warning: invalid redaction pattern skipped: '(broken'") == 1


KEY_BODY = [
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
]


def test_partial_reads_and_searches_of_a_private_key_show_no_body(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    key = ["-----BEGIN OPENSSH PRIVATE KEY-----", *KEY_BODY, "-----END OPENSSH PRIVATE KEY-----"]
    keys = project / "partial"  # the tests sharing the project keep their files apart
    keys.mkdir(exist_ok=True)
    (keys / "id_rsa").write_text("\r\n".join(key) + "\r\n")
    (keys / "cut.pem").write_text("\n".join(key[:3]) + "\n")  # BEGIN without END
    calls = [
        ("read_file", {"path": "partial/id_rsa", "offset": 2, "limit": 1}),
        ("read_file", {"path": "partial/id_rsa", "offset": 4, "limit": 2, "hashline": False}),
        ("read_file", {"path": "partial/cut.pem", "offset": 3}),
        ("batch_read", {"paths": ["partial/id_rsa", "partial/cut.pem"]}),
        ("search_files", {"pattern": "^[A-Za-z0-9+/=]{16,}", "path": "partial"}),
        (
            "edit_file",
            {"path": "partial/id_rsa", "edits": [{"old_text": "OPENSSH", "new_text": "X"}]},
        ),
    ]
    for name, arguments in calls:
        server.add(tool_call_reply(name, arguments))
    server.add(text_reply("done"))
    assert rho.call("prompt", {"message": "look"}, timeout=60)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert [r["name"] for r in results] == [name for name, _ in calls]
    assert "[REDACTED]" in results[0]["output"]
    assert results[4]["output"].startswith("No matches for")  # key lines are left out
    sent = b"".join(request.body for request in server.requests).decode()
    seen = "\n".join(str(m) for m in rho.seen)
    stored = _stored(rho)
    for line in KEY_BODY:
        for where in (sent, seen, stored):
            assert line not in where and line[:24] not in where


def _number_hash(line_no: int) -> str:
    """The anchor hash of a line seeded by its number (spelled here, independently)."""
    letters = "ZPMQVRWSNKTXJBYH"
    return "".join(letters[(line_no >> shift) % 16] for shift in (0, 4, 8, 12))


def test_a_key_line_is_edited_by_its_shown_anchor_and_no_probe_learns_its_hash(  # type: ignore[no-untyped-def]
    shared_rho,
) -> None:
    rho, server, project = _shared(shared_rho)
    key = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]
    (project / "id_rsa").write_text("\n".join(["# deploy key", *key]) + "\n")
    real = {n: f"{n}#{line_hash(line, n)}" for n, line in enumerate(key, 2)}
    replace = {"op": "replace", "lines": ["bm90IHRoZSBrZXkgYW55bW9yZQ=="]}
    calls = [
        ("read_file", {"path": "id_rsa", "offset": 2, "limit": 3}),
        ("edit_file", {"path": "id_rsa", "edits": [{**replace, "pos": real[4]}]}),  # a probe
        ("edit_file", {"path": "id_rsa", "edits": [{**replace, "pos": f"4#{_number_hash(4)}"}]}),
    ]
    for name, arguments in calls:
        server.add(tool_call_reply(name, arguments))
    server.add(text_reply("done"))
    assert rho.call("prompt", {"message": "rotate"}, timeout=60)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    rows = [f"{n}#{_number_hash(n)}:[REDACTED]" for n in (2, 3, 4)]
    assert results[0]["output"] == "<context>\n" + "\n".join(rows) + "\n<context:end>\n" + (
        "[lines 2-4 of 6; read on with offset=5]"
    )
    assert results[1]["is_error"] and "hash mismatch at anchor 4#" in results[1]["output"]
    assert f"Use updated anchor 4#{_number_hash(4)} to retry." in results[1]["output"]
    assert results[2]["output"].startswith("applied 1 hashline edit(s) to id_rsa"), results[2]
    assert (project / "id_rsa").read_text().split("\n")[3] == "bm90IHRoZSBrZXkgYW55bW9yZQ=="
    # The probe's error echoes the anchor given (twice) and shows only the number's anchor.
    echo = results[1]["output"].replace(f"anchor {real[4]} ", "").replace(f"  {real[4]} (", "")
    assert "(not the anchor shown for this hidden line)" in results[1]["output"]
    outputs = "\n".join([results[0]["output"], echo, results[2]["output"]])
    sent = b"".join(request.body for request in server.requests).decode()
    seen = "\n".join(str(m) for m in rho.seen)
    stored = _stored(rho)
    for number, anchor in real.items():
        assert anchor not in outputs
        if number != 4:  # the probe's own anchor is in the model's call, nowhere else
            for where in (sent, seen, stored):
                assert anchor not in where


CREDENTIAL = "corp-Cred-7f3a9b21e4d05c68"
SHOW_ENV = [
    "env",
    "printenv",
    "printenv MY_TOKEN CORP_LLM_CRED; echo rc=$?",
    "tr '\\0' '\\n' < /proc/self/environ",
    "bash -c 'set' | grep -a -i -e cred -e token || true",
    "cat holder.txt",
]


def _holder(project: Path) -> None:
    (project / "holder.txt").write_text(f"the key is {CREDENTIAL}\nkey2={CREDENTIAL}x\n")


def _script_calls(server: ScriptedServer) -> None:
    for command in SHOW_ENV:
        server.add(tool_call_reply("run_command", {"command": command}))
    server.add(tool_call_reply("read_file", {"path": "holder.txt", "hashline": False}))
    server.add(tool_call_reply("search_files", {"pattern": "corp-Cred"}))
    server.add(text_reply("done"))


def _auto_commands(home: Path, extra: str = "") -> None:
    user_config(home, extra + '\n[approval.per_tool]\nrun_command = "auto"\n')


def _assert_credential_hidden(rho, server: ScriptedServer, home: Path, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    assert rho.call("prompt", {"message": "show"}, timeout=90)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert len(results) == len(SHOW_ENV) + 2
    assert all(not r["is_error"] for r in results), results
    assert "PATH=" in results[0]["output"] and "rc=1" in results[2]["output"]
    for result in results:
        for name in names:
            assert f"{name}=" not in result["output"]
    assert "the key is [REDACTED]" in results[-2]["output"]
    assert "holder.txt:1: the key is [REDACTED]" in results[-1]["output"]
    assert rho.finish() == 0
    bodies = b"".join(request.body for request in server.requests).decode()
    stored = "".join(p.read_text() for p in (home / ".rho" / "sessions").rglob("*.jsonl"))
    for where in (bodies, "\n".join(str(m) for m in rho.seen), stored):
        assert CREDENTIAL not in where
    # the key did go where it belongs: to the provider
    assert all(r.headers.get("authorization") == f"Bearer {CREDENTIAL}" for r in server.requests)


def test_a_key_named_by_api_key_env_reaches_no_command_and_is_redacted(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    _auto_commands(home)
    _script_calls(server)
    _holder(project)
    rho = start_scripted(
        start_rho, server, "--api-key-env", "MY_TOKEN", env={"MY_TOKEN": CREDENTIAL}
    )
    _assert_credential_hidden(rho, server, home, ["MY_TOKEN"])


def test_a_configured_providers_key_variable_reaches_no_command_and_is_redacted(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    provider = (
        '[agent]\nmodel = "scripted-model"\n\n[[providers]]\nname = "corp"\n'
        f'endpoint = "{server.chat_url}"\napi_key_env = "CORP_LLM_CRED"\n'
    )
    _auto_commands(home, provider)
    _script_calls(server)
    _holder(project)
    rho = start_rho(env={"CORP_LLM_CRED": CREDENTIAL})
    assert rho.read()["method"] == "ready"
    _assert_credential_hidden(rho, server, home, ["CORP_LLM_CRED"])


def test_a_short_key_is_removed_but_not_redacted_as_text(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    _auto_commands(home)
    server.add(tool_call_reply("run_command", {"command": "env; echo the word is abc123"}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server, "--api-key-env", "MY_PIN", env={"MY_PIN": "abc123"})
    assert rho.call("prompt", {"message": "show"}, timeout=60)["result"]["reply"] == "done"
    [result] = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert "MY_PIN=" not in result["output"]
    assert "the word is abc123" in result["output"]
    assert rho.finish() == 0


def _key_pieces(key: str) -> list[str]:
    """Every 16-character piece of a key's body lines past their shared DER header."""
    body = [line for line in key.splitlines() if not line.startswith("-----")]
    return [
        line[i : i + 16]
        for n, line in enumerate(body)
        for i in range(36 if n == 0 else 0, len(line) - 15, 4)
    ]


def _everywhere(rho: RhoProcess, server: ScriptedServer, home: Path) -> list[str]:
    """What the client saw, what the model was sent, and the stored sessions."""
    assert rho.finish() == 0
    sent = b"".join(request.body for request in server.requests).decode()
    stored = "".join(p.read_text() for p in (home / ".rho" / "sessions").rglob("*.jsonl"))
    return ["\n".join(str(m) for m in rho.seen), sent, stored]


SLICING = [
    "sed -n 10,16p certs/server.key",
    "tail -n +5 certs/server.key | head -5",
    "cut -c1-20 certs/server.key",
    "cut -c21-36 certs/server.key | sed -n 3,4p",  # too few, too narrow: found as the key's
    "tail -c 300 certs/server.key",
    "grep -n . certs/server.key | sed -n 3,5p",
    "awk '{print NR $0}' certs/server.key | sed -n 6,7p",
]


def test_slices_of_a_key_file_through_commands_show_no_key_anywhere(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    _auto_commands(home)
    key = rsa_key(81)
    (project / "certs").mkdir()
    (project / "certs" / "server.key").write_text(key)  # never read by rho before the commands
    for command in SLICING:
        server.add(tool_call_reply("run_command", {"command": command}))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server)
    assert rho.call("prompt", {"message": "slice"}, timeout=90)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert len(results) == len(SLICING)
    for result in results:
        assert not result["is_error"] and REDACTED in result["output"], result
    outputs = [m["params"]["text"] for m in rho.seen if m.get("method") == "tool/output"]
    assert REDACTED in "".join(outputs)  # the live output went out, redacted
    for where in _everywhere(rho, server, home):
        assert not any(piece in where for piece in _key_pieces(key))


def test_a_key_a_command_creates_is_learned_before_the_next_call(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    _auto_commands(home)
    key = rsa_key(82)
    encoded = base64.b64encode(key.encode()).decode()
    server.add(
        tool_call_reply("run_command", {"command": f"echo {encoded} | base64 -d > made.pem"}),
        tool_call_reply("run_command", {"command": "cut -c21-36 made.pem | sed -n 3,4p"}),
        text_reply("done"),
    )
    rho = start_scripted(start_rho, server)
    assert rho.call("prompt", {"message": "make"}, timeout=60)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert results[1]["output"].count(REDACTED) == 2, results[1]
    for where in _everywhere(rho, server, home):
        assert not any(piece in where for piece in _key_pieces(key))


def test_a_json_value_on_the_line_after_its_name_is_redacted_in_every_view(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    _auto_commands(home)
    (project / "cfg.json").write_text(
        '{\n  "user": "me",\n  "password":\n    "CorrectHorseBattery42"\n}\n'
    )
    calls = [
        ("run_command", {"command": "cat cfg.json"}),
        ("run_command", {"command": "grep -n -A1 password cfg.json"}),
        ("run_command", {"command": "cat -n cfg.json"}),
        ("read_file", {"path": "cfg.json"}),  # hashline rows
        ("read_file", {"path": "cfg.json", "offset": 3, "limit": 2}),
    ]
    for name, arguments in calls:
        server.add(tool_call_reply(name, arguments))
    server.add(text_reply("done"))
    rho = start_scripted(start_rho, server)
    assert rho.call("prompt", {"message": "show"}, timeout=60)["result"]["reply"] == "done"
    results = [m["params"] for m in rho.seen if m.get("method") == "tool/result"]
    assert len(results) == len(calls) and all(f'"{REDACTED}"' in r["output"] for r in results)
    for where in _everywhere(rho, server, home):
        assert "CorrectHorseBattery42" not in where
