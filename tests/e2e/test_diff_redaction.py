"""Diffs that leave rho outside a tool's result, through the real processes: ACP's diff block
of an edit (`rho acp`) and `diffCheckpoint` show no secret of the files they compare, however
small the hunk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import text_block
from acp_client import RecordingClient, run_acp, with_agent  # type: ignore[import-not-found]
from key_texts import body_lines, rsa_key  # type: ignore[import-not-found]
from rho_process import start_scripted  # type: ignore[import-not-found]

from rho_kernel.security import REDACTED
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
GITHUB = "ghp_" + "Q7x" * 12
SETTINGS = (
    "[default]\n"
    f"aws_secret_access_key = {AWS}\n"
    "region = eu-west-1\n"
    f"github_token = {GITHUB}\n"
    '{"password":\n  "CorrectHorseBattery42"}\n'
)


def _changed_line(text: str, index: int) -> str:
    lines = text.split("\n")
    lines[index] = lines[index][::-1]
    return "\n".join(lines)


def _key_pieces(key: str) -> list[str]:
    body = body_lines(key)
    pieces = [body[0][36:52]] + [line[i : i + 16] for line in body[1:] for i in (0, 24)]
    return [*pieces, *(piece[::-1] for piece in pieces)]


SECRETS = [AWS, GITHUB, "CorrectHorseBattery42"]


def test_an_acp_diff_block_shows_no_secret_of_the_file(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    key = rsa_key(101)
    (project / "settings.ini").write_text(SETTINGS)
    (project / "key.pem").write_text(key)
    new_settings = SETTINGS.replace("eu-west-1", "us-east-2").replace('{"password":\n', "{\n")
    server.add(
        tool_call_reply("write_file", {"path": "settings.ini", "content": new_settings}),
        tool_call_reply("write_file", {"path": "key.pem", "content": _changed_line(key, 13)}),
        text_reply("written"),
    )
    client = RecordingClient(choice="allow-once")

    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[text_block("edit")])

    assert run_acp(with_agent(client, server, home, project, body)).stop_reason == "end_turn"
    assert (project / "settings.ini").read_text() == new_settings  # the edits were made
    done = [u for u in client.updates if u.session_update == "tool_call_update" and u.content]
    diffs = [c for update in done for c in update.content if c.type == "diff"]
    assert [Path(d.path).name for d in diffs] == ["settings.ini", "key.pem"]
    settings, key_diff = diffs
    assert settings.old_text.count("\n") == SETTINGS.count("\n")  # whole files, line for line
    assert "region = eu-west-1" in settings.old_text and "us-east-2" in settings.new_text
    assert f"aws_secret_access_key = {REDACTED}" in settings.new_text
    assert key_diff.old_text.split("\n")[14] == REDACTED == key_diff.new_text.split("\n")[14]
    texts = "".join(d.old_text + (d.new_text or "") for d in diffs)
    for secret in [*SECRETS, *_key_pieces(key)]:
        assert secret not in texts


def test_diff_checkpoint_shows_no_secret_of_the_files_it_compares(
    start_rho: Any, server: ScriptedServer, project: Path, home: Path
) -> None:
    key = rsa_key(102)
    (project / "key.pem").write_text(key)
    (project / "settings.ini").write_text(SETTINGS)
    new_settings = SETTINGS.replace("eu-west-1", "us-east-2").replace('{"password":\n', "{\n")
    server.add(
        tool_call_reply("write_file", {"path": "key.pem", "content": _changed_line(key, 9)}),
        tool_call_reply("write_file", {"path": "settings.ini", "content": new_settings}),
        text_reply("changed"),
    )
    rho = start_scripted(start_rho, server, "--approval-mode", "auto")
    assert rho.call("prompt", {"message": "rotate"})["result"]["reply"] == "changed"
    entries = rho.call("getTree")["result"]["entries"]
    turn = next(e["id"] for e in entries if e.get("role") == "user" and e["preview"] == "rotate")
    files = {
        f["path"]: f["diff"]
        for f in rho.call("diffCheckpoint", {"entryId": turn})["result"]["files"]
    }
    assert set(files) == {"key.pem", "settings.ini"}
    key_hunk = files["key.pem"].split("\n@@")[1].split("\n")
    assert key_hunk[0].startswith(" -7,7 +7,7 @@")  # git's own hunk, its heading hidden too
    assert (
        key_hunk[1:9]
        == [f" {REDACTED}"] * 3 + [f"-{REDACTED}", f"+{REDACTED}"] + [f" {REDACTED}"] * 3
    )
    assert "-region = eu-west-1\n+region = us-east-2\n" in files["settings.ini"]
    for secret in [*SECRETS, *_key_pieces(key)]:
        assert secret not in files["key.pem"] + files["settings.ini"]
    assert rho.finish() == 0
