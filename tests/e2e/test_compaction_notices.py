"""What the client hears of compaction and of tool definitions that crowd the prompt budget,
through the real `rho` process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

WARNING = "the tool definitions alone take"


def _big_file(project: Path, name: str, lines: int) -> None:
    (project / name).write_text(
        f"header of {name}\n" + "".join(f"{name} line {n:03d} {'.' * 60}\n" for n in range(lines))
    )


def _config(home: Path, text: str) -> None:
    (home / ".rho").mkdir(parents=True, exist_ok=True)
    (home / ".rho" / "config.toml").write_text(text)


def _compacted(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "context/compacted"]


def test_a_compact_request_is_announced(start_rho, server: ScriptedServer, project: Path) -> None:  # type: ignore[no-untyped-def]
    _big_file(project, "big.txt", 60)
    rho = start_scripted(start_rho, server, "--ephemeral")
    server.add(tool_call_reply("read_file", {"path": "big.txt"}), text_reply("read it"))
    rho.call("prompt", {"message": "fix the bug"})
    server.add(text_reply("docs done"))
    rho.call("prompt", {"message": "and the docs"})
    assert _compacted(rho) == []
    result = rho.call("compact")["result"]
    (notice,) = _compacted(rho)
    assert notice == {
        "trigger": "manual",
        "strategy": result["strategy"],
        "requested": result["requested"],
        "entriesCompacted": result["entriesCompacted"],
        "tokensBefore": result["tokensBefore"],
        "tokensAfter": result["tokensAfter"],
        "summaryId": result["summaryId"],
    }
    assert rho.call("compact")["result"]["compacted"] is False
    assert len(_compacted(rho)) == 1  # nothing was folded: nothing announced
    assert rho.finish() == 0


def test_every_auto_compaction_is_announced(
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:  # type: ignore[no-untyped-def]
    _config(
        home,
        "[agent]\ntoken_budget = 16384\ncompletion_reserve = 512\nauto_compact_threshold = 50\n",
    )
    for name in ("a.txt", "b.txt", "c.txt"):
        _big_file(project, name, 150)
    server.add(
        tool_call_reply("read_file", {"path": "a.txt"}),
        tool_call_reply("read_file", {"path": "b.txt"}),
        tool_call_reply("read_file", {"path": "c.txt"}),
        text_reply("all read"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    prompt_id = rho.request("prompt", {"message": "read the three files"})
    rho.wait_for(lambda m: m.get("id") == prompt_id)
    notices = _compacted(rho)
    assert notices, rho.stderr_text()
    for notice in notices:
        assert notice["trigger"] == "auto" and notice["strategy"] == "mechanical"
        assert notice["entriesCompacted"] > 0
        assert 0 < notice["tokensAfter"] < notice["tokensBefore"]
    # Each is sent before the turn ends, and matches what stderr says.
    methods = rho.methods_seen()
    assert methods.index("context/compacted") < methods.index("agent/end")
    assert rho.finish() == 0
    assert rho.stderr_text().count("rho: compacted ") == len(notices)


def test_tool_definitions_over_half_the_budget_are_said_once(
    start_rho, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    roomy = start_scripted(start_rho, server, "--ephemeral")
    share = roomy.call("getState")["result"]["toolDefinitions"]
    assert share["overHalf"] is False and "warning" not in share
    assert share["packs"] and all(pack["tools"] > 0 for pack in share["packs"])
    server.add(text_reply("fine"))
    roomy.call("prompt", {"message": "hi"})
    assert roomy.finish() == 0
    assert WARNING not in roomy.stderr_text()

    # A window of twice the definitions: the prompt budget is half of it (the reserve takes
    # the other half), so the definitions alone take all of it.
    window = str(max(256, 2 * share["tokens"]))
    crowded = start_scripted(start_rho, server, "--ephemeral", "--token-budget", window)
    state = crowded.call("getState")["result"]["toolDefinitions"]
    assert state["overHalf"] is True and state["promptBudget"] <= state["tokens"]
    biggest = state["packs"][0]
    assert f"{biggest['plugin']} ({biggest['tokens']} tokens" in state["warning"]
    for _ in range(2):
        crowded.call("prompt", {"message": "hi"})  # each fails: no room for the conversation
    assert crowded.finish() == 0
    stderr = crowded.stderr_text()
    assert stderr.count(WARNING) == 1 and biggest["plugin"] in stderr
