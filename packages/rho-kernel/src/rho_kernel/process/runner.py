"""Run a process to completion: own process group, sandboxed working directory, timeout,
bounded output, live output and cancellation; the process dies with rho (`orphans`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rho_kernel.process.capture import CappedOutput
from rho_kernel.process.errors import ProcessStartError
from rho_kernel.process.launch import Launch, launching
from rho_kernel.process.live import LiveOutput, OutputCallback
from rho_kernel.process.live_lines import LineFilter
from rho_kernel.process.orphans import die_with_parent

if TYPE_CHECKING:
    from rho_kernel.cancel import CancelToken
    from rho_kernel.security.sandbox import SandboxRoot


class Launcher(Protocol):
    """How a command is started: the seam for confinement (see `rho_kernel.confinement`).

    `wrap` returns the argv that runs `argv` in `cwd` (e.g. inside a sandboxing program);
    `name` is recorded on the result as `confined_by`. Without a launcher a command runs
    as is. A launcher that hands the process file descriptors also has `launch(argv, cwd)`,
    used instead of `wrap` (see `rho_kernel.process.launch`).
    """

    @property
    def name(self) -> str:
        """The confinement's name, e.g. "bubblewrap"."""
        ...

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        """The argv to start instead of `argv`."""
        ...


#: Seconds between SIGTERM and SIGKILL when a process group is stopped.
DEFAULT_KILL_GRACE = 2.0
#: Bytes read from a pipe at a time.
_READ_SIZE = 65536
_WINDOWS = sys.platform == "win32"
_SIGKILL = getattr(signal, "SIGKILL", signal.SIGTERM)


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The standard stream protocol, plus an event set as soon as the process exits
    (`Process.wait()` also waits for every pipe to close, which a background child holding
    the pipes can put off indefinitely)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=_READ_SIZE, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


@dataclass(slots=True)
class _Child:
    proc: asyncio.subprocess.Process
    transport: asyncio.SubprocessTransport
    protocol: _Protocol

    async def exited(self) -> None:
        await self.protocol.exited.wait()


@dataclass(frozen=True, slots=True)
class ProcessResult:
    """How a process ended and what it wrote.

    `exit_code` is None when the process was killed by a signal (`signal` names it).
    `stdout`/`stderr` are capped: the head and tail are kept and `*_elided` bytes in the
    middle were dropped (`*_bytes` is everything written). `timed_out` and `cancelled`
    say that rho stopped the process (its whole process group). `confined_by` names the
    launcher that confined it (None: it ran unconfined).
    """

    argv: list[str]
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    stdout_elided: int
    stderr_elided: int
    duration: float
    timed_out: bool = False
    cancelled: bool = False
    confined_by: str | None = None

    @property
    def returncode(self) -> int:
        """The exit code, or -1 when there is none (killed by a signal, stopped by rho)."""
        return self.exit_code if self.exit_code is not None else -1

    @property
    def ok(self) -> bool:
        """Exited by itself with status 0."""
        return self.exit_code == 0 and not self.timed_out and not self.cancelled


def resolve_cwd(root: SandboxRoot, cwd: str | None) -> Path:
    """The canonical working directory for `cwd` (relative to the project root, or absolute
    inside it); None, "" and "." are the root. Raises the sandbox's errors: a path outside
    the project (`SandboxError`), missing (`PathNotFoundError`), not a directory
    (`FileTypeError`)."""
    if cwd is None or cwd.strip() in ("", "."):
        return root.path
    with root.open_dir(cwd) as directory:
        return directory.path


def _signal_group(proc: asyncio.subprocess.Process, sig: int) -> None:
    """Send `sig` to the process's whole group (on Windows: end its process tree)."""
    if _WINDOWS:
        with contextlib.suppress(OSError):
            subprocess.run(
                ["taskkill", "/PID", str(proc.pid), "/T", "/F"],
                capture_output=True,
                check=False,
            )
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


async def _stop_group(child: _Child, grace: float) -> None:
    """SIGTERM the group, give it `grace` seconds, then SIGKILL whatever is left."""
    _signal_group(child.proc, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(child.exited(), grace)
    _signal_group(child.proc, _SIGKILL)
    await child.exited()


async def _pump(
    stream: asyncio.StreamReader, name: str, capture: CappedOutput, live: LiveOutput | None
) -> None:
    while data := await stream.read(_READ_SIZE):
        capture.feed(data)
        if live is not None:
            live.feed(name, data)


async def _feed_stdin(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.close()


async def _spawn(
    launch: Launch, cwd: Path, env: Mapping[str, str] | None, has_input: bool
) -> _Child:
    argv = launch.argv
    options: dict[str, object] = (
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
        if _WINDOWS
        else {
            "start_new_session": True,
            "preexec_fn": die_with_parent(),
            "pass_fds": launch.pass_fds,
        }
    )
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _Protocol(loop),
            *argv,
            stdin=subprocess.PIPE if has_input else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            **options,  # type: ignore[arg-type]
        )
    except OSError as exc:
        raise ProcessStartError(
            f"cannot start '{argv[0]}': {(exc.strerror or str(exc)).lower()}"
        ) from None
    proc = asyncio.subprocess.Process(transport, protocol, loop)
    return _Child(proc, transport, protocol)


async def _wait_exit(child: _Child, timeout: float | None, cancel: CancelToken | None) -> str:
    """ "exited", "timeout" or "cancelled", whichever comes first."""
    exited = asyncio.ensure_future(child.exited())
    waits: set[asyncio.Future[object]] = {exited}  # type: ignore[arg-type]
    cancelled = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    if cancelled is not None:
        waits.add(cancelled)  # type: ignore[arg-type]
    try:
        await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waits:
            if waiter is not exited:
                waiter.cancel()
    if exited.done():
        return "exited"
    exited.cancel()
    return "cancelled" if cancelled is not None and cancelled.done() else "timeout"


async def _drain(child: _Child, readers: Sequence[asyncio.Future[None]], grace: float) -> None:
    """Read the pipes to their end; processes of the group still holding them are killed,
    and pipes held open from outside the group are abandoned after `grace`."""
    _signal_group(child.proc, signal.SIGTERM)  # leftovers (`cmd &`) do not outlive it
    _, pending = await asyncio.wait(readers, timeout=grace)
    if pending:
        _signal_group(child.proc, _SIGKILL)
        _, pending = await asyncio.wait(pending, timeout=grace)
    for reader in pending:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    child.transport.close()


async def run_process(
    argv: Sequence[str],
    *,
    root: SandboxRoot,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    input: str | bytes | None = None,
    timeout: float | None = None,
    max_output_bytes: int = 65536,
    on_output: OutputCallback | None = None,
    live_filter: LineFilter | None = None,
    cancel: CancelToken | None = None,
    launcher: Launcher | None = None,
    kill_grace: float = DEFAULT_KILL_GRACE,
) -> ProcessResult:
    """Run `argv` in its own process group and wait for it.

    The working directory is `cwd` resolved inside `root` (see `resolve_cwd`). `input` is
    written to stdin, which is then closed (without input stdin is the null device). After
    `timeout` seconds, on `cancel`, or when the awaiting task is cancelled, the whole
    process group is stopped (SIGTERM, then SIGKILL after `kill_grace` seconds; at once on
    cancellation); when the process exits by itself, what it left running in its group is
    stopped too. Each of stdout and stderr keeps at most `max_output_bytes` (head and tail).
    `on_output(stream, text)` receives live output in whole lines, throttled (`LiveOutput`),
    and has received the end of it when this returns; `live_filter(stream, line)` rewrites
    each line of it first. `launcher` confines the process (tools get theirs
    from `ToolContext.run_process`, which always passes the project's). Without `env` the
    process gets `command_environment([])`: rho's environment without the credentials rho
    uses and the usual secret variables (see `rho_kernel.process.shell`). Raises
    `ProcessStartError` when the process cannot start, and the sandbox's errors for a bad
    `cwd`.
    """
    directory = resolve_cwd(root, cwd)
    data = input.encode("utf-8", "surrogateescape") if isinstance(input, str) else input
    started = time.monotonic()
    if env is None:
        from rho_kernel.process.shell import command_environment

        env = command_environment([])
    with launching(launcher, list(argv), directory, env) as launch:
        command = launch.argv
        started_env = launch.env if launch.env is not None else env
        child = await _spawn(launch, directory, started_env, data is not None)
    proc = child.proc
    live = LiveOutput(on_output, line_filter=live_filter) if on_output is not None else None
    out, err = CappedOutput(max_output_bytes), CappedOutput(max_output_bytes)
    assert proc.stdout is not None and proc.stderr is not None
    readers = [
        asyncio.ensure_future(_pump(proc.stdout, "stdout", out, live)),
        asyncio.ensure_future(_pump(proc.stderr, "stderr", err, live)),
    ]
    writer = asyncio.ensure_future(_feed_stdin(proc, data)) if data is not None else None
    try:
        outcome = await _supervise(child, readers, timeout, cancel, kill_grace)
    except BaseException:
        _abandon(child, (*readers, writer), live)
        raise
    finally:
        if writer is not None and not writer.done():
            writer.cancel()
    if live is not None:
        await live.close()
    return _result(command, child, (out, err), outcome, started, launcher)


def _abandon(
    child: _Child, tasks: Sequence[asyncio.Future[None] | None], live: LiveOutput | None
) -> None:
    """Kill the process group and stop reading and writing (the wait was interrupted)."""
    _signal_group(child.proc, _SIGKILL)
    child.transport.close()
    for task in tasks:
        if task is not None:
            task.cancel()
    if live is not None:
        live.abandon()


async def _supervise(
    child: _Child,
    readers: Sequence[asyncio.Future[None]],
    timeout: float | None,
    cancel: CancelToken | None,
    kill_grace: float,
) -> str:
    """Wait for the exit, the timeout or the cancellation; stop the group when it is not
    an exit; read the output to its end. Returns how it ended (see `_wait_exit`)."""
    outcome = await _wait_exit(child, timeout, cancel)
    if outcome == "timeout":
        await _stop_group(child, kill_grace)
    elif outcome == "cancelled":
        _signal_group(child.proc, _SIGKILL)
        await child.exited()
    await _drain(child, readers, kill_grace)
    return outcome


def _result(
    command: list[str],
    child: _Child,
    outputs: tuple[CappedOutput, CappedOutput],
    outcome: str,
    started: float,
    launcher: Launcher | None,
) -> ProcessResult:
    out, err = outputs
    code = child.transport.get_returncode()
    return ProcessResult(
        argv=command,
        exit_code=code if code is not None and code >= 0 else None,
        signal=-code if code is not None and code < 0 else None,
        stdout=out.text(),
        stderr=err.text(),
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        stdout_elided=out.elided_bytes,
        stderr_elided=err.elided_bytes,
        duration=time.monotonic() - started,
        timed_out=outcome == "timeout",
        cancelled=outcome == "cancelled",
        confined_by=launcher.name if launcher is not None else None,
    )


__all__ = [
    "DEFAULT_KILL_GRACE",
    "Launcher",
    "ProcessResult",
    "ProcessStartError",
    "resolve_cwd",
    "run_process",
]
