"""The stdio transport: a server's process, its stdin and stdout carrying JSON-RPC lines.

The SDK's own stdio client cannot start a process the way rho starts commands, so this one
does: in its own process group, dying with rho (even when rho is killed outright), its stderr
appended to a log file, and, confined, under the OS sandbox's launcher with the descriptors
it hands the process. Messages are the SDK's; a line longer than `MAX_MESSAGE_BYTES` ends the
connection. Leaving the context stops the process within a bounded time: stdin closed, then
SIGTERM, then SIGKILL to its whole group.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from mcp.shared.message import SessionMessage

from rho_kernel.process import Launch, Launcher, die_with_parent
from rho_kernel.process import launching as process_launching

#: The longest message taken from a server (a line of JSON).
MAX_MESSAGE_BYTES = 64 << 20
#: How long a server has to exit once its stdin is closed, and again after SIGTERM.
EXIT_GRACE = 2.0
#: How long a server whose output ended is given to exit before it is reported as having
#: closed its output (a loaded machine can take seconds to reap a process that crashed).
OUTPUT_END_WAIT = 10.0

#: The sandbox's way to start a server (a `rho_kernel.process.Launcher`; None: as it is).
Launching = Launcher


@dataclass(slots=True)
class ChildCommand:
    """How to start a server's process."""

    argv: list[str]
    cwd: Path
    env: dict[str, str]
    log: Path
    launch: Launching | None = None
    #: Called once when its stdout ends (the process is gone or going), with its exit code
    #: when known.
    on_exit: Callable[[int | None], None] = field(default=lambda code: None)
    #: Called with the process id once it has started (its process group has that id).
    on_start: Callable[[int], None] = field(default=lambda pid: None)
    #: Called with that id once its whole process group is gone.
    on_stopped: Callable[[int], None] = field(default=lambda pid: None)


def open_log(path: Path) -> int:
    """The log file at `path`, opened to append (created 0600; never through a link)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    if os.fstat(fd).st_size > 8 << 20:  # keep one start's worth, not every start's
        os.ftruncate(fd, 0)
    return fd


async def _spawn(command: ChildCommand, log_fd: int) -> asyncio.subprocess.Process:
    launching: AbstractContextManager[Launch] = (
        process_launching(command.launch, list(command.argv), command.cwd, command.env)
        if command.launch is not None
        else contextlib.nullcontext(Launch(list(command.argv)))
    )
    with launching as started:
        return await asyncio.create_subprocess_exec(
            *started.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log_fd,
            cwd=command.cwd,
            env=started.env if started.env is not None else command.env,
            start_new_session=True,
            pass_fds=started.pass_fds,
            preexec_fn=die_with_parent(),
            limit=MAX_MESSAGE_BYTES,
        )


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        return exc
    return SessionMessage(message)


async def _stop(process: asyncio.subprocess.Process) -> bool:
    """Close its stdin, give it `EXIT_GRACE` to exit, then SIGTERM its whole process group
    (what it started too), and SIGKILL what is left after another `EXIT_GRACE`. True once
    the group is gone."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, RuntimeError):
            process.stdin.close()
    await _exited(process, EXIT_GRACE)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not kill_group(process.pid, sig):
            return True
        with anyio.move_on_after(EXIT_GRACE):
            while kill_group(process.pid, 0):
                await asyncio.sleep(0.01)
            return True
    return not kill_group(process.pid, 0)


async def _exited(process: asyncio.subprocess.Process, within: float) -> bool:
    # Not process.wait(): it also waits for the pipes, which a grandchild may hold open.
    with anyio.move_on_after(within):
        while process.returncode is None:
            await asyncio.sleep(0.01)
    return process.returncode is not None


@asynccontextmanager
async def child_transport(command: ChildCommand) -> AsyncIterator[Any]:
    """The SDK transport streams of a server started as `command` describes."""
    log_fd = open_log(command.log)
    try:
        process = await _spawn(command, log_fd)
    finally:
        os.close(log_fd)
    command.on_start(process.pid)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        try:
            async with read_writer:
                while line := await process.stdout.readline():
                    if line.strip():
                        await read_writer.send(_parse(line))
        except (ValueError, asyncio.LimitOverrunError):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)  # it wrote more than rho takes
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass
        finally:
            # Its output ended: it is exiting, or closed its output to go on without it.
            with anyio.CancelScope(shield=True):
                await _exited(process, OUTPUT_END_WAIT)
            command.on_exit(process.returncode)

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    process.stdin.write(data.encode("utf-8") + b"\n")
                    await process.stdin.drain()
        except (OSError, RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            await read_writer.aclose()  # the session sees the connection end

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await write_stream.aclose()
                if await _stop(process):
                    command.on_stopped(process.pid)
                await read_stream.aclose()
            tasks.cancel_scope.cancel()


def kill_group(pid: int, sig: int = signal.SIGKILL) -> bool:
    """Send `sig` (0: none, only look) to the process group `pid`; False when the group is
    gone."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def describe_exit(code: int | None) -> str:
    """How a server's process ended, for a message."""
    if code is None:
        return "closed its output"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


__all__ = [
    "MAX_MESSAGE_BYTES",
    "ChildCommand",
    "Launching",
    "child_transport",
    "describe_exit",
    "kill_group",
]
