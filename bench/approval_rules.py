"""Benchmark: looking up approval rules for one call, with 1,000 rules in force.

Run: uv run python bench/approval_rules.py [rules]
Times `ApprovalRules.denying` and `allowing` for a `run_command` call and a `write_file`
call against `rules` allow rules and as many deny rules (commands and paths mixed, none
covering the calls), each lookup for a call never seen before (so that its command is
parsed anew), after one warm-up call (the rules' own texts are read once). Target (issue 24): at most 0.2 ms per call with 1,000 rules.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rho_kernel.approvals.ruleset import ApprovalRules
from rho_kernel.security.commands import CommandPolicy
from rho_kernel.tools.base import Tool

ROOT = Path("/work/project")


class _Tool(Tool):
    def __init__(self, name: str, subject: str) -> None:
        self.name = name
        self.rule_subject = subject  # type: ignore[assignment]


def _rules(count: int) -> ApprovalRules:
    half = count // 2
    allow = [(f"run_command(tool{n} sub{n}:*)", "--allow") for n in range(half)]
    allow += [(f"write_file(dir{n}/**)", "--allow") for n in range(count - half)]
    deny = [(f"run_command(bad{n}:*)", "--deny") for n in range(half)]
    deny += [(f"write_file(secret{n}/**)", "--deny") for n in range(count - half)]
    return ApprovalRules.read(allow=allow, deny=deny)


def _per_call(action: Callable[[int], None], runs: int = 200) -> float:
    samples = []
    for run in range(runs):
        started = time.perf_counter()
        action(run)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rules = _rules(count)
    policy = CommandPolicy()
    calls = [
        (_Tool("run_command", "command"), "command", "cargo test --all -p core{}"),
        (_Tool("write_file", "path"), "path", "src/app/main{}.rs"),
    ]
    print(f"approval rules: {count} allow and {count} deny rules, median of 200 lookups")
    for tool, argument, value in calls:

        def lookup(
            run: int, tool: Tool = tool, argument: str = argument, value: str = value
        ) -> None:
            arguments = {argument: value.format(run)}
            assert rules.denying(tool, arguments, root=ROOT) is None
            assert rules.allowing(tool, arguments, root=ROOT, policy=policy) is None

        lookup(-1)  # reads every rule's text once
        print(f"  {tool.name}: {_per_call(lookup):.3f} ms per call (deny, then allow)")


if __name__ == "__main__":
    main()
