"""An incremental Server-Sent Events parser shared by every streaming protocol.

Feed it the bytes chunks exactly as they arrive from the network; it returns the events that
became complete. It follows the WHATWG `text/event-stream` rules: `:` comment lines are
skipped; `event:`, `data:`, `id:` and `retry:` fields are recognised (one optional space after
the colon is dropped); several `data:` lines are joined with "\\n"; a blank line dispatches the
event (an event with no `data:` line is not dispatched); lines may end in CRLF, CR or LF, and
a CRLF pair, a line, an event or a multi-byte UTF-8 character may be split across reads.

One deliberate difference from the browser rules: `close()` dispatches a final event that was
not followed by a blank line, because several servers end the stream that way.

The parser works line by line with `bytes` methods, never byte by byte, and decodes each run of
complete lines in one call.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event.

    `event` is the `event:` field ("message" when the event had none), `data` the `data:` lines
    joined with "\\n", `id` the last event id seen so far in the stream (it persists across
    events, as in the standard) and `retry` the reconnection time in ms if this event set one.
    """

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


class SSEParser:
    """Incremental `text/event-stream` parser: `feed()` bytes as they arrive, then `close()`."""

    __slots__ = ("_at_start", "_data", "_event", "_last_id", "_pending_cr", "_retry", "_tail")

    def __init__(self) -> None:
        self._tail = bytearray()  # an incomplete last line (never contains CR or LF)
        self._pending_cr = False  # the previous chunk ended with CR: drop a leading LF
        self._at_start = True  # a byte order mark may still be stripped
        self._data: list[str] = []
        self._event: str | None = None
        self._last_id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Add the next bytes of the stream; return the events they completed (often none)."""
        if not chunk:
            return []
        if self._pending_cr:
            self._pending_cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                if not chunk:
                    return []
        if b"\r" in chunk:
            # A CR at the very end may be the first half of a CRLF split across reads.
            self._pending_cr = chunk[-1:] == b"\r"
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        cut = chunk.rfind(b"\n")
        if cut < 0:
            self._tail += chunk
            return []
        if self._tail:
            self._tail += chunk[:cut]
            block = bytes(self._tail)
            self._tail = bytearray(chunk[cut + 1 :])
        else:
            block = chunk[:cut]
            self._tail = bytearray(chunk[cut + 1 :])
        return self._lines(block.decode("utf-8", "replace").split("\n"))

    def close(self) -> list[SSEEvent]:
        """End of stream: process an unterminated last line and dispatch a pending event."""
        lines: list[str] = []
        if self._tail:
            lines.append(bytes(self._tail).decode("utf-8", "replace"))
            self._tail = bytearray()
        lines.append("")  # behave as if the stream ended with a blank line
        self._pending_cr = False
        return self._lines(lines)

    def _lines(self, lines: list[str]) -> list[SSEEvent]:
        if self._at_start:
            self._at_start = False
            if lines[0].startswith("\ufeff"):
                lines[0] = lines[0][1:]
        events: list[SSEEvent] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    events.append(
                        SSEEvent(
                            "\n".join(data),
                            self._event or "message",
                            self._last_id,
                            self._retry,
                        )
                    )
                    data.clear()
                    self._retry = None
                self._event = None
                continue
            colon = line.find(":")
            if colon == 0:
                continue  # comment
            if colon < 0:
                field, value = line, ""
            else:
                field = line[:colon]
                value = line[colon + 1 :]
                if value[:1] == " ":
                    value = value[1:]
            if field == "data":
                data.append(value)
            elif field == "event":
                self._event = value
            elif field == "id":
                if "\0" not in value:
                    self._last_id = value
            elif field == "retry" and value.isascii() and value.isdigit():
                self._retry = int(value)
        return events


__all__ = ["SSEEvent", "SSEParser"]
