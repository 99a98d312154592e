"""Hostile session files resumed through the real `rho --session PATH`: cycles of parents,
repeated ids, missing parents and unreadable lines never lose the system message or the
path, are named in one warning in rho's words, and never change the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rho_process import start_scripted, stderr_lines, warnings  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply

TURNS = ["You are rho.", "q1", "r1", "q2", "r2"]


def entry(entry_id: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
    return {
        "type": "Entry",
        "id": entry_id,
        "parent_id": parent,
        "timestamp": {"secs_since_epoch": 1, "nanos_since_epoch": 0},
        "resolution": "Full",
        "payload": {"Message": {"role": role, "content": text}},
    }


def conversation() -> list[dict[str, Any]]:
    return [
        entry("00000001", None, "system", "You are rho."),
        entry("00000002", "00000001", "user", "q1"),
        entry("00000003", "00000002", "assistant", "r1"),
        entry("00000004", "00000003", "user", "q2"),
        entry("00000005", "00000004", "assistant", "r2"),
    ]


def write(path: Path, project: Path, records: list[Any]) -> Path:
    header = {
        "type": "Header",
        "id": "0badf00d",
        "version": 2,
        "created_at_secs": 1,
        "cwd": str(project),
        "parent_session": None,
    }
    lines = [json.dumps(header)] + [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n")
    return path


def self_parent() -> list[Any]:
    return [*conversation(), entry("00000006", "00000006", "user", "q3")]


def long_cycle() -> list[Any]:
    return [
        *conversation(),
        entry("00000006", "00000008", "user", "q3"),
        entry("00000007", "00000006", "assistant", "r3"),
        entry("00000008", "00000007", "user", "q4"),
    ]


def repeated_id() -> list[Any]:
    return [*conversation(), entry("00000002", "00000005", "user", "a reused id")]


def repeated_system_id() -> list[Any]:
    return [*conversation(), entry("00000001", None, "system", "a second system message")]


def repeated_unreadable() -> list[Any]:
    bad = entry("00000003", "00000005", "wizard", "a reused id, unreadable")
    return [*conversation(), bad]


def missing_parent() -> list[Any]:
    return [*conversation(), entry("00000006", "0000dead", "user", "q3")]


def system_its_own_parent() -> list[Any]:
    records = conversation()
    records[0] = entry("00000001", "00000001", "system", "You are rho.")
    return records


def cycle_through_the_root() -> list[Any]:
    records = conversation()
    records[0] = entry("00000001", "00000005", "system", "You are rho.")
    return records


# name → (records, what the model must see before the new prompt, a word of the warning)
CASES = {
    "self parent": (self_parent, [*TURNS, "q3"], "1 cycle of parents (cut at 00000006)"),
    "cycle of three": (long_cycle, [*TURNS, "q3", "r3", "q4"], "1 cycle of parents"),
    "repeated id": (repeated_id, TURNS, "1 line repeating an earlier entry's id (first: line 7"),
    "repeated system id": (repeated_system_id, TURNS, "repeating an earlier entry's id"),
    "repeated unreadable": (repeated_unreadable, TURNS, "repeating an earlier entry's id"),
    "missing parent": (missing_parent, [*TURNS, "q3"], "1 entry whose parent is missing"),
    "system its own parent": (system_its_own_parent, TURNS, "cut at 00000001"),
    "cycle through the root": (cycle_through_the_root, TURNS, "cut at 00000001"),
}


def _chats(server: ScriptedServer) -> list[Any]:
    return [r.json for r in server.requests if isinstance(r.json, dict) and "messages" in r.json]


@pytest.mark.parametrize("name", list(CASES))
def test_a_damaged_file_resumes_with_the_system_message_and_the_whole_path(
    start_rho, shared_rho, server: ScriptedServer, tmp_path: Path, name: str
) -> None:  # type: ignore[no-untyped-def]
    # The resume after the repair is done by the module's rho (`resumeSession` opens a file
    # as `--session` does): a rho per case for it cost ~0.7 s of CPU each.
    shared = shared_rho()
    records, expected, warned = CASES[name]
    path = write(tmp_path / "damaged.jsonl", shared.project, records())
    before = path.read_bytes()
    server.add(text_reply("carried on"))
    rho = start_rho(
        "--endpoint", server.chat_url, "-m", "scripted-model", "--session", str(path),
        cwd=shared.project,
    )  # fmt: skip
    assert rho.read()["method"] == "ready"
    assert rho.call("prompt", {"message": "next"})["result"]["reply"] == "carried on"
    [body] = [r.json for r in server.requests if isinstance(r.json, dict) and "messages" in r.json]
    messages = body["messages"]
    assert messages[0]["role"] == "system"
    assert [m["content"] for m in messages] == [*expected, "next"]
    assert rho.finish() == 0
    assert path.read_bytes().startswith(before)  # appended to, never rewritten
    stderr = rho.stderr_text()
    said = warnings(stderr)
    assert len(said) == 1 and warned in said[0], stderr
    assert "Traceback" not in stderr
    # The next resume continues from the same place, after the new turn.
    shared.server.add(text_reply("again"))
    assert shared.rho.call("resumeSession", {"path": str(path)})["result"]["path"] == str(path)
    shared.rho.call("prompt", {"message": "after"})
    assert [m["content"] for m in _chats(shared.server)[-1]["messages"]] == [
        *expected,
        "next",
        "carried on",
        "after",
    ]
    # again.finish() == 0: checked when the module's shared rho ends


def test_an_unreadable_line_is_described_in_rhos_words(
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    records: list[Any] = conversation()
    bad = entry("00000006", "00000005", "user", "x")
    bad["payload"]["Message"]["tool_calls"] = [{"id": "c", "function": {"name": 7}}]
    records.append(bad)
    path = write(tmp_path / "damaged.jsonl", project, records)
    server.add(text_reply("ok"))
    rho = start_scripted(start_rho, server, "--session", str(path))
    rho.call("prompt", {"message": "next"})
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    [warning] = warnings(stderr)
    assert (
        "skipped 1 unreadable line (first: line 7: Message entry: "
        "tool_calls[0].function.name must be a string (found 7))" in warning
    )
    for word in ("pydantic", "validation error", "For further information", "type="):
        assert word not in stderr


def test_hostile_ids_cannot_forge_lines_on_stderr(
    start_rho, server: ScriptedServer, project: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    evil = "x\nrho: error: forged\r\x1b[2K"
    records: list[Any] = [*conversation(), entry(evil, evil, "user", "q3")]
    bad = entry("00000007", evil, "wizard\nrho: error: forged too", "x")
    records.append(bad)
    path = write(tmp_path / "damaged.jsonl", project, records)
    server.add(text_reply("ok"))
    rho = start_scripted(start_rho, server, "--session", str(path))
    rho.call("prompt", {"message": "next"})
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert "rho: error" not in "\n".join(
        line for line in stderr_lines(stderr) if not line.startswith("rho: warning:")
    )
    assert "\x1b" not in stderr and "\r" not in stderr
    assert len(warnings(stderr)) == 1


@pytest.mark.parametrize("name", ["self parent", "repeated id"])
def test_resume_session_over_rpc_repairs_the_same_way(
    shared_rho, tmp_path: Path, name: str
) -> None:  # type: ignore[no-untyped-def]
    shared = shared_rho()
    rho, server = shared.rho, shared.server
    records, expected, warned = CASES[name]
    path = write(tmp_path / "damaged.jsonl", shared.project, records())
    server.add(text_reply("carried on"))
    assert "result" in rho.call("resumeSession", {"path": str(path)})
    messages = rho.call("getMessages")["result"]["messages"]
    assert [m["content"] for m in messages] == expected
    rho.call("prompt", {"message": "next"})
    [body] = _chats(server)
    assert [m["content"] for m in body["messages"]] == [*expected, "next"]
    # rho.finish() == 0: checked when the module's shared rho ends
    assert warned in shared.drain_stderr()  # written before the answers read since
