"""`rho acp` and the editor's files: rho's file tools read and write through the client's
`fs/read_text_file` and `fs/write_text_file` when it offers them — after the sandbox's
checks — and use the disk when it does not."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from acp import text_block
from acp_client import (  # type: ignore[import-not-found]
    EditorClient,
    RecordingClient,
    offering,
    run_acp,
    with_agent,
)

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _one_prompt(
    client: RecordingClient, server: ScriptedServer, home: Path, project: Path, capabilities: Any
) -> Any:
    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])

    return run_acp(with_agent(client, server, home, project, body, capabilities))


def _tool_results(server: ScriptedServer) -> list[str]:
    """What the tools answered, as the model's last request carried it."""
    [*_, last] = [r for r in server.requests if r.method == "POST"]
    return [m["content"] for m in last.json["messages"] if m["role"] == "tool"]


def test_reads_and_edits_go_through_the_editors_buffer_and_nothing_is_written_to_disk(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    notes = project / "notes.txt"
    notes.write_text("saved line\n")
    client = EditorClient()
    client.buffers[str(notes)] = "unsaved line\n"
    server.add(
        tool_call_reply("read_file", {"path": "notes.txt", "hashline": False}),
        tool_call_reply(
            "edit_file",
            {"path": "notes.txt", "edits": [{"old_text": "unsaved", "new_text": "edited"}]},
        ),
        tool_call_reply("write_file", {"path": "sub/new.txt", "content": "brand new\n"}),
        text_reply("done"),
    )
    assert _one_prompt(client, server, home, project, offering()).stop_reason == "end_turn"
    read, edited, written = _tool_results(server)
    assert "unsaved line" in read and "saved line" not in read.replace("unsaved line", "")
    assert "error" not in edited.lower()
    assert client.writes == [
        (str(notes), "edited line\n"),
        (str(project / "sub" / "new.txt"), "brand new\n"),
    ]
    assert written.startswith("wrote 10 bytes to sub")
    assert notes.read_text() == "saved line\n"  # the editor holds the change, not rho
    assert not (project / "sub" / "new.txt").exists()
    [diff] = [
        c
        for u in client.updates
        if u.session_update == "tool_call_update"
        for c in u.content
        if c.type == "diff" and c.path == str(notes)
    ]
    assert (diff.old_text, diff.new_text) == ("unsaved line\n", "edited line\n")


def test_the_sandbox_is_checked_before_the_editor_is_asked(
    server: ScriptedServer, home: Path, project: Path, outside_tmp: Path
) -> None:
    secret = outside_tmp / "secret.txt"
    secret.write_text("outside\n")
    os.symlink(secret, project / "link.txt")
    git_config = project / ".git" / "config"
    before = git_config.read_bytes() if git_config.exists() else None
    server.add(
        tool_call_reply("write_file", {"path": ".git/config", "content": "[core]\n"}),
        tool_call_reply("write_file", {"path": "link.txt", "content": "through\n"}),
        tool_call_reply("read_file", {"path": "link.txt"}),
        tool_call_reply("write_file", {"path": str(secret), "content": "absolute\n"}),
        text_reply("refused"),
    )
    client = EditorClient()
    assert _one_prompt(client, server, home, project, offering()).stop_reason == "end_turn"
    results = _tool_results(server)
    assert len(results) == 4 and all(r.startswith(("write_file:", "read_file:")) for r in results)
    assert client.writes == [] and client.reads == []
    assert secret.read_text() == "outside\n"
    assert (git_config.read_bytes() if git_config.exists() else None) == before


def test_a_write_the_editor_refuses_fails_and_leaves_the_disk_alone(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "a.txt").write_text("before\n")
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "after\n"}),
        text_reply("it failed"),
    )
    client = EditorClient(refuse=True)
    assert _one_prompt(client, server, home, project, offering()).stop_reason == "end_turn"
    [result] = _tool_results(server)
    assert "failed to write 'a.txt'" in result and "the buffer is read-only" in result
    assert (project / "a.txt").read_text() == "before\n"
    failed = [u for u in client.updates if u.session_update == "tool_call_update"]
    assert failed[-1].status == "failed"


def test_a_client_offering_only_reads_gets_writes_on_disk(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "a.txt").write_text("disk\n")
    client = EditorClient()
    client.buffers[str(project / "a.txt")] = "buffer\n"
    server.add(
        tool_call_reply("write_file", {"path": "a.txt", "content": "written\n"}),
        text_reply("ok"),
    )
    assert (
        _one_prompt(client, server, home, project, offering(write=False)).stop_reason == "end_turn"
    )
    assert client.writes == []
    assert (project / "a.txt").read_text() == "written\n"
    assert str(project / "a.txt") in client.reads  # the preview and the diff read the buffer


def test_a_client_offering_nothing_is_never_asked_for_files(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "a.txt").write_text("disk\n")
    server.add(
        tool_call_reply("read_file", {"path": "a.txt", "hashline": False}),
        tool_call_reply("write_file", {"path": "a.txt", "content": "written\n"}),
        text_reply("ok"),
    )
    client = EditorClient()
    assert _one_prompt(client, server, home, project, None).stop_reason == "end_turn"
    assert client.reads == [] and client.writes == []
    assert "disk" in _tool_results(server)[0]
    assert (project / "a.txt").read_text() == "written\n"
