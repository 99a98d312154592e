"""wait_for: conditions, the real (case-insensitive) regex, probe timeouts, policy, cancel."""

from __future__ import annotations

import asyncio
import importlib
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import Risk, ToolContext, ToolResult
from rho_tools_fs.wait_for import CANCELLED, parse_until, wait_for


def make_ctx(root: Path, cancel: CancelToken | None = None) -> ToolContext:
    return ToolContext(root=SandboxRoot(root), config=RhoConfig(), cancel=cancel or CancelToken())


async def run(root: Path, **args: object) -> ToolResult:
    return await wait_for.execute(dict(args), make_ctx(root))


class SkippedWaits:
    """The tool's clock, with its waits between polls taken at once: a wait moves the clock
    on by its length. The probes, their own time limits and the loop's arithmetic stay real;
    only the idle seconds between polls are not spent."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self._ahead = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self._ahead

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self._ahead += max(seconds, 0.0)
        await asyncio.sleep(0)


@pytest.fixture
def skipped_waits(monkeypatch: pytest.MonkeyPatch) -> SkippedWaits:
    """The waits between polls skipped (see `SkippedWaits`), for the tests that poll more
    than once; the cancellation test keeps the real clock."""
    clock = SkippedWaits()
    module = importlib.import_module("rho_tools_fs.wait_for")
    monkeypatch.setattr(module, "time", SimpleNamespace(monotonic=clock.monotonic))
    monkeypatch.setattr(module, "asyncio", SimpleNamespace(sleep=clock.sleep))
    return clock


def test_tool_metadata() -> None:
    assert wait_for.risk is Risk.DESTRUCTIVE and wait_for.phase is None
    assert wait_for.parameters["required"] == ["command"]


def test_a_cut_result_keeps_its_last_lines_where_the_poll_count_and_exit_status_are() -> None:
    from rho_tools_fs import plugin

    declared = next(
        t for t in plugin.rho_register_tools(config=RhoConfig()) if t.name == "wait_for"
    )
    assert wait_for.cut_keeps_tail is True and declared.cut_keeps_tail is True


async def test_success_on_the_first_poll(tmp_path: Path) -> None:
    result = await run(tmp_path, command="echo ready; echo note >&2")
    assert not result.is_error
    assert result.output.startswith("ready\nnote\n[wait_for: 1 poll, ")
    assert result.output.endswith("s elapsed, exit 0]")


async def test_waits_until_the_condition_holds(tmp_path: Path, skipped_waits: SkippedWaits) -> None:
    command = "n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; test $n -ge 2"
    result = await run(tmp_path, command=command, poll_secs=1, timeout_secs=30)
    assert not result.is_error and "[wait_for: 3 polls," in result.output
    assert skipped_waits.waits == [1, 1]  # poll_secs between one probe and the next


async def test_exit_code_condition(tmp_path: Path) -> None:
    result = await run(tmp_path, command="exit 3", until="exit_code: 3")
    assert not result.is_error and result.output.endswith("exit 3]")


async def test_regex_is_a_real_case_insensitive_regex(
    tmp_path: Path, skipped_waits: SkippedWaits
) -> None:
    result = await run(
        tmp_path, command="echo 'Server LISTENING on :8080'", until=r"regex: listen\w+ on :\d+"
    )
    assert not result.is_error
    literal = await run(
        tmp_path,
        command="echo 'listening'",
        until="regex: listen.ng on",
        timeout_secs=1,
        poll_secs=1,
    )
    assert literal.is_error


async def test_regex_searches_stderr_too(tmp_path: Path) -> None:
    result = await run(tmp_path, command="echo READY >&2", until="regex: ^ready$")
    assert not result.is_error


@pytest.mark.parametrize(
    ("pattern", "hint"),
    [
        (
            "listening(",
            "`(` opens a group that is never closed: to match it literally, escape "
            "it as `\\(` (`listening\\(`).",
        ),
        ("port [80", "`[` starts a character class"),
        ("*ready", "(`\\*ready`)."),
    ],
)
async def test_an_invalid_regex_gets_the_hint_that_fits(
    tmp_path: Path, pattern: str, hint: str
) -> None:
    result = await run(tmp_path, command="touch ran", until=f"regex: {pattern}")
    assert result.is_error
    assert hint in result.output.split("\nHint: ", 1)[1]
    assert "fixed_strings" not in result.output  # wait_for has no such option
    assert not (tmp_path / "ran").exists()


async def test_an_invalid_regex_is_an_error_result(tmp_path: Path) -> None:
    result = await run(tmp_path, command="touch ran", until="regex: (unclosed")
    assert result.is_error and result.output.startswith("wait_for: invalid regex '(unclosed'")
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("until", ["sucess", "exit_code: x", "regex:", "whenever"])
async def test_an_unparseable_condition_is_an_error(tmp_path: Path, until: str) -> None:
    result = await run(tmp_path, command="true", until=until)
    assert result.is_error and result.output.startswith(f"wait_for: invalid until {until!r}")


def test_parse_until() -> None:
    assert parse_until(" SUCCESS ").kind == "success"
    assert parse_until("exit_code: 7").code == 7
    assert parse_until("regex:  a b ").pattern == "a b"


async def test_timeout_renders_the_last_poll(tmp_path: Path, skipped_waits: SkippedWaits) -> None:
    result = await run(tmp_path, command="echo not yet; exit 1", timeout_secs=2, poll_secs=1)
    assert result.is_error
    assert result.output.startswith("not yet\n[wait_for: ")
    assert result.output.endswith("without satisfying the condition]")
    assert "[wait_for: timed out after 2s across " in result.output


async def test_a_probe_over_its_poll_timeout_is_an_unsatisfied_poll(
    tmp_path: Path, skipped_waits: SkippedWaits
) -> None:
    """The probe's own limit (2 × poll_secs) is real: it must fire to stop `sleep 300`."""
    command = "if [ -f slow-done ]; then echo ok; else touch slow-done; sleep 300; fi"
    result = await run(tmp_path, command=command, poll_secs=1, timeout_secs=30)
    assert not result.is_error, result.output
    assert "[wait_for: 2 polls," in result.output
    assert skipped_waits.waits == [1]


async def test_the_policy_is_checked_once_before_anything_runs(tmp_path: Path) -> None:
    result = await run(tmp_path, command="touch ran; curl x")
    assert result.output == "wait_for: command denied: 'curl' is on the denylist (in: curl x)"
    assert not (tmp_path / "ran").exists()


async def test_cancellation_is_prompt_and_stops_the_probe(tmp_path: Path) -> None:
    cancel = CancelToken()
    ctx = make_ctx(tmp_path, cancel)
    task = asyncio.ensure_future(
        wait_for.execute({"command": "echo $$ >> pids; sleep 300", "timeout_secs": 600}, ctx)
    )
    while not (tmp_path / "pids").exists():
        await asyncio.sleep(0.02)
    cancel.cancel()
    result = await asyncio.wait_for(task, 30)
    assert result.output == CANCELLED and result.is_error


async def test_cwd_outside_the_project_is_refused(tmp_path: Path) -> None:
    result = await run(tmp_path, command="true", cwd="/")
    assert result.is_error and result.output.startswith("wait_for: cwd '/'")
