"""Running a hook: `/bin/sh -c` in the project root, the event on stdin, stopped on its
timeout and on cancellation, its failures reported rather than raised."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from rho_hooks.config import HookCommand
from rho_hooks.outcome import interpret
from rho_hooks.runner import MAX_OUTPUT, run_hook
from rho_kernel import CancelToken, SandboxRoot


@pytest.fixture
def root(tmp_path: Path) -> SandboxRoot:
    project = tmp_path / "project"
    project.mkdir()
    return SandboxRoot(project)


async def test_the_event_is_on_stdin_in_the_project_root_with_its_variables(
    root: SandboxRoot,
) -> None:
    command = 'cat > got.json; pwd; echo "$RHO_PROJECT_DIR"; echo "$CLAUDE_PROJECT_DIR"'
    payload = {"hook_event_name": "Stop", "stop_hook_active": False}
    run = await run_hook(HookCommand(command=command), payload, root=root, cancel=None)
    assert (run.exit_code, run.timed_out, run.error, run.cancelled) == (0, False, None, False)
    assert run.stdout.splitlines() == [str(root.path)] * 3
    assert json.loads((root.path / "got.json").read_text()) == payload
    assert run.duration_ms >= 0


async def test_the_exit_code_and_both_streams_are_kept(root: SandboxRoot) -> None:
    hook = HookCommand(command="echo out; echo 'no rm' >&2; exit 2")
    run = await run_hook(hook, {}, root=root, cancel=None)
    assert (run.exit_code, run.stdout, run.stderr) == (2, "out\n", "no rm\n")
    assert interpret("PreToolUse", hook, run).reason == "no rm"


async def test_rhos_credentials_are_not_handed_to_a_hook(
    root: SandboxRoot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOME_API_KEY", "secret")
    monkeypatch.setenv("HOOK_VISIBLE", "yes")
    hook = HookCommand(command='echo "${SOME_API_KEY:-unset} $HOOK_VISIBLE"')
    run = await run_hook(hook, {}, root=root, cancel=None)
    assert run.stdout == "unset yes\n"


async def test_a_hook_that_runs_past_its_timeout_is_killed_and_fails(root: SandboxRoot) -> None:
    hook = HookCommand(command="sleep 30", timeout=0.5)
    started = time.monotonic()
    run = await run_hook(hook, {}, root=root, cancel=None)
    assert time.monotonic() - started < 10
    assert run.timed_out and run.exit_code is None
    outcome = interpret("PreToolUse", hook, run)
    assert outcome.verdict == "block"
    assert outcome.failure == "hook `sleep 30` timed out after 0.5 s"


async def test_a_cancelled_token_stops_the_hook(root: SandboxRoot) -> None:
    pid_file = root.path / "pid"
    hook = HookCommand(command="echo $$ > pid.tmp && mv pid.tmp pid && exec sleep 30")
    cancel = CancelToken()
    task = asyncio.ensure_future(run_hook(hook, {}, root=root, cancel=cancel))
    deadline = time.monotonic() + 30
    while not pid_file.exists():  # the hook is running once it has written its pid
        assert time.monotonic() < deadline and not task.done()
        await asyncio.sleep(0.01)
    pid = int(pid_file.read_text())
    started = time.monotonic()
    cancel.cancel()
    run = await task
    assert time.monotonic() - started < 10
    assert run.cancelled and run.exit_code is None and not run.timed_out
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert interpret("Stop", hook, run).verdict == "block"


async def test_a_crash_is_a_failure(root: SandboxRoot) -> None:
    hook = HookCommand(command="kill -9 $$")
    run = await run_hook(hook, {}, root=root, cancel=None)
    assert (run.exit_code, run.signal) == (None, 9)
    assert interpret("PreToolUse", hook, run).failure == "hook `kill -9 $$` was killed by signal 9"


async def test_a_hook_that_cannot_start_is_a_run_with_an_error(root: SandboxRoot) -> None:
    hook = HookCommand(command="true " + "x" * 300_000)  # longer than one argument may be
    run = await run_hook(hook, {}, root=root, cancel=None)
    assert run.error is not None and run.exit_code is None
    outcome = interpret("PreToolUse", hook, run)
    assert outcome.verdict == "block" and "could not start" in (outcome.failure or "")


async def test_output_is_capped(root: SandboxRoot) -> None:
    hook = HookCommand(command="head -c 1000000 /dev/zero | tr '\\0' x")
    run = await run_hook(hook, {}, root=root, cancel=None)
    assert run.exit_code == 0 and MAX_OUTPUT // 2 < len(run.stdout) < MAX_OUTPUT + 200


async def test_a_large_payload_reaches_a_hook_that_reads_it(root: SandboxRoot) -> None:
    payload = {"prompt": "y" * 500_000}
    run = await run_hook(HookCommand(command="wc -c"), payload, root=root, cancel=None)
    assert int(run.stdout.strip()) == len(json.dumps(payload))
    run = await run_hook(HookCommand(command="exit 0"), payload, root=root, cancel=None)
    assert (run.exit_code, run.error) == (0, None)  # one that does not read it is fine too
