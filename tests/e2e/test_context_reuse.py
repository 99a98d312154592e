"""What a provider's prompt cache can reuse of rho's requests, through the real `rho exec`:
the workload and measure of `bench/context_reuse.py` (28 reads of ~3 KB files, one per turn,
against a scripted server that reports usage as real servers do). Byte counts are
deterministic; the thresholds hold whatever the exact size of the tool definitions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from rho_process import rho_env  # type: ignore[import-not-found]

BENCH = Path(__file__).resolve().parents[2] / "bench" / "context_reuse.py"


def _workload() -> ModuleType:
    spec = importlib.util.spec_from_file_location("context_reuse", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


reuse = _workload()


@pytest.fixture
def workload(project: Path, home: Path) -> Any:
    reuse.make_project(project)

    def run(budget: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return reuse.run(project, home, budget, env=rho_env(home))  # type: ignore[no-any-return]

    return run


def _check_pins_and_budget(bodies: list[dict[str, Any]], usage: list[dict[str, Any]]) -> None:
    """Every request: the same system message and tool definitions, the task second, the
    newest result last and whole, the reads kept whole the newest, within the budget."""
    first = bodies[0]
    for index, body in enumerate(bodies):
        messages = body["messages"]
        assert body["tools"] == first["tools"]
        assert messages[0] == first["messages"][0] and messages[0]["role"] == "system"
        assert messages[1] == {"role": "user", "content": reuse.TASK}
        if index:
            assert messages[-1]["tool_call_id"] == f"call_{index - 1:02}"
            assert messages[-1]["content"].startswith("<context>")
        read = reuse.reads(body)
        assert "Wo" not in read  # never an older read whole while a newer one is cut
    assert len(usage) == len(bodies)
    for params in usage:
        fitted = params["context"]["fitted"]
        assert fitted["estimatedTokens"] <= fitted["promptBudget"]


def _check_steps(bodies: list[dict[str, Any]], usage: list[dict[str, Any]]) -> int:
    """Each request's `step` says truly whether it kept the whole previous request and how
    many messages it kept; the number of requests that changed the prefix."""
    steps = [params["context"]["fitted"]["step"] for params in usage]
    assert steps[0] == {"changed": True, "reason": "start", "keptMessages": 0}
    for previous, body, step in zip(bodies[:-1], bodies[1:], steps[1:], strict=True):
        before, now = previous["messages"], body["messages"]
        kept = 0
        while kept < min(len(before), len(now)) and before[kept] == now[kept]:
            kept += 1
        assert step["keptMessages"] == kept
        assert step["changed"] == (kept < len(before))
        assert step["reason"] == ("budget" if step["changed"] else "append")
    return sum(step["changed"] for step in steps[1:])


def test_a_fitted_session_keeps_its_prefix_between_large_steps(workload) -> None:  # type: ignore[no-untyped-def]
    bodies, usage = workload(16_000)
    assert len(bodies) == reuse.FILES + 1
    _check_pins_and_budget(bodies, usage)
    measured = reuse.measure(bodies)
    assert measured.fresh <= 160_000  # was 317 KB when each request rewrote its middle
    assert measured.repeat_share >= 0.75  # was 62 %
    assert 1 <= _check_steps(bodies, usage) <= 10
    # the steps are large: most requests only append a call and its result
    appended = [fresh for fresh in measured.uncacheable[1:] if fresh < 4_000]
    assert len(appended) >= 2 * (len(bodies) - 1 - len(appended))
    final = reuse.reads(bodies[-1])
    assert final.startswith("o") and final.endswith("W")


def test_an_unfitted_session_only_appends(workload) -> None:  # type: ignore[no-untyped-def]
    bodies, usage = workload(reuse.UNFITTED)
    _check_pins_and_budget(bodies, usage)
    assert _check_steps(bodies, usage) == 0
    measured = reuse.measure(bodies)
    assert measured.fresh == measured.sizes[-1]  # each request sends only what it adds
    assert reuse.reads(bodies[-1]) == "W" * reuse.FILES
