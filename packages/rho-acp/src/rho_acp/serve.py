"""The ACP connection over stdin and the frames' file descriptor.

Every line the client sends is checked before the SDK reads it: a line that is not JSON is
answered with JSON-RPC's parse error (-32700), one that is not a request object (a batch, a
number) with -32600 — both with id null — and rho goes on. The SDK and anything else that
logs writes one line per record to stderr (never a traceback).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import TYPE_CHECKING, Any, cast

from acp import run_agent

from rho_acp.agent import RhoAgent

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


def _error(code: int, message: str) -> bytes:
    frame = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return json.dumps(frame).encode() + b"\n"


def _problem(line: bytes) -> bytes | None:
    """The error frame answering `line`, or None when it is a message for the SDK."""
    try:
        message: Any = json.loads(line)
    except (ValueError, RecursionError):
        return _error(-32700, "Parse error: the line is not JSON")
    if isinstance(message, list):
        return _error(-32600, "Invalid Request: ACP takes no batches")
    if not isinstance(message, dict):
        return _error(-32600, "Invalid Request: not a JSON-RPC object")
    return None


async def _checked_input(
    source: asyncio.StreamReader, sdk: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Hand the SDK the client's good lines; answer the others."""
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
            problem = _problem(line)
            if problem is None:
                sdk.feed_data(line if line.endswith(b"\n") else line + b"\n")
            else:
                writer.write(problem)
    finally:
        sdk.feed_eof()


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
    with open(frames, "wb", 0) as output:
        transport, _ = await loop.connect_write_pipe(lambda: protocol, output)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        sdk = asyncio.StreamReader(limit=MAX_FRAME_BYTES)
        pump = asyncio.create_task(_checked_input(source, sdk, writer))
        agent = RhoAgent(options)
        try:
            # The SDK answers a method the agent lacks with -32601 (it looks each up).
            await run_agent(cast("Agent", agent), writer, sdk, use_unstable_protocol=True)
        finally:
            pump.cancel()
            await agent.close()


__all__ = ["serve"]
