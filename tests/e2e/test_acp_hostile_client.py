"""`rho acp` against a client that answers wrongly or names files it should not: malformed
permission answers deny the call and the prompt goes on; `sessionId` opens only the
project's own sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp_client import RecordingClient, run_acp, with_agent  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_calls_reply

#: Each answer a client might give to `session/request_permission`, and a word of what rho
#: says about it.
MALFORMED: list[tuple[Any, str]] = [
    ({}, "has no outcome"),
    ("allow", "was a string, not an object"),
    ([1, 2], "was an array, not an object"),
    ({"outcome": None}, "has outcome as null"),
    (None, "was null, not an object"),
    ({"outcome": {}}, "has no outcome.outcome"),
    ({"outcome": {"outcome": "allowed"}}, "outcome.outcome 'allowed'"),
    ({"outcome": {"outcome": "selected"}}, "has no outcome.optionId"),
    ({"outcome": {"outcome": "selected", "optionId": 1}}, "has outcome.optionId as a number"),
    ({"outcome": {"outcome": "selected", "optionId": "allow-all"}}, "'allow-all', which was not"),
    (RequestError(-32000, "the dialog crashed"), "error -32000: the dialog crashed"),
    ({"outcome": {"outcome": "cancelled"}}, "cancelled the permission request"),
]


class Answering(RecordingClient):
    """Answers the permission requests with `answers`, in order (an exception is raised)."""

    def __init__(self, answers: list[Any]) -> None:
        super().__init__()
        self.answers = list(answers)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        self.permissions.append((tool_call, options))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_a_malformed_permission_answer_denies_the_call_and_the_prompt_goes_on(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    calls = [("write_file", {"path": f"f{i}.txt", "content": "x"}) for i in range(len(MALFORMED))]
    calls.append(("write_file", {"path": "ok.txt", "content": "allowed"}))
    server.add(tool_calls_reply(calls), text_reply("carried on"))
    valid = {"outcome": {"outcome": "selected", "optionId": "allow-once"}}
    client = Answering([answer for answer, _ in MALFORMED] + [valid])

    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[text_block("write")])

    response = run_acp(with_agent(client, server, home, project, body))
    assert response.stop_reason == "end_turn" and client.text() == "carried on"
    assert len(client.permissions) == len(MALFORMED) + 1
    assert sorted(p.name for p in project.iterdir() if p.name != ".git") == ["ok.txt"]
    finished = [u for u in client.updates if u.session_update == "tool_call_update" and u.content]
    texts = [update.content[0].content.text for update in finished]
    statuses = [update.status for update in finished]
    assert statuses == ["failed"] * len(MALFORMED) + ["completed"]
    [*_, last] = [r for r in server.requests if r.method == "POST"]
    told = [m["content"] for m in last.json["messages"] if m["role"] == "tool"]
    for (_, said), text, model_text in zip(MALFORMED, texts, told, strict=False):
        assert text.startswith("Tool call denied: ") and said in text, text
        assert model_text == text
        for raw in ("validation error", "pydantic", "Field required", "Input should"):
            assert raw not in text


def _saved_session(server: ScriptedServer, home: Path, project: Path) -> str:
    """Run one prompt in a new session; its id."""
    server.add(text_reply("hello"))

    async def body(conn: Any) -> str:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        return str(session.session_id)

    return str(run_acp(with_agent(RecordingClient(), server, home, project, body)))


def _session_dir(home: Path) -> Path:
    [directory] = (home / ".rho" / "sessions").iterdir()
    return directory


def _refusals(
    server: ScriptedServer, home: Path, project: Path, references: list[str]
) -> tuple[dict[str, dict[str, str]], RecordingClient]:
    """What `session/load`, `session/resume` and `session/fork` answer for each reference."""
    client = RecordingClient()

    async def body(conn: Any) -> dict[str, dict[str, str]]:
        answers: dict[str, dict[str, str]] = {}
        for reference in references:
            answers[reference] = {}
            for method in ("load_session", "resume_session", "fork_session"):
                try:
                    await getattr(conn, method)(
                        cwd=str(project), session_id=reference, mcp_servers=[]
                    )
                    answers[reference][method] = "opened"
                except RequestError as exc:
                    assert exc.code == -32602, (reference, method, exc.code)
                    answers[reference][method] = str((exc.data or {}).get("message"))
        return answers

    return run_acp(with_agent(client, server, home, project, body)), client


def test_session_load_resume_and_fork_refuse_what_is_not_a_session_of_the_project(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    session_id = _saved_session(server, home, project)
    directory = _session_dir(home)
    outside = tmp_path / "outside.jsonl"
    [saved] = directory.glob("*.jsonl")
    outside.write_bytes(saved.read_bytes())  # a real session file, but not in the directory
    (directory / "9_linked.jsonl").symlink_to(outside)
    fifo = directory / "8_fifo.jsonl"
    os.mkfifo(fifo)
    before = sorted(p.name for p in directory.iterdir())
    references = [
        "/etc/passwd",
        "/proc/self/environ",
        "../../x",
        "../" * 12 + "etc/passwd",
        str(outside),
        str(directory / "9_linked.jsonl"),
        str(fifo),
        session_id[:4],  # a prefix of an id is not an id
        "~/.rho/sessions",
        "no such session",
    ]
    answers, client = _refusals(server, home, project, references)
    for reference, methods in answers.items():
        for method, said in methods.items():
            assert "is neither the id of a session of this project" in said, (reference, method)
            assert "session/list shows them" in said
    assert client.updates == []  # nothing was replayed
    assert sorted(p.name for p in directory.iterdir()) == before  # no lock, no new file
    assert not Path("/etc/passwd.lock").exists()


@pytest.mark.parametrize("by", ["id", "absolute path", "relative path", "link to its file"])
def test_a_session_of_the_project_loads_by_its_id_or_its_files_path(
    server: ScriptedServer, home: Path, project: Path, by: str
) -> None:
    session_id = _saved_session(server, home, project)
    [saved] = _session_dir(home).glob("*.jsonl")
    if by == "link to its file":
        # A link (here in the project) to a session file in the directory names it.
        reference = str(project / "named-session.jsonl")
        Path(reference).symlink_to(saved)
    else:
        reference = {
            "id": session_id,
            "absolute path": str(saved),
            "relative path": os.path.relpath(saved, project),
        }[by]
    client = RecordingClient()

    async def body(conn: Any) -> Any:
        return await conn.load_session(cwd=str(project), session_id=reference, mcp_servers=[])

    run_acp(with_agent(client, server, home, project, body))
    shown = [u for u in client.updates if u.session_update != "available_commands_update"]
    assert [u.session_update for u in shown] == ["user_message_chunk", "agent_message_chunk"]
    assert shown[0].content.text == "hi"


def test_a_session_file_named_by_the_client_is_never_opened_outside_the_directory(
    server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    """A file outside that looks like a session is left as it was: not read into the
    session, not locked, not appended to."""
    _saved_session(server, home, project)
    [saved] = _session_dir(home).glob("*.jsonl")
    planted = project / "planted.jsonl"
    lines = saved.read_text().splitlines()
    planted.write_text("\n".join(lines) + "\n")
    before = planted.read_bytes()
    answers, _ = _refusals(server, home, project, [str(planted), "planted.jsonl"])
    assert all("neither the id" in said for said in answers[str(planted)].values())
    assert planted.read_bytes() == before
    assert not (project / "planted.jsonl.lock").exists()
    header = json.loads(lines[0])
    assert header["type"] == "Header"  # it was a session file in all but its place
