"""The ACP connection over stdin and the frames' file descriptor.

Every line the client sends is checked before the SDK reads it: a line that is not JSON is
answered with JSON-RPC's parse error (-32700), one that is not a request object (a batch, a
number) with -32600 — both with id null — and rho goes on. The SDK and anything else that
logs writes one line per record to stderr (never a traceback).

`initialize` is answered here, from plain JSON (`rho_acp.handshake`), and the SDK — some
0.6 s of imports — is loaded once the client's first line has been handled, in a thread:
the handshake costs what rho's own `ready` costs, and the rest waits in the SDK's input.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import stat
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from rho_acp.handshake import initialize_result

if TYPE_CHECKING:
    from acp import Agent

    from rho_kernel.frontend import RuntimeOptions

#: The longest frame taken from the client.
MAX_FRAME_BYTES = 50 << 20


class _WriteProtocol(asyncio.BaseProtocol):
    """A pipe protocol a `StreamWriter` can drain through."""

    def __init__(self) -> None:
        self._resumed = asyncio.Event()
        self._resumed.set()

    def pause_writing(self) -> None:
        self._resumed.clear()

    def resume_writing(self) -> None:
        self._resumed.set()

    async def _drain_helper(self) -> None:
        await self._resumed.wait()


class _OneLine(logging.Handler):
    """A log record as one line on stderr, with rho's prefix."""

    def emit(self, record: logging.LogRecord) -> None:
        from rho_kernel import diagnostics, escape_controls

        try:
            message = " ".join(record.getMessage().split())
        except Exception:  # a record that cannot be formatted says so
            message = str(record.msg)
        diagnostics.warn(escape_controls(f"{record.name}: {message}")[:500])


def _frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _error(code: int, message: str) -> bytes:
    return _frame({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})


def _answer_here(line: bytes, handshake: dict[str, Any]) -> bytes | None:
    """What rho answers to `line` itself — the error frame of a line that is not a request
    object, or the answer to `initialize` (whose `params` it keeps in `handshake`) — or
    None when it is a message for the SDK."""
    try:
        message: Any = json.loads(line)
    except (ValueError, RecursionError):
        return _error(-32700, "Parse error: the line is not JSON")
    if isinstance(message, list):
        return _error(-32600, "Invalid Request: ACP takes no batches")
    if not isinstance(message, dict):
        return _error(-32600, "Invalid Request: not a JSON-RPC object")
    if message.get("method") != "initialize" or "id" not in message:
        return None
    handshake["params"] = message.get("params")
    result = initialize_result(message.get("params"))
    return _frame({"jsonrpc": "2.0", "id": message["id"], "result": result})


async def _checked_input(
    source: asyncio.StreamReader,
    sdk: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    first: asyncio.Event,
    handshake: dict[str, Any],
) -> None:
    """Hand the SDK the client's good lines; answer the others (and `initialize`, keeping
    its `params` in `handshake`); set `first` once the first line is handled."""
    try:
        while True:
            try:
                line = await source.readline()
            except ValueError:  # longer than MAX_FRAME_BYTES: what was read is dropped
                writer.write(
                    _error(-32600, f"Invalid Request: a line over {MAX_FRAME_BYTES} bytes")
                )
                continue
            if not line:
                break
            if not line.strip():
                continue
            answer = _answer_here(line, handshake)
            if answer is not None:
                writer.write(answer)
            else:
                sdk.feed_data(line if line.endswith(b"\n") else line + b"\n")
            first.set()
    finally:
        first.set()
        sdk.feed_eof()


@contextlib.contextmanager
def _pipe_to(fd: int) -> Iterator[Any]:
    """A file for asyncio's pipe transport that writes to `fd`: `fd` itself when it is a
    pipe, socket or terminal; otherwise (a regular file, say) a pipe that a thread copies
    into it, to the last byte before the block ends."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode):
        with open(fd, "wb", 0) as output:
            yield output
        return
    read_end, write_end = os.pipe()

    def copy() -> None:
        with open(read_end, "rb", 0) as source, open(fd, "wb", 0) as target:
            while chunk := source.read(1 << 16):
                target.write(chunk)

    copier = threading.Thread(target=copy, name="rho-acp frames", daemon=True)
    copier.start()
    try:
        with open(write_end, "wb", 0) as output:
            yield output
    finally:
        copier.join()


async def serve(options: RuntimeOptions, frames: int) -> None:
    """Answer the client on stdin, writing frames to the file descriptor `frames`, until
    its input ends; then close every session."""
    root = logging.getLogger()
    root.handlers[:] = [_OneLine()]
    root.setLevel(logging.WARNING)
    loop = asyncio.get_running_loop()
    source = asyncio.StreamReader(limit=MAX_FRAME_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(source), sys.stdin)
    protocol = _WriteProtocol()
    with _pipe_to(frames) as output:
        transport, _ = await loop.connect_write_pipe(lambda: protocol, output)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        sdk = asyncio.StreamReader(limit=MAX_FRAME_BYTES)
        first = asyncio.Event()
        handshake: dict[str, Any] = {}
        pump = asyncio.create_task(_checked_input(source, sdk, writer, first, handshake))
        await first.wait()
        agent_module = await asyncio.to_thread(importlib.import_module, "rho_acp.agent")
        from acp import run_agent

        # The client's capabilities, as its `initialize` said (read when a session opens).
        agent = agent_module.RhoAgent(options, handshake)
        try:
            # The SDK answers a method the agent lacks with -32601 (it looks each up).
            await run_agent(cast("Agent", agent), writer, sdk, use_unstable_protocol=True)
        finally:
            pump.cancel()
            from rho_kernel.frontend import SHUTDOWN_GRACE

            # A session whose work will not end (a thread blocked in a system call) does
            # not keep rho acp from ending.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(agent.close(), SHUTDOWN_GRACE)


__all__ = ["serve"]
