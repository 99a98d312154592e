"""The scopes of "allow always" in `rho acp`, driven by the ACP SDK's client side: each rule
rho suggests is a permission option a person reads ("Always allow edits in src/"), a folder
or project rule covers write_file and edit_file alike and nothing outside, and an answer
naming no offered option still denies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse
from acp_client import RecordingClient, run_acp, with_agent  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


class ChoosingClient(RecordingClient):
    """Answers the first permission request with the option named `first`, every later one
    with `later` (an option id)."""

    def __init__(self, first: str, later: str = "reject-once") -> None:
        super().__init__()
        self.first = first
        self.later = later

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        if len(self.permissions) == 1:
            chosen = next(o.option_id for o in options if o.name == self.first)
        else:
            chosen = self.later
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )


def _write(path: str) -> object:
    return tool_call_reply("write_file", {"path": path, "content": "new\n"})


def _edit(path: str) -> object:
    edits = [{"old_text": "old", "new_text": "new"}]
    return tool_call_reply("edit_file", {"path": path, "edits": edits})


async def _one_prompt(conn: Any, project: Path) -> Any:
    session = await conn.new_session(cwd=str(project), mcp_servers=[])
    return await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])


def test_a_write_in_a_folder_is_offered_at_each_scope_in_words(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(_write("src/app/b.txt"), text_reply("done"))
    client = RecordingClient(choice="reject-once")
    run_acp(with_agent(client, server, home, project, lambda conn: _one_prompt(conn, project)))
    [(_, options)] = client.permissions
    assert [(o.name, o.kind) for o in options] == [
        ("Allow once", "allow_once"),
        ("Allow edits to src/app/b.txt for this session", "allow_always"),
        ("Allow edits in src/app/ for this session", "allow_always"),
        ("Allow edits in this project for this session", "allow_always"),
        ("Always allow edits to src/app/b.txt", "allow_always"),
        ("Always allow edits in src/app/", "allow_always"),
        ("Always allow edits in this project", "allow_always"),
        ("Reject", "reject_once"),
    ]
    assert [o.field_meta["rho"]["rule"] for o in options[1:4]] == [
        "edit(src/app/b.txt)",
        "edit(src/app/**)",
        "edit(**)",
    ]
    assert not (project / "src").exists()


def test_a_folder_scope_covers_every_edit_in_it_for_the_session(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "c.txt").write_text("old\n")
    (project / "e.txt").write_text("old\n")
    server.add(_write("src/b.txt"), _edit("src/c.txt"), _write("src/deep/d.txt"))
    server.add(_edit("e.txt"), _write("f.txt"), text_reply("done"))
    client = ChoosingClient("Allow edits in src/ for this session")
    run_acp(with_agent(client, server, home, project, lambda conn: _one_prompt(conn, project)))
    asked = [call.raw_input["path"] for call, _ in client.permissions]
    assert asked == ["src/b.txt", "e.txt", "f.txt"]  # c.txt and d.txt ran by the rule
    assert (project / "src" / "c.txt").read_text() == "new\n"
    assert (project / "src" / "deep" / "d.txt").read_text() == "new\n"
    assert (project / "e.txt").read_text() == "old\n" and not (project / "f.txt").exists()
    assert not (home / ".rho" / "approval-rules.json").exists()  # the session's alone


def test_the_project_scope_is_kept_for_the_next_session_and_stops_at_the_project(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "out").symlink_to(outside)
    server.add(_write("a.txt"), _write(".git/config"), _write("out/x.txt"), text_reply("done"))
    client = ChoosingClient("Always allow edits in this project")
    run_acp(with_agent(client, server, home, project, lambda conn: _one_prompt(conn, project)))
    asked = [call.raw_input["path"] for call, _ in client.permissions]
    # The write through the link out is refused before anyone is asked (the sandbox refuses
    # its path); .git is never covered by the rule.
    assert asked[0] == "a.txt" and not any(path.startswith("out/") for path in asked[1:])
    assert list(outside.iterdir()) == [] and not (project / ".git" / "config").exists()
    store = json.loads((home / ".rho" / "approval-rules.json").read_text())
    assert store["projects"] == {str(project): ["edit(**)"]}

    server.add(_write("b/c.txt"), text_reply("done"))
    again = RecordingClient(choice="reject-once")
    run_acp(with_agent(again, server, home, project, lambda conn: _one_prompt(conn, project)))
    assert again.permissions == [] and (project / "b" / "c.txt").read_text() == "new\n"


def test_an_option_that_was_not_offered_denies(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(_write("a.txt"), _write("b.txt"), text_reply("done"))
    client = RecordingClient(choice="allow-always-9")
    run_acp(with_agent(client, server, home, project, lambda conn: _one_prompt(conn, project)))
    assert len(client.permissions) == 2  # nothing was remembered
    assert not (project / "a.txt").exists() and not (project / "b.txt").exists()
