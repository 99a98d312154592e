"""Running one hook: `/bin/sh -c COMMAND` in the project root, its event as JSON on stdin.

A hook is the user's own code (or a repository's the user trusted), so it runs unconfined,
as Claude Code runs it, with rho's command environment (rho's credentials removed) plus
`RHO_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`, both the project root. It runs in its own process
group, which is stopped on its timeout and on cancellation; its output is capped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rho_kernel.process import ProcessStartError, command_environment, run_process

if TYPE_CHECKING:
    from rho_hooks.config import HookCommand
    from rho_kernel import CancelToken, SandboxRoot

#: Bytes of stdout, and of stderr, kept of one run (head and tail).
MAX_OUTPUT = 64 * 1024
#: The shell a hook's command line runs with.
SHELL = "/bin/sh"


@dataclass(frozen=True, slots=True)
class HookRun:
    """How one run of a hook ended and what it wrote.

    `exit_code` is None when the process did not exit by itself (killed by a signal, stopped
    by rho: `timed_out`, `cancelled`) or never started (`error` says why). `signal` names
    the signal that ended it, if one did. `stdout_cut` says that stdout was longer than
    `MAX_OUTPUT` bytes, so that `stdout` is not all of it.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    duration_ms: int
    error: str | None = None
    cancelled: bool = False
    signal: int | None = None
    #: Bytes the hook wrote on stdout, all of them (more than `MAX_OUTPUT`: `stdout` holds
    #: only their head and tail).
    stdout_bytes: int = 0

    @property
    def stdout_cut(self) -> bool:
        """Whether stdout was longer than rho reads (`MAX_OUTPUT` bytes)."""
        return self.stdout_bytes > MAX_OUTPUT


def hook_environment(root: SandboxRoot) -> dict[str, str]:
    """The environment a hook runs with: rho's command environment and the project root as
    `RHO_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`."""
    env = command_environment([])
    env["RHO_PROJECT_DIR"] = env["CLAUDE_PROJECT_DIR"] = str(root.path)
    return env


async def run_hook(
    hook: HookCommand,
    payload: dict[str, Any],
    *,
    root: SandboxRoot,
    cancel: CancelToken | None,
) -> HookRun:
    """Run `hook` with `payload` as JSON on stdin and wait for it (at most `hook.timeout`
    seconds, then its process group is stopped; at once when `cancel` is cancelled).

    Never raises for the hook's sake: a hook that cannot start gives a run with `error`.
    """
    try:
        result = await run_process(
            [SHELL, "-c", hook.command],
            root=root,
            env=hook_environment(root),
            input=json.dumps(payload),
            timeout=hook.timeout,
            max_output_bytes=MAX_OUTPUT,
            cancel=cancel,
        )
    except ProcessStartError as exc:
        return HookRun(None, "", "", False, 0, error=str(exc))
    return HookRun(
        exit_code=result.exit_code,
        stdout=result.stdout,
        stderr=result.stderr,
        timed_out=result.timed_out,
        duration_ms=round(result.duration * 1000),
        cancelled=result.cancelled,
        signal=result.signal,
        stdout_bytes=result.stdout_bytes,
    )


__all__ = ["MAX_OUTPUT", "SHELL", "HookRun", "hook_environment", "run_hook"]
