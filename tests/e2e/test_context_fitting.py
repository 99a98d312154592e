"""Context fitting through the real `rho` process: the amnesia case, bounded results and the
error when nothing fits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

NO_USAGE = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
PROMPT_BUDGET = 32768 - 8192  # the default window and completion reserve
RATIO = 2.5  # bytes per token of a model no family matches, before any calibration


def _request_bytes(body: dict[str, Any]) -> int:
    """The request's size as rho estimates it: every message with its framing, and the tools."""
    size = len(json.dumps(body["tools"], ensure_ascii=False).encode())
    for message in body["messages"]:
        size += len(message["content"].encode()) + 20
        if "tool_call_id" in message:
            size += len(message["tool_call_id"]) + 10
        for call in message.get("tool_calls", []):
            function = call["function"]
            size += len(call["id"]) + len(function["name"]) + len(function["arguments"]) + 24
    return size


def _shared(shared_rho) -> tuple[RhoProcess, ScriptedServer, Path]:  # type: ignore[no-untyped-def]
    """The module's `--ephemeral` rho that may take up to 400 steps, fresh for this test (its
    exit status is checked when the module is done)."""
    shared = shared_rho("--ephemeral", "--max-iterations", "400")
    return shared.rho, shared.server, shared.project


def _session_lines(home: Path) -> list[dict[str, Any]]:
    (path,) = list((home / ".rho" / "sessions").rglob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_first_request_survives_hundreds_of_large_tool_results(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    rounds = 300  # enough that even outlined, the oldest turns must be left out
    for index in range(20):
        (project / f"module_{index}.py").write_text(
            "".join(f"value_{index}_{line} = {line} * 31  # some code\n" for line in range(120))
        )
    server.add(
        *[
            tool_call_reply("read_file", {"path": f"module_{i % 20}.py"}, usage=NO_USAGE)
            for i in range(rounds)
        ],
        text_reply("all read", usage=NO_USAGE),
    )
    task = "AUDIT EVERY MODULE and report the values"
    response = rho.call("prompt", {"message": task}, timeout=120)
    assert response["result"]["reply"] == "all read"
    requests = [r.json for r in server.requests if r.method == "POST"]
    assert len(requests) == rounds + 1
    for body in requests:
        assert body["messages"][0]["role"] == "system"
        assert body["messages"][1] == {"role": "user", "content": task}
        assert _request_bytes(body) <= PROMPT_BUDGET * RATIO
    total_read = sum(len(m["content"]) for m in requests[-1]["messages"] if m["role"] == "tool")
    assert total_read < rounds * 5000  # most of what was read is no longer sent in full
    last = requests[-1]["messages"]
    assert last[2]["content"].endswith(
        "earlier messages were left out here to fit the context window]"
    )
    assert any(m["content"].startswith("[outline] read_file module_") for m in last)
    assert last[-1]["role"] == "tool" and last[-1]["content"].startswith("<context>")
    usage = [m["params"]["context"]["fitted"] for m in rho.seen if m.get("method") == "usage"]
    assert len(usage) == rounds + 1
    assert all(f["estimatedTokens"] <= f["promptBudget"] == PROMPT_BUDGET for f in usage)
    assert usage[-1]["evicted"] > 0
    # fitted in large steps: most requests begin with the whole request before them
    steps = [f["step"] for f in usage]
    assert all(s["reason"] in ("start", "append", "budget") for s in steps)
    assert sum(s["changed"] for s in steps) <= rounds // 3
    for before, body, step in zip(requests, requests[1:], steps[1:], strict=False):
        if not step["changed"]:
            assert body["messages"][: len(before["messages"])] == before["messages"]


def test_a_large_read_is_cut_with_how_to_read_on_and_kept_in_the_session(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path, home: Path
) -> None:
    (project / "big.txt").write_text("".join(f"line number {i}\n" for i in range(1, 20001)))
    server.add(
        tool_call_reply("read_file", {"path": "big.txt", "hashline": False}, usage=NO_USAGE),
        text_reply("seen", usage=NO_USAGE),
    )
    rho = start_scripted(start_rho, server, "--token-budget", "16384")
    assert rho.call("prompt", {"message": "read big.txt"})["result"]["reply"] == "seen"
    sent = server.requests[-1].json["messages"][-1]["content"]
    body, footer = sent.rsplit("\n\n", 1)
    shown = body.count("\n")  # lines after the `<context>` line
    assert body.startswith("<context>\nline number 1\n")
    assert body.endswith(f"\nline number {shown}")
    assert footer.startswith(
        f"[output cut to fit the context window: {shown + 1} of 20002 lines shown;"
    )
    assert footer.endswith(f"read on with read_file offset={shown + 1} (and a limit)]")
    # half of (16384 − 8192) tokens at 2.5 bytes a token
    assert len(sent.encode()) <= 8192 * 0.5 * RATIO
    assert rho.finish() == 0
    (stored,) = [
        line["payload"]["Message"]
        for line in _session_lines(home)
        if line["type"] == "Entry" and line["payload"].get("Message", {}).get("role") == "tool"
    ]
    assert stored["content"] == sent
    assert stored["outline"] == "read_file big.txt: 20000 lines"
    full = stored["details"]["FullOutput"]
    assert full["content"].startswith("<context>\nline number 1\n")
    assert full["content"].endswith("line number 20000\n<context:end>")
    assert full["original_size"] == len(full["content"].encode())


def test_a_prompt_that_cannot_fit_gets_a_clear_error_and_no_request(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, _ = _shared(shared_rho)
    server.add(text_reply("hello", usage=NO_USAGE))
    assert rho.call("prompt", {"message": "hi"})["result"]["reply"] == "hello"
    response = rho.call("prompt", {"message": "word " * 40_000})
    error = response["result"]["error"]
    assert "does not fit the context window" in error
    assert f"the prompt budget is {PROMPT_BUDGET} tokens" in error
    (notified,) = [m["params"]["error"] for m in rho.seen if m.get("method") == "agent/error"]
    assert notified == error
    assert len([r for r in server.requests if r.method == "POST"]) == 1
    # the next, smaller prompt works: the oversized request is no longer the latest
    server.add(text_reply("fine", usage=NO_USAGE))
    assert rho.call("prompt", {"message": "something small"})["result"]["reply"] == "fine"
    sent = server.requests[-1].json["messages"]
    assert sent[1] == {"role": "user", "content": "hi"}
    assert sent[-1] == {"role": "user", "content": "something small"}
    assert [m["content"][:30] for m in sent if "word word" in m["content"]] == [
        "[outline] word word word word "  # shortened, as it is no longer the latest request
    ]


def test_session_stats_show_the_raw_path_and_the_fitted_view_labelled(shared_rho) -> None:  # type: ignore[no-untyped-def]
    rho, server, project = _shared(shared_rho)
    rounds = 40
    for index in range(10):
        (project / f"module_{index}.py").write_text(
            "".join(f"value_{index}_{line} = {line} * 31  # some code\n" for line in range(120))
        )
    small = rho.call("getSessionStats")["result"]
    assert small["fitted"]["outlined"] == small["fitted"]["evicted"] == 0
    assert small["fitted"]["promptBudget"] == PROMPT_BUDGET
    server.add(
        *[
            tool_call_reply("read_file", {"path": f"module_{i % 10}.py"}, usage=NO_USAGE)
            for i in range(rounds)
        ],
        text_reply("all read", usage=NO_USAGE),
    )
    result = rho.call("prompt", {"message": "read them all"}, timeout=120)["result"]
    assert result["reply"] == "all read"
    stats = rho.call("getSessionStats")["result"]
    # The raw path is far over the budget; what the model receives is fitted within it.
    assert stats["estimatedUsed"] > PROMPT_BUDGET and stats["utilizationPercent"] == 100
    fitted = stats["fitted"]
    assert fitted["estimatedTokens"] <= fitted["promptBudget"] == PROMPT_BUDGET
    assert fitted["utilizationPercent"] < 100
    assert fitted["outlined"] + fitted["summarized"] + fitted["evicted"] > 0
    assert fitted["messageCount"] < stats["messageCount"] or fitted["outlined"] > 0
    last = [m["params"]["context"]["fitted"] for m in rho.seen if m.get("method") == "usage"][-1]
    assert abs(fitted["estimatedTokens"] - last["estimatedTokens"]) < PROMPT_BUDGET // 10
