"""`branchTo` and `forkSession` onto a group of tool calls, through the real `rho` process:
the calls left without a result are closed, so every request the model receives answers each
tool call before the next message, on the branch, in the fork and after a resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply, tool_calls_reply

CANCELLED = "Tool call cancelled."


def assert_well_formed(messages: list[dict[str, Any]]) -> None:
    """The rule strict providers enforce: a system message first, and the tool calls of an
    assistant message all answered by the tool messages right after it."""
    assert messages[0]["role"] == "system", messages[0]
    pending: set[str] = set()
    for message in messages:
        role = message["role"]
        if role == "tool":
            assert message["tool_call_id"] in pending, (message, pending)
            pending.discard(message["tool_call_id"])
            continue
        assert not pending, f"calls {sorted(pending)} unanswered before a {role} message"
        if role == "assistant":
            pending = {call["id"] for call in message.get("tool_calls") or []}
    assert not pending, f"calls {sorted(pending)} unanswered at the end"


def last_request(server: ScriptedServer) -> list[dict[str, Any]]:
    bodies = [r.json for r in server.requests if isinstance(r.json, dict) and "messages" in r.json]
    return bodies[-1]["messages"]


def build(shared_rho) -> tuple[SharedRho, dict[str, str]]:  # type: ignore[no-untyped-def]
    """The module's rho (sessions stored), fresh for this test, in a session holding an
    assistant message with three calls and one with one call; returns it and the ids of the
    entries a client would branch to. Its exit status is checked when the module is done."""
    shared = shared_rho()
    rho, server, project = shared.rho, shared.server, shared.project
    for name in ("a.txt", "b.txt", "c.txt"):
        (project / name).write_text(f"{name} body\n")
    server.add(
        tool_calls_reply(
            [("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"}),
             ("read_file", {"path": "c.txt"})],
            call_ids=["call_m1", "call_m2", "call_m3"],
        ),
        text_reply("read three"),
        tool_call_reply("read_file", {"path": "a.txt"}, call_id="call_s1"),
        text_reply("read one"),
    )  # fmt: skip
    assert rho.call("prompt", {"message": "read three"})["result"]["reply"] == "read three"
    assert rho.call("prompt", {"message": "read one"})["result"]["reply"] == "read one"
    nodes = rho.call("getTree")["result"]["entries"]
    calling = [n for n in nodes if n["role"] == "assistant" and n["preview"].startswith("→")]
    tools = [n for n in nodes if n["role"] == "tool"]
    assert len(calling) == 2 and len(tools) == 4
    ids = {
        "several": calling[0]["id"],  # the assistant message calling three tools
        "one": calling[1]["id"],  # the assistant message calling one tool
        "first of three": tools[0]["id"],  # answered: call_m1 only
        "second of three": tools[1]["id"],  # answered: call_m1 and call_m2
        "last of three": tools[2]["id"],  # the group is complete
        "only result": tools[3]["id"],
    }
    return shared, ids


def resume(start_rho, shared: SharedRho, path: str) -> RhoProcess:  # type: ignore[no-untyped-def]
    """A new rho started with `--session path` (the shared rho's HOME, project and server),
    once the shared rho has let go of the session (an open session is locked)."""
    assert "result" in shared.rho.call("newSession")
    args = ["--endpoint", shared.server.chat_url, "-m", "scripted-model", "--session", path]
    rho = start_rho(*args, cwd=shared.project, env={"HOME": str(shared.home)})
    assert rho.read()["method"] == "ready"
    return rho


# target → how many calls the move must close
TARGETS = {
    "one": 1,
    "several": 3,
    "first of three": 2,
    "second of three": 1,
    "last of three": 0,
    "only result": 0,
}


def prompt_and_check(rho: RhoProcess, server: ScriptedServer, text: str) -> list[dict[str, Any]]:
    server.add(text_reply(f"answer to {text}"))
    assert rho.call("prompt", {"message": text})["result"]["reply"] == f"answer to {text}"
    messages = last_request(server)
    assert_well_formed(messages)
    assert messages[-1] == {"role": "user", "content": text}
    return messages


def cancelled_ids(messages: list[dict[str, Any]]) -> list[str]:
    return [
        m["tool_call_id"] for m in messages if m["role"] == "tool" and m["content"] == CANCELLED
    ]


def test_branch_to_closes_the_calls_of_every_kind_of_group(shared_rho, start_rho) -> None:  # type: ignore[no-untyped-def]
    shared, ids = build(shared_rho)
    rho, server = shared.rho, shared.server
    path = Path(rho.call("getState")["result"]["sessionPath"])
    for name, closed in TARGETS.items():
        result = rho.call("branchTo", {"entryId": ids[name]})["result"]
        assert result["closedCalls"] == closed, name
        assert (result["leafId"] == ids[name]) is (closed == 0), name
        messages = prompt_and_check(rho, server, f"after branching to {name}")
        assert len(cancelled_ids(messages)) == closed, name
    # Branching again to the same place closes nothing more: the results are on the tree.
    again = rho.call("branchTo", {"entryId": ids["several"]})["result"]
    assert again["closedCalls"] == 3 and again["leafId"] != ids["several"]
    # What was written resumes well-formed, with nothing left to close.
    resumed = resume(start_rho, shared, str(path))
    messages = prompt_and_check(resumed, server, "after the resume")
    assert sorted(cancelled_ids(messages)) == ["call_m1", "call_m2", "call_m3"]
    assert resumed.finish() == 0


@pytest.mark.parametrize("name", ["several", "first of three"])
def test_branch_to_with_a_summary_puts_it_after_the_closed_calls(shared_rho, name: str) -> None:  # type: ignore[no-untyped-def]
    shared, ids = build(shared_rho)
    rho, server = shared.rho, shared.server
    result = rho.call("branchTo", {"entryId": ids[name], "summarize": True})["result"]
    assert result["closedCalls"] == TARGETS[name]
    assert result["summaryId"] == result["leafId"]
    messages = prompt_and_check(rho, server, "after a summarized branch")
    assert "Abandoned branch" in messages[-2]["content"]


def test_fork_session_closes_the_calls_in_the_fork_only(shared_rho, start_rho) -> None:  # type: ignore[no-untyped-def]
    shared, ids = build(shared_rho)
    forked, server = shared.rho, shared.server
    parent = Path(forked.call("getState")["result"]["sessionPath"])
    assert "result" in forked.call("newSession")  # lets go of the parent
    before = parent.read_bytes()
    # The rho that built the parent serves every target: before each fork it resumes the
    # parent from its file, as a rho started with `--session` would, and each fork is
    # resumed from its file too. The last fork is also resumed by a fresh process.
    for name, closed in TARGETS.items():
        resumed = forked.call("resumeSession", {"path": str(parent)})["result"]
        assert resumed["path"] == str(parent), name
        fork = forked.call("forkSession", {"entryId": ids[name]})["result"]
        assert fork["closedCalls"] == closed, name
        assert (fork["leafId"] == ids[name]) is (closed == 0), name
        messages = prompt_and_check(forked, server, f"in the fork at {name}")
        assert len(cancelled_ids(messages)) == closed, name
        assert parent.read_bytes() == before  # the parent is untouched
        assert (
            forked.call("resumeSession", {"path": fork["path"]})["result"]["path"] == fork["path"]
        )
        prompt_and_check(forked, server, f"the fork at {name} resumed")
    assert parent.read_bytes() == before
    resumed = resume(start_rho, shared, fork["path"])
    prompt_and_check(resumed, server, f"the fork at {name} resumed again")
    assert resumed.finish() == 0
