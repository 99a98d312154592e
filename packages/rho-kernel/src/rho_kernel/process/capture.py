"""Bounded capture of a stream: the first and last bytes, and a count of what was between."""

from __future__ import annotations


class CappedOutput:
    """Keeps at most `limit` bytes of a stream while it is read: the first half and the
    last half, and counts the bytes and line breaks dropped in between.

    Memory stays bounded however much the process writes; `text()` renders the kept bytes
    as UTF-8 (invalid sequences replaced) with an elision marker where bytes were dropped,
    the head and tail cut back to whole lines so that the marker counts whole lines.
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 2)
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0
        self._total_lines = 0

    def feed(self, data: bytes) -> None:
        """Add the next chunk of the stream."""
        self.total += len(data)
        self._total_lines += data.count(b"\n")
        room = self.limit // 2 - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        keep = self.limit - self.limit // 2
        if len(data) >= keep:
            self._tail[:] = data[-keep:]
        else:
            self._tail += data
            if len(self._tail) > keep:
                del self._tail[: len(self._tail) - keep]

    def _kept(self) -> tuple[bytes, bytes]:
        """The head and tail shown: cut back to whole lines where that costs less than half
        of what is kept (else at a character boundary)."""
        head, tail = bytes(self._head), bytes(self._tail)
        if self.total == len(head) + len(tail):
            return head, tail
        end = head.rfind(b"\n") + 1
        head = head[:end] if end and len(head) - end < end else head[: _complete_prefix(head)]
        start = tail.find(b"\n") + 1
        whole = 0 < start < len(tail) and start < len(tail) - start
        tail = tail[start:] if whole else tail[_first_boundary(tail) :]
        return head, tail

    @property
    def elided_bytes(self) -> int:
        """How many bytes were dropped from the middle."""
        head, tail = self._kept()
        return self.total - len(head) - len(tail)

    @property
    def elided_lines(self) -> int:
        """How many line breaks were among the dropped bytes."""
        head, tail = self._kept()
        return self._total_lines - head.count(b"\n") - tail.count(b"\n")

    def text(self) -> str:
        """The kept output as text, with `[… N bytes (L lines) elided …]` in the middle: on a
        line of its own, between whole lines, unless a line longer than half the limit had
        to be cut."""
        head, tail = self._kept()
        elided = self.elided_bytes
        if not elided:
            return (head + tail).decode("utf-8", "replace")
        lines = self.elided_lines
        before = "" if head.endswith(b"\n") or not head else "\n"
        marker = f"{before}[… {elided} bytes ({lines} line{'s' if lines != 1 else ''}) elided …]\n"
        return head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace")


def _complete_prefix(data: bytes) -> int:
    """The length of `data` without a UTF-8 sequence cut off at its end."""
    index = len(data) - 1
    while index >= 0 and len(data) - index < 4 and data[index] & 0xC0 == 0x80:
        index -= 1
    if index < 0 or data[index] < 0xC0:
        return len(data)
    needed = 2 if data[index] < 0xE0 else 3 if data[index] < 0xF0 else 4
    return index if len(data) - index < needed else len(data)


def _first_boundary(data: bytes) -> int:
    """The index of the first byte of `data` that is not inside a cut-off UTF-8 sequence."""
    index = 0
    while index < min(3, len(data)) and data[index] & 0xC0 == 0x80:
        index += 1
    return index


__all__ = ["CappedOutput"]
