"""One stream's live output between two sends: whole lines, in order, bounded, with any
elision marked exactly where it happened and saying what it skipped."""

from __future__ import annotations

from collections.abc import Callable

#: `line_filter(stream, line) -> shown`: rewrites one whole line of live output (without its
#: line break) before the client sees it, e.g. a JSON message rendered for people; it may
#: return several lines, and None hides the line.
LineFilter = Callable[[str, str], "str | None"]

#: The smallest chunk: room for a shortened line in the tail.
MIN_CHUNK = 1024
#: Room kept in a chunk for the marker of skipped lines.
_MARKER_ROOM = 64
#: A line longer than this (with a filter: before filtering) keeps its beginning and end.
FILTERED_LINE_LIMIT = 1 << 20


def characters_skipped(count: int) -> str:
    """The marker inside a line cut short: `[… N characters skipped …]`."""
    return f"[… {count} characters skipped …]"


def lines_skipped(lines: int, chars: int) -> str:
    """The marker line standing for whole lines left out: `[… L lines (N characters)
    skipped …]` and a line break."""
    return f"[… {lines} line{'' if lines == 1 else 's'} ({chars} characters) skipped …]\n"


#: Room for `characters_skipped` inside a shortened line.
_INLINE_ROOM = 40

#: Where lines were shortened in a block of text: (the end of a shortened line in the
#: block, how many characters shorter than the original it is).
Cuts = list[tuple[int, int]]


def shorten(line: str, limit: int) -> str:
    """`line` (its line break kept) cut to at most `limit` characters, its beginning and end
    around `characters_skipped`, when it is longer than `limit`."""
    body = line[:-1] if line.endswith("\n") else line
    if len(body) <= limit:
        return line
    return _joined(body, body, len(body), limit) + line[len(body) :]


def _joined(start: str, end: str, length: int, limit: int) -> str:
    """A line of `length` characters that starts with `start` and ends with `end`, shown in
    `limit` characters."""
    keep = max((limit - _INLINE_ROOM) // 2, 1)
    return start[:keep] + characters_skipped(length - 2 * keep) + end[-keep:]


class _Splitter:
    """Cuts decoded text into whole lines; of the line being read at most its first `limit`
    and its last characters are held (and the count of those between), so memory stays
    bounded whatever the line's length."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._keep = max((limit - _INLINE_ROOM) // 2, 1)
        # Pieces, not one string grown a piece at a time: a line written a byte per read
        # must not cost a copy of what is held per byte.
        self._head: list[str] = []
        self._head_size = 0
        self._tail: list[str] = []
        self._tail_size = 0
        self._skipped = 0

    @property
    def held(self) -> int:
        """Characters held of the line being read."""
        return self._head_size + self._tail_size

    def feed(self, text: str) -> tuple[str, Cuts]:
        """Take the next text; return the whole lines it completes (each ends with a line
        break; longer ones shortened, see `shorten`) and where they were shortened."""
        if not text:
            return "", []
        done, cuts = "", []
        if self._head_size:  # the line being read goes on
            end = text.find("\n")
            if end < 0:
                self._hold(text)
                return "", []
            self._hold(text[:end])
            done, delta = self._release()
            done += "\n"
            cuts = [(len(done), delta)] if delta else []
            text = text[end + 1 :]
        cut = text.rfind("\n") + 1
        self._hold(text[cut:])
        lines, more = _shortened(text[:cut], self.limit)
        return done + lines, cuts + [(len(done) + at, delta) for at, delta in more]

    def flush(self) -> tuple[str, Cuts]:
        """The unfinished last line (no line break), once the stream has ended."""
        line, delta = self._release()
        return line, [(len(line), delta)] if delta else []

    def _hold(self, piece: str) -> None:
        room = self.limit - self._head_size
        if room > 0 and piece:
            self._head.append(piece[:room])
            self._head_size += len(self._head[-1])
            piece = piece[room:]
        if piece:
            self._tail.append(piece)
            self._tail_size += len(piece)
            if self._tail_size > 2 * self._keep:  # trimmed now and then: linear overall
                self._trim_tail()

    def _trim_tail(self) -> None:
        tail = "".join(self._tail)
        drop = max(len(tail) - self._keep, 0)
        self._skipped += drop
        self._tail, self._tail_size = [tail[drop:]], len(tail) - drop

    def _release(self) -> tuple[str, int]:
        """The line held (shortened when longer than the limit) and how much shorter it is."""
        self._trim_tail()
        head, tail, skipped = "".join(self._head), self._tail[0], self._skipped
        self._head, self._head_size, self._skipped = [], 0, 0
        self._tail, self._tail_size = [], 0
        if not tail:
            return head, 0
        length = len(head) + skipped + len(tail)
        line = _joined(head, head + tail, length, self.limit)
        return line, length - len(line)


def _may_hold_a_long_line(block: str, limit: int) -> bool:
    """Whether a line of `block` may be longer than `limit`. A line that long covers a whole
    stretch of `limit // 2` characters starting at a multiple of it, so looking for a line
    break in each such stretch is enough to rule it out (linear, and a few C calls where
    lines are short; a regex looking for a long line is quadratic)."""
    step = max(limit // 2, 1)
    for start in range(0, len(block) - step + 1, step):
        if block.find("\n", start, start + step) < 0:
            return max(map(len, block.split("\n"))) > limit
    return False


def _shortened(block: str, limit: int) -> tuple[str, Cuts]:
    """`block` (whole lines) with every line longer than `limit` shortened, and where."""
    if len(block) <= limit or not _may_hold_a_long_line(block, limit):
        return block, []
    parts: list[str] = []
    cuts: Cuts = []
    size = 0
    for line in block.splitlines(keepends=True):
        short = shorten(line, limit)
        parts.append(short)
        size += len(short)
        if len(short) != len(line):
            cuts.append((size, len(line) - len(short)))
    return "".join(parts), cuts


class LiveLines:
    """One stream's output since the last send, ready to be sent as at most `max_chunk`
    characters of whole lines.

    The first half of the budget keeps the first lines, the rest the last ones; the lines in
    between are dropped as they come (memory stays bounded) and `take` puts one marker line
    where they were, `[… L lines (N characters) skipped …]`. A line longer than a quarter of
    the chunk keeps its beginning and end (`[… N characters skipped …]` inside it). With
    `line_filter`, each whole line is rewritten before it is kept (lines up to
    `FILTERED_LINE_LIMIT` characters reach it whole). The last line, without a line break,
    is released by `take(final=True)` once the stream has ended.
    """

    def __init__(
        self, max_chunk: int, stream: str = "stdout", line_filter: LineFilter | None = None
    ) -> None:
        self.max_chunk = max(max_chunk, MIN_CHUNK)
        self.stream = stream
        self.line_filter = line_filter
        self._line_limit = self.max_chunk // 4
        self._head_budget = self.max_chunk // 2
        self._tail_budget = self.max_chunk - self._head_budget - _MARKER_ROOM
        limit = FILTERED_LINE_LIMIT if line_filter is not None else self._line_limit
        self._splitter = _Splitter(limit)
        self._reset()

    def _reset(self) -> None:
        self._head: list[str] = []
        self._head_size = 0
        self._head_open = True
        self._tail = ""
        self._tail_cuts: Cuts = []
        self._skipped_lines = 0
        self._skipped_chars = 0

    def feed(self, text: str) -> None:
        """Take the next decoded text of the stream."""
        self._keep(*self._splitter.feed(text))

    def take(self, *, final: bool = False) -> str:
        """What to send now (maybe ""), and start over; `final`: the stream has ended, its
        unfinished last line is included."""
        if final:
            self._keep(*self._splitter.flush())
        marker = (
            lines_skipped(self._skipped_lines, self._skipped_chars) if self._skipped_lines else ""
        )
        text = "".join(self._head) + marker + self._tail
        self._reset()
        return text

    def _keep(self, block: str, cuts: Cuts) -> None:
        if not block:
            return
        if self.line_filter is not None:
            block, cuts = self._filtered(block)
        if self._head_open:
            block, cuts = self._fill_head(block, cuts)
        if block:
            self._fill_tail(block, cuts)

    def _filtered(self, block: str) -> tuple[str, Cuts]:
        assert self.line_filter is not None
        shown: list[str] = []
        for line in block.splitlines(keepends=True):
            ended = line.endswith("\n")
            text = self.line_filter(self.stream, line[:-1] if ended else line)
            if text is not None:
                shown.append(text if text.endswith("\n") or not ended else text + "\n")
        return _shortened("".join(shown), self._line_limit)

    def _fill_head(self, block: str, cuts: Cuts) -> tuple[str, Cuts]:
        """Keep the lines of `block` that fit in the head; return the rest."""
        room = self._head_budget - self._head_size
        cut = len(block) if len(block) <= room else block.rfind("\n", 0, room) + 1
        if cut:
            self._head.append(block[:cut])
            self._head_size += cut
        if cut < len(block):
            self._head_open = False
        return block[cut:], [(at - cut, delta) for at, delta in cuts if at > cut]

    def _fill_tail(self, block: str, cuts: Cuts) -> None:
        """Keep the last lines that fit in the tail; count the ones that fall out (as long
        as they really were)."""
        offset = len(self._tail)
        tail = self._tail + block
        tail_cuts = self._tail_cuts + [(offset + at, delta) for at, delta in cuts]
        if len(tail) > self._tail_budget:
            # Lines are shortened to fit, so a line break always ends the first line kept.
            start = tail.find("\n", len(tail) - self._tail_budget - 1) + 1
            dropped = tail[:start]
            self._skipped_lines += dropped.count("\n")
            self._skipped_chars += len(dropped) + sum(d for at, d in tail_cuts if at <= start)
            tail = tail[start:]
            tail_cuts = [(at - start, delta) for at, delta in tail_cuts if at > start]
        self._tail, self._tail_cuts = tail, tail_cuts


__all__ = [
    "FILTERED_LINE_LIMIT",
    "MIN_CHUNK",
    "LineFilter",
    "LiveLines",
    "characters_skipped",
    "lines_skipped",
    "shorten",
]
