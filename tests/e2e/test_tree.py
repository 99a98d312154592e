"""The session tree over RPC through the real `rho` process: getTree, branchTo, forkSession,
setLabel, the getSessionStats fields, and resuming damaged session files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted, warnings  # type: ignore[import-not-found]
from shared_rho import SharedRho  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

#: These tests count a session's entries exactly: no checkpoint entries among them
#: (tests/e2e/test_checkpoints.py covers those).
WITHOUT_CHECKPOINTS = "[checkpoints]\nenabled = false\n"


def _tree(rho: RhoProcess, **params: Any) -> dict[str, Any]:
    response = rho.call("getTree", params)
    assert "result" in response, response
    return response["result"]


def _by_preview(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {node["preview"]: node for node in tree["entries"]}


def _two_turns(shared_rho) -> tuple[SharedRho, RhoProcess, ScriptedServer]:  # type: ignore[no-untyped-def]
    """The module's rho (sessions stored), fresh for this test, after two turns in its new
    session; its exit status is checked when the module is done."""
    shared = shared_rho(user_config=WITHOUT_CHECKPOINTS)
    rho, server = shared.rho, shared.server
    (shared.project / "notes.txt").write_text("alpha\nbeta\n")
    server.add(
        tool_call_reply("read_file", {"path": "notes.txt"}, call_id="call_r"),
        text_reply("first answer"),
        text_reply("second answer"),
    )
    assert rho.call("prompt", {"message": "first question"})["result"]["reply"] == "first answer"
    assert rho.call("prompt", {"message": "second question"})["result"]["reply"] == "second answer"
    return shared, rho, server


def _resume(shared: SharedRho, path: Path) -> RhoProcess:
    """The shared rho resuming the session file `path` from disk (`resumeSession`, after a
    `newSession` that lets go of it), as a rho started with `--session` would (starting with
    `--session` is tested below with a damaged file)."""
    rho = shared.rho
    assert "result" in rho.call("newSession")
    assert rho.call("resumeSession", {"path": str(path)})["result"]["path"] == str(path)
    return rho


def _sent_messages(server: ScriptedServer) -> list[dict[str, Any]]:
    bodies = [r.json for r in server.requests if isinstance(r.json, dict) and "messages" in r.json]
    return bodies[-1]["messages"]


def test_get_tree_lists_every_entry_with_parent_preview_and_path(
    shared_rho,
) -> None:  # type: ignore[no-untyped-def]
    _, rho, _ = _two_turns(shared_rho)
    tree = _tree(rho)
    nodes = tree["entries"]
    assert tree["total"] == len(nodes) == 7 and tree["nextOffset"] is None
    assert [n["role"] for n in nodes] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
    assert all(n["kind"] == "message" and n["onPath"] for n in nodes)
    assert [n["parentId"] for n in nodes[1:]] == [n["id"] for n in nodes[:-1]]
    assert nodes[0]["parentId"] is None and tree["leafId"] == nodes[-1]["id"]
    assert nodes[2]["preview"] == '→ read_file({"path": "notes.txt"})'
    assert nodes[5]["preview"] == "second question"
    assert {n["resolution"] for n in nodes} == {"full"}
    page = _tree(rho, offset=2, limit=3)
    assert [n["id"] for n in page["entries"]] == [n["id"] for n in nodes[2:5]]
    assert page["nextOffset"] == 5
    bad = rho.call("getTree", {"limit": 0})
    assert bad["error"]["code"] == -32602
    bad = rho.call("getTree", {"offset": "1"})
    assert bad["error"]["code"] == -32602


def test_branch_to_moves_the_leaf_and_the_next_prompt_continues_there(
    shared_rho,
) -> None:  # type: ignore[no-untyped-def]
    _, rho, server = _two_turns(shared_rho)
    first_answer = _by_preview(_tree(rho))["first answer"]
    result = rho.call("branchTo", {"entryId": first_answer["id"]})["result"]
    assert result == {
        "leafId": first_answer["id"],
        "summaryId": None,
        "abandonedCount": 2,
        "closedCalls": 0,
    }
    server.add(text_reply("branch answer"))
    rho.call("prompt", {"message": "a different second question"})
    sent = [m["content"] for m in _sent_messages(server)]
    assert "second question" not in sent and sent[-1] == "a different second question"
    tree = _by_preview(_tree(rho))
    assert tree["second question"]["onPath"] is False  # the old branch stays in the tree
    moved = [n for n in _tree(rho)["entries"] if n["kind"] == "leafMoved"]
    assert len(moved) == 1 and moved[0]["parentId"] == tree["second answer"]["id"]
    assert tree["branch answer"]["onPath"] is True
    unknown = rho.call("branchTo", {"entryId": "ffffffff"})
    assert unknown["error"]["code"] == -32602 and "ffffffff" in unknown["error"]["message"]


def test_branch_to_with_a_summary_shows_the_model_what_was_left(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared, rho, server = _two_turns(shared_rho)
    path = Path(rho.call("getState")["result"]["sessionPath"])
    ask = _by_preview(_tree(rho))["first question"]
    result = rho.call(
        "branchTo", {"entryId": ask["id"], "summarize": True, "summary": "Reading was a dead end."}
    )["result"]
    assert result["summaryId"] == result["leafId"] and result["abandonedCount"] == 5
    server.add(text_reply("fresh start"))
    rho.call("prompt", {"message": "try again"})
    sent = _sent_messages(server)
    summary = sent[-2]
    assert summary["role"] == "user"
    assert "Abandoned branch of 5 entries" in summary["content"]
    assert "Reading was a dead end." in summary["content"]
    assert [m["content"] for m in sent[:2]][1] == "first question"
    kinds = [next(iter(json.loads(line)["payload"])) for line in path.read_text().splitlines()[1:]]
    assert "LeafMoved" in kinds and "BranchSummary" in kinds
    # The branch and its summary survive a resume.
    server.add(text_reply("resumed"))
    again = _resume(shared, path)
    again.call("prompt", {"message": "after resume"})
    assert "Abandoned branch of 5 entries" in _sent_messages(server)[2]["content"]


def test_fork_session_writes_a_new_file_naming_its_parent(
    shared_rho,
) -> None:  # type: ignore[no-untyped-def]
    _, rho, server = _two_turns(shared_rho)
    parent = Path(rho.call("getState")["result"]["sessionPath"])
    first_answer = _by_preview(_tree(rho))["first answer"]
    fork = rho.call("forkSession", {"entryId": first_answer["id"]})["result"]
    assert fork["parentSession"] == str(parent) and fork["entryCount"] == 5
    assert fork["leafId"] == first_answer["id"] and fork["path"] != str(parent)
    assert rho.call("getState")["result"]["sessionPath"] == fork["path"]
    server.add(text_reply("forked answer"))
    rho.call("prompt", {"message": "in the fork"})
    assert [m["content"] for m in _sent_messages(server)][-2:] == ["first answer", "in the fork"]
    header = json.loads(Path(fork["path"]).read_text().splitlines()[0])
    assert header["parent_session"] == str(parent) and header["id"] == fork["sessionId"]
    assert "second question" in parent.read_text()  # the parent is untouched
    assert "in the fork" not in parent.read_text()


def test_set_label_appears_in_the_tree_and_survives_a_resume(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared, rho, _ = _two_turns(shared_rho)
    path = Path(rho.call("getState")["result"]["sessionPath"])
    ask = _by_preview(_tree(rho))["first question"]
    assert rho.call("setLabel", {"entryId": ask["id"], "label": "start here"})["result"] == {
        "entryId": ask["id"],
        "label": "start here",
    }
    assert _by_preview(_tree(rho))["first question"]["label"] == "start here"
    for bad in ({"entryId": ask["id"], "label": "two\nlines"}, {"entryId": ask["id"]}):
        assert rho.call("setLabel", bad)["error"]["code"] == -32602
    assert rho.call("setLabel", {"entryId": "nope", "label": "x"})["error"]["code"] == -32602
    messages_before = rho.call("getMessages")["result"]["messages"]
    again = _resume(shared, path)
    assert _by_preview(_tree(again))["first question"]["label"] == "start here"
    assert again.call("getMessages")["result"]["messages"] == messages_before
    assert again.call("setLabel", {"entryId": ask["id"], "label": None})["result"]["label"] is None
    assert _by_preview(_tree(again))["first question"]["label"] is None


def test_get_session_stats_has_every_field(
    shared_rho,
) -> None:  # type: ignore[no-untyped-def]
    # `apiUsage` counts what the process spent: the shared rho's count before this test's turns
    spent = shared_rho(user_config=WITHOUT_CHECKPOINTS).rho.call("getSessionStats")["result"][
        "apiUsage"
    ]["requestCount"]
    _, rho, _ = _two_turns(shared_rho)
    stats = rho.call("getSessionStats")["result"]
    assert set(stats) == {
        "contextWindow",
        "completionReserve",
        "estimatedUsed",
        "estimatedRemaining",
        "utilizationPercent",
        "messageCount",
        "entryCount",
        "pathEntryCount",
        "compactedEntryCount",
        "compactionTokens",
        "compactionCount",
        "toolSchemaTokens",
        "roleTokens",
        "resolutionTokens",
        "phaseTokens",
        "apiUsage",
        "fitted",
        "cache",
    }
    assert stats["messageCount"] == 7 and stats["entryCount"] == 7
    assert stats["toolSchemaTokens"] > 0
    assert stats["estimatedUsed"] == sum(stats["roleTokens"].values()) + stats["toolSchemaTokens"]
    assert stats["phaseTokens"]["exploration"] > 0  # the read_file result
    assert stats["apiUsage"]["requestCount"] == spent + 3


def _damaged_session(path: Path, project: Path) -> Path:
    header = {
        "type": "Header",
        "id": "0badf00d",
        "version": 2,
        "created_at_secs": 1,
        "cwd": str(project),
        "parent_session": None,
    }

    def entry(entry_id: str, parent: str | None, payload: Any, resolution: Any = "Full") -> str:
        return json.dumps(
            {
                "type": "Entry",
                "id": entry_id,
                "parent_id": parent,
                "timestamp": {"secs_since_epoch": 1, "nanos_since_epoch": 0},
                "resolution": resolution,
                "payload": payload,
            }
        )

    def message(role: str, text: str) -> dict[str, Any]:
        return {"Message": {"role": role, "content": text}}

    lines = [
        json.dumps(header),
        entry("00000001", None, message("system", "sys")),
        entry("00000002", "00000001", message("user", "hello")),
        entry("00000003", "00000002", {"FromTheFuture": {"x": 1}}),
        entry("00000004", "00000003", message("assistant", "hi"), {"Squeezed": {}}),
        entry("00000005", "00000009", message("user", "lost parent")),
        entry("00000006", "00000007", message("user", "cycle one")),
        entry("00000007", "00000006", message("user", "cycle two")),
        entry("00000008", "00000004", message("user", "last")),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_damaged_session_resumes_with_one_warning(
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    path = _damaged_session(tmp_path / "damaged.jsonl", project)
    before = path.read_bytes()
    server.add(text_reply("still here"))
    rho = start_scripted(start_rho, server, "--session", str(path))
    messages = rho.call("getMessages")["result"]["messages"]
    assert [m["content"] for m in messages] == ["sys", "hello", "last"]
    tree = _tree(rho)
    assert tree["total"] == 8
    parents = {n["id"]: n["parentId"] for n in tree["entries"]}
    # Each continues from the entry written before it; the file is not changed.
    assert parents["00000005"] == "00000004" and parents["00000006"] == "00000005"
    assert parents["00000007"] == "00000006"
    kinds = {n["id"]: (n["kind"], n["resolution"]) for n in tree["entries"]}
    assert kinds["00000003"] == ("unknown", "full")
    assert kinds["00000004"] == ("message", "unknown")
    assert rho.call("getSessionStats")["result"]["pathEntryCount"] == 5
    assert rho.call("prompt", {"message": "go on"})["result"]["reply"] == "still here"
    assert rho.call("branchTo", {"entryId": "00000007", "summarize": True})["result"]
    assert rho.finish() == 0
    assert path.read_bytes().startswith(before)
    stderr = rho.stderr_text()
    said = warnings(stderr)
    assert len(said) == 1, stderr
    for part in ("unknown kind", "unknown resolution", "parent is missing", "cycle"):
        assert part in said[0]
    assert "Traceback" not in stderr
