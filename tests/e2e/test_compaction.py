"""Compaction through the real `rho` process: the `compact` method, auto-compaction during a
long task, the old branch kept on disk, and strategies from a third-party plugin.

Third-party plugins are installed the way a wheel would be: a `*.dist-info` with
`entry_points.txt` and the module on PYTHONPATH.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, install_plugin, plugin_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.session import CompactionPayload, LeafMovedPayload, Session
from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

PLUGIN = """
from rho_kernel import hookimpl


class Acme:
    name = "acme"

    async def summarize(self, request):
        files = sorted(
            {json_path for json_path in request.mechanical.tool_calls.get("read_file", [])}
        )
        return {"notes": f"acme notes: {len(request.entries)} entries, read {', '.join(files)}"}


class Shaky:
    name = "shaky"

    async def summarize(self, request):
        raise RuntimeError("the acme service is down")


@hookimpl
def rho_register_compaction_strategies():
    return [Acme(), Shaky()]
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    install_plugin(path, "acme_compaction", "acme", PLUGIN)
    return path


def _big_file(project: Path, name: str, lines: int = 60) -> str:
    """A file whose first line is a header and whose other lines say where they come from."""
    text = f"header of {name}\n" + "".join(
        f"{name} line {n:03d} {'.' * 60}\n" for n in range(lines)
    )
    (project / name).write_text(text)
    return text


def _config(home: Path, text: str) -> None:
    (home / ".rho").mkdir(parents=True, exist_ok=True)
    (home / ".rho" / "config.toml").write_text(text)


def _contents(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.json["messages"])


def _two_prompts(rho: RhoProcess, server: ScriptedServer) -> None:
    server.add(tool_call_reply("read_file", {"path": "big.txt"}), text_reply("read it"))
    assert rho.call("prompt", {"message": "fix the bug"})["result"]["reply"] == "read it"
    server.add(text_reply("docs done"))
    assert rho.call("prompt", {"message": "and the docs"})["result"]["reply"] == "docs done"


def test_compact_continues_on_a_summarized_branch_and_the_old_one_stays(
    start_rho, shared_rho
) -> None:  # type: ignore[no-untyped-def]
    # The module's rho holds the session first (a rho of its own cost ~0.7 s of CPU); a new
    # one resumes it.
    shared = shared_rho()
    rho, server, project = shared.rho, shared.server, shared.project
    _big_file(project, "big.txt")
    _two_prompts(rho, server)
    before = rho.call("getMessages")["result"]["messages"]
    result = rho.call("compact")["result"]
    assert result["compacted"] is True
    assert result["strategy"] == result["requested"] == "mechanical"
    assert result["entriesCompacted"] == 4
    assert result["tokensAfter"] < result["tokensBefore"]

    messages = rho.call("getMessages")["result"]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "user", "assistant"]
    assert messages[1]["content"] == "fix the bug"
    summary = messages[2]["content"]
    assert summary.startswith("[Compacted: 4 entries")
    assert "**Exploration:** read_file: big.txt." in summary
    assert 'Current request: "and the docs"' in summary
    assert messages[3:] == before[-1:]
    stats = rho.call("getSessionStats")["result"]
    assert stats["compactionCount"] == 1 and stats["compactedEntryCount"] == 4
    assert stats["compactionTokens"] > 0

    server.add(text_reply("carrying on"))
    rho.call("prompt", {"message": "carry on"})
    sent = _contents(server.requests[-1])
    assert "big.txt line 030" not in sent and "[Compacted: 4 entries" in sent
    path = Path(rho.call("getState")["result"]["sessionPath"])
    rho.call("newSession")  # closes the session (rho.finish() == 0: checked at the module's end)

    # Resuming continues on the compacted branch …
    again = start_rho(
        "--endpoint", server.chat_url, "-m", "scripted-model", "--session", str(path),
        cwd=project,
    )  # fmt: skip
    assert again.read()["method"] == "ready"
    resumed = again.call("getMessages")["result"]["messages"]
    assert resumed[:4] == messages and resumed[-1]["content"] == "carrying on"
    assert again.finish() == 0

    # … and the old branch is still in the file, entry for entry, as it was.
    session = Session.open(path)
    try:
        assert any(isinstance(e.payload, LeafMovedPayload) for e in session.entries.values())
        session.branch_to(result["previousLeafId"])
        old = [m.to_record() for m in session.path_messages()]
        assert [{k: v for k, v in m.items() if k != "is_error"} for m in old] == [
            {k: v for k, v in m.items() if k != "is_error"} for m in before
        ]
        assert "big.txt line 030" in json.dumps(old)
    finally:
        session.close()


def test_compact_with_nothing_to_compact_changes_nothing(shared_rho) -> None:  # type: ignore[no-untyped-def]
    shared = shared_rho()
    rho, server = shared.rho, shared.server
    server.add(text_reply("hello"))
    rho.call("prompt", {"message": "hi"})
    result = rho.call("compact")["result"]
    assert result["compacted"] is False and result["reason"] == "nothing to compact"
    assert len(rho.call("getMessages")["result"]["messages"]) == 3
    # rho.finish() == 0: checked when the module's shared rho ends


def test_compact_refuses_an_unknown_strategy(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho = shared_rho().rho
    error = rho.call("compact", {"strategy": "turbo"})["error"]
    assert error["code"] == -32602
    assert error["message"] == "unknown compaction strategy 'turbo' (available: llm, mechanical)"
    assert rho.call("compact", {"strategy": 3})["error"]["code"] == -32602
    # rho.finish() == 0: checked when the module's shared rho ends


def test_auto_compaction_keeps_a_long_task_going(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    # Files large next to the tool definitions (some 5,000 tokens with every pack
    # installed), so that the window's room for them does not hang on the schemas' size.
    _config(
        home,
        "[agent]\ntoken_budget = 16384\ncompletion_reserve = 512\nauto_compact_threshold = 50\n",
    )
    for name in ("a.txt", "b.txt", "c.txt"):
        _big_file(project, name, lines=150)
    server.add(
        tool_call_reply("read_file", {"path": "a.txt"}),
        tool_call_reply("read_file", {"path": "b.txt"}),
        tool_call_reply("read_file", {"path": "c.txt"}),
        text_reply("all read"),
    )
    rho = start_scripted(start_rho, server)
    answer = rho.call("prompt", {"message": "read the three files"})
    assert answer["result"].get("reply") == "all read", answer
    last = _contents(server.requests[-1])
    assert "read the three files" in last  # the request survives every compaction
    assert "a.txt line 030" not in last and "c.txt line 030" in last
    assert "[Compacted:" in last
    stats = rho.call("getSessionStats")["result"]
    assert stats["compactionTokens"] > 0
    assert rho.finish() == 0
    assert "rho: compacted " in rho.stderr_text()


def test_a_third_party_strategy_selected_by_compaction_mode(
    start_rho, server: ScriptedServer, project: Path, home: Path, site: Path
) -> None:  # type: ignore[no-untyped-def]
    _config(home, '[agent]\ncompaction_mode = "acme"\n')
    _big_file(project, "big.txt")
    rho = start_scripted(start_rho, server, env=plugin_env(site, "acme"))
    _two_prompts(rho, server)
    result = rho.call("compact")["result"]
    assert result["strategy"] == result["requested"] == "acme"
    summary = rho.call("getMessages")["result"]["messages"][2]["content"]
    assert summary.endswith("<context>\nacme notes: 4 entries, read big.txt\n<context:end>")
    path = Path(rho.call("getState")["result"]["sessionPath"])
    assert rho.finish() == 0
    with Session.open(path) as session:
        (compaction,) = [
            e for e in session.path_entries() if isinstance(e.payload, CompactionPayload)
        ]
        notes = compaction.payload.summary.notes  # type: ignore[union-attr]
        assert "'acme' strategy" in notes and "acme notes: 4 entries, read big.txt" in notes


def test_a_failing_third_party_strategy_falls_back_to_mechanical(
    start_rho, server: ScriptedServer, project: Path, site: Path
) -> None:  # type: ignore[no-untyped-def]
    _big_file(project, "big.txt")
    rho = start_scripted(start_rho, server, env=plugin_env(site, "acme"))
    _two_prompts(rho, server)
    result = rho.call("compact", {"strategy": "shaky"})["result"]
    assert result["compacted"] is True
    assert (result["requested"], result["strategy"]) == ("shaky", "mechanical")
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert (
        "rho: warning: compaction strategy 'shaky' failed (RuntimeError: the acme service is "
        "down); the mechanical summary was used"
    ) in stderr
    assert "Traceback" not in stderr


def test_the_llm_strategy_asks_the_model_for_notes(shared_rho) -> None:  # type: ignore[no-untyped-def]
    # Shared: it checks no usage total (those count every request of the process).
    shared = shared_rho()
    rho, server, project = shared.rho, shared.server, shared.project
    _big_file(project, "big.txt")
    _two_prompts(rho, server)
    server.add(text_reply("The user asked for a bug fix; big.txt was read; docs are done."))
    result = rho.call("compact", {"strategy": "llm"})["result"]
    assert result["strategy"] == "llm"
    request = server.requests[-1].json
    assert request["max_tokens"] == 512 and "tools" not in request
    assert "big.txt line 005" in request["messages"][1]["content"]  # the transcript
    summary = rho.call("getMessages")["result"]["messages"][2]["content"]
    assert "**Exploration:** read_file: big.txt." in summary
    assert summary.endswith(
        "<context>\nThe user asked for a bug fix; big.txt was read; docs are done.\n<context:end>"
    )
    # rho.finish() == 0: checked when the module's shared rho ends


def test_an_unknown_compaction_mode_stops_startup(
    start_rho, server: ScriptedServer, home: Path
) -> None:  # type: ignore[no-untyped-def]
    _config(home, '[agent]\ncompaction_mode = "acme"\n')
    rho = start_rho("--endpoint", server.chat_url, "-m", "scripted-model")
    assert rho.finish() == 2
    assert rho.raw == []
    assert rho.stderr_text() == (
        'rho: error: [agent] compaction_mode = "acme": no installed plugin registers that '
        "compaction strategy (available: llm, mechanical)\n"
    )


# ── the usage of LLM compaction requests ────────────────────────────────────

COMPACTION_USAGE = {"prompt_tokens": 7000, "completion_tokens": 300}


def _is_compaction_request(request: Any) -> bool:
    return request.json["messages"][0]["content"].startswith("You summarize part of a coding")


def test_a_compact_request_is_counted_and_reported_as_compaction(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    _big_file(project, "big.txt")
    rho = start_scripted(start_rho, server)
    _two_prompts(rho, server)
    before = rho.call("getSessionStats")["result"]["apiUsage"]
    assert before["compactionRequestCount"] == 0
    server.add(text_reply("Notes on the session.", usage=COMPACTION_USAGE))
    assert rho.call("compact", {"strategy": "llm"})["result"]["strategy"] == "llm"
    assert _is_compaction_request(server.requests[-1])
    (note,) = [
        m["params"]
        for m in rho.seen
        if m.get("method") == "usage" and m["params"]["kind"] != "turn"
    ]
    assert (note["kind"], note["iteration"]) == ("compaction", 0)
    assert (note["usage"]["inputTokens"], note["usage"]["outputTokens"]) == (7000, 300)
    after = rho.call("getSessionStats")["result"]["apiUsage"]
    assert after["totalInputTokens"] == before["totalInputTokens"] + 7000
    assert after["totalOutputTokens"] == before["totalOutputTokens"] + 300
    assert after["requestCount"] == before["requestCount"] + 1
    assert (after["compactionInputTokens"], after["compactionOutputTokens"]) == (7000, 300)
    assert after["compactionRequestCount"] == 1
    assert rho.finish() == 0


def test_an_answered_compaction_request_counts_even_when_its_notes_are_unused(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    _big_file(project, "big.txt")
    rho = start_scripted(start_rho, server)
    _two_prompts(rho, server)
    before = rho.call("getSessionStats")["result"]["apiUsage"]
    server.add(text_reply("", usage=COMPACTION_USAGE))  # answered, but empty: falls back
    result = rho.call("compact", {"strategy": "llm"})["result"]
    assert (result["requested"], result["strategy"]) == ("llm", "mechanical")
    after = rho.call("getSessionStats")["result"]["apiUsage"]
    # The request was answered and billed, so it counts, even though its notes were unused.
    assert after["compactionRequestCount"] == 1
    assert after["totalInputTokens"] == before["totalInputTokens"] + 7000
    assert rho.finish() == 0


def test_auto_compaction_usage_counts_in_the_prompt_and_the_totals(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    # A threshold of 1%: every tool batch compacts what it can (the first prompt's turn, once
    # the second prompt runs: a single LLM compaction request).
    _config(
        home,
        "[agent]\ntoken_budget = 16384\ncompletion_reserve = 512\nauto_compact_threshold = 1\n"
        'compaction_mode = "llm"\n',
    )
    _big_file(project, "big.txt")
    _big_file(project, "more.txt")
    rho = start_scripted(start_rho, server)
    server.add(tool_call_reply("read_file", {"path": "big.txt"}), text_reply("read it"))
    assert rho.call("prompt", {"message": "fix the bug"})["result"]["reply"] == "read it"
    before = rho.call("getSessionStats")["result"]["apiUsage"]
    server.add(
        tool_call_reply("read_file", {"path": "more.txt"}),
        text_reply("Notes on the first turn.", usage=COMPACTION_USAGE),
        text_reply("both read"),
    )
    rho.request("prompt", {"message": "and more.txt"})
    end = rho.notification("agent/end")["params"]
    assert end["reply"] == "both read"
    chats = [r for r in server.requests if r.json]
    assert [_is_compaction_request(r) for r in chats[-3:]] == [False, True, False]
    notes = [m["params"] for m in rho.seen if m.get("method") == "usage"][-3:]
    assert [n["kind"] for n in notes] == ["turn", "compaction", "turn"]
    assert notes[1]["usage"]["inputTokens"] == 7000 and notes[1]["iteration"] == 2
    # The run's usage holds the compaction request: 3 requests, 7000 + 2 × 10 input tokens.
    assert end["usage"]["requestCount"] == 3
    assert end["usage"]["inputTokens"] == 7000 + 2 * 10
    after = rho.call("getSessionStats")["result"]["apiUsage"]
    assert after["requestCount"] == before["requestCount"] + 3
    assert after["totalInputTokens"] == before["totalInputTokens"] + 7020
    assert (after["compactionRequestCount"], after["compactionInputTokens"]) == (1, 7000)
    assert rho.finish() == 0
    assert "rho: compacted " in rho.stderr_text()
