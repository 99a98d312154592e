"""getSessionStats through the real `rho`: the prompt cache's hit rate as the provider reports
it (session and last turn, in rho and in rho acp), and statistics that stay what a fresh load
of the session makes after branching, compaction and resume."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from acp import text_block
from acp_client import RecordingClient, run_acp, with_agent  # type: ignore[import-not-found]
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


def _usage(prompt: Any, cached: Any) -> dict[str, Any]:
    """A Chat Completions usage object with `cached` of `prompt` tokens read from the cache."""
    return {
        "prompt_tokens": prompt,
        "completion_tokens": 5,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def _rate(cached: int, prompt: int, requests: int) -> dict[str, Any]:
    percent = cached * 1000 // prompt / 10 if prompt else None
    return {
        "cachedTokens": cached,
        "inputTokens": prompt,
        "requestCount": requests,
        "hitRatePercent": percent,
    }


def test_the_cache_hit_rate_of_the_session_and_of_the_last_turn(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    (project / "a.txt").write_text("alpha\n" * 50)
    rho: RhoProcess = start_scripted(start_rho, server)
    before = rho.call("getSessionStats")["result"]["cache"]
    assert before == {"session": _rate(0, 0, 0), "lastTurn": None}

    server.add(
        tool_call_reply("read_file", {"path": "a.txt"}, usage=_usage(1000, 0)),
        text_reply("read it", usage=_usage(1200, 1000)),
    )
    assert rho.call("prompt", {"message": "read a.txt"})["result"]["reply"] == "read it"
    cache = rho.call("getSessionStats")["result"]["cache"]
    assert cache["session"] == cache["lastTurn"] == _rate(1000, 2200, 2)
    assert cache["session"]["hitRatePercent"] == 45.4  # 45.45… rounded down

    server.add(text_reply("again", usage=_usage(1300, 1200)))
    rho.call("prompt", {"message": "once more"})
    stats = rho.call("getSessionStats")["result"]
    assert stats["cache"] == {"session": _rate(2200, 3500, 3), "lastTurn": _rate(1200, 1300, 1)}
    assert (stats["cache"]["session"]["hitRatePercent"], stats["cache"]["lastTurn"]["hitRatePercent"]) == (62.8, 92.3)  # fmt: skip
    # The same counts as every request's usage notification and the process totals.
    notified = [m["params"]["usage"] for m in rho.seen if m.get("method") == "usage"]
    assert sum(u["cachedTokens"] for u in notified) == 2200
    assert stats["apiUsage"]["totalCachedTokens"] == 2200
    assert stats["apiUsage"]["totalInputTokens"] == 3500
    assert rho.finish() == 0


def test_odd_cache_counts_from_a_provider_keep_the_rate_between_0_and_100(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    (project / "a.txt").write_text("alpha\n")
    rho: RhoProcess = start_scripted(start_rho, server)
    server.add(
        # More cached than sent: counted as all of it.
        tool_call_reply("read_file", {"path": "a.txt"}, usage=_usage(100, 500)),
        # A negative count: none.
        tool_call_reply("read_file", {"path": "a.txt"}, usage=_usage(50, -7)),
        # Counts that are not numbers, and details that are not an object: nothing.
        tool_call_reply("read_file", {"path": "a.txt"}, usage=_usage("many", "some")),
        # Infinity and NaN, which a JSON parser lets through: nothing, and the turn goes on.
        tool_call_reply("read_file", {"path": "a.txt"}, usage=_usage(math.inf, math.nan)),
        text_reply("done", usage={"prompt_tokens": 50, "prompt_tokens_details": "cached: all"}),
    )
    assert rho.call("prompt", {"message": "read"})["result"]["reply"] == "done"
    cache = rho.call("getSessionStats")["result"]["cache"]
    assert cache["session"] == cache["lastTurn"] == _rate(100, 200, 5)
    assert cache["session"]["hitRatePercent"] == 50.0
    assert rho.finish() == 0


def test_each_session_has_the_hit_rate_of_its_own_requests(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    rho: RhoProcess = start_scripted(start_rho, server)
    server.add(text_reply("hi", usage=_usage(400, 300)))
    rho.call("prompt", {"message": "hello"})
    path = rho.call("getState")["result"]["sessionPath"]
    assert rho.call("getSessionStats")["result"]["cache"]["session"] == _rate(300, 400, 1)
    rho.call("newSession")
    assert rho.call("getSessionStats")["result"]["cache"] == {
        "session": _rate(0, 0, 0),
        "lastTurn": None,
    }
    server.add(text_reply("new", usage=_usage(100, 0)))
    rho.call("prompt", {"message": "hello again"})
    assert rho.call("getSessionStats")["result"]["cache"]["session"] == _rate(0, 100, 1)
    rho.call("resumeSession", {"path": path})
    stats = rho.call("getSessionStats")["result"]
    assert stats["cache"] == {"session": _rate(300, 400, 1), "lastTurn": _rate(300, 400, 1)}
    assert stats["apiUsage"]["totalCachedTokens"] == 300  # the process's totals: both sessions
    assert stats["apiUsage"]["totalInputTokens"] == 500
    rho.finish()

    # Another process has none of them: providers' usage is not kept in the session file.
    again: RhoProcess = start_scripted(start_rho, server, "--session", path)
    assert again.call("getSessionStats")["result"]["cache"]["session"] == _rate(0, 0, 0)
    assert again.finish() == 0


def test_rho_acp_reports_the_cached_tokens_of_a_prompt(
    server: ScriptedServer, home: Path, project: Path
) -> None:
    server.add(
        tool_call_reply("list_dir", {"path": "."}, usage=_usage(300, 0)),
        text_reply("listed", usage=_usage(400, 350)),
    )
    (project / "a.txt").write_text("a\n")
    client = RecordingClient()

    async def body(conn: Any) -> Any:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        return await conn.prompt(session_id=session.session_id, prompt=[text_block("list")])

    response = run_acp(with_agent(client, server, home, project, body))
    usage = response.usage
    assert (usage.input_tokens, usage.cached_read_tokens) == (700, 350)


# ── statistics kept, equal to those a fresh load makes ─────────────────────

BUDGET = "12000"


def _context(stats: dict[str, Any]) -> dict[str, Any]:
    """The statistics of the session's path. Not `apiUsage` and `cache`, which belong to the
    process, nor `fitted`: a plan the fitter extended turn by turn may shorten other entries
    than one it makes at once from the whole path, and both are what the next request sends."""
    return {k: v for k, v in stats.items() if k not in {"apiUsage", "cache", "fitted"}}


def _as_loaded(start_rho, server: ScriptedServer, live: RhoProcess) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The statistics of `live`'s session made from scratch by a rho that loads its file.
    `live` lets the file go meanwhile, then resumes it: its statistics are made from scratch
    too (and extended from there on), with the end the other rho recorded on its path."""
    path = live.call("getState")["result"]["sessionPath"]
    live.call("newSession")  # lets the session's file go
    other: RhoProcess = start_scripted(start_rho, server, "--token-budget", BUDGET, "--session", path)  # fmt: skip
    loaded = _context(other.call("getSessionStats")["result"])
    assert other.finish() == 0  # records its end: one entry more, which renders nothing
    assert "error" not in live.call("resumeSession", {"path": path})
    resumed = _context(live.call("getSessionStats")["result"])
    ended = {"entryCount": loaded["entryCount"] + 1, "pathEntryCount": loaded["pathEntryCount"] + 1}
    assert resumed == {**loaded, **ended}
    return loaded


def test_statistics_after_branching_compaction_and_resume_equal_a_fresh_load(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    for name in ("a", "b", "c"):
        (project / f"{name}.txt").write_text(f"{name} line\n" * 600)
    rho: RhoProcess = start_scripted(start_rho, server, "--token-budget", BUDGET)
    for name in ("a", "b", "c"):
        server.add(
            tool_call_reply("read_file", {"path": f"{name}.txt"}),
            text_reply(f"{name} read"),
        )
        rho.call("prompt", {"message": f"read {name}.txt"})
    stats = rho.call("getSessionStats")["result"]
    assert stats["fitted"]["outlined"] > 0  # over the budget: the fitted view is fitted
    assert _context(stats) == _as_loaded(start_rho, server, rho)

    # Back to the end of the first turn: a path of its own.
    tree = rho.call("getTree", {"limit": 500})["result"]["entries"]
    [first_reply] = [e for e in tree if e["preview"].startswith("a read")]
    rho.call("branchTo", {"entryId": first_reply["id"]})
    branched = rho.call("getSessionStats")["result"]
    assert branched["pathEntryCount"] < stats["pathEntryCount"]
    assert _context(branched) == _as_loaded(start_rho, server, rho)

    server.add(tool_call_reply("read_file", {"path": "c.txt"}), text_reply("c again"))
    rho.call("prompt", {"message": "read c.txt again"})
    compacted = rho.call("compact")["result"]
    assert compacted["compacted"] is True
    after = rho.call("getSessionStats")["result"]
    assert after["compactionCount"] == 1 and after["compactedEntryCount"] > 0
    assert _context(after) == _as_loaded(start_rho, server, rho)

    server.add(text_reply("still here"))
    rho.call("prompt", {"message": "and now?"})
    grown = rho.call("getSessionStats")["result"]
    assert grown["messageCount"] == after["messageCount"] + 2
    assert _context(grown) == _as_loaded(start_rho, server, rho)
    assert rho.finish() == 0
