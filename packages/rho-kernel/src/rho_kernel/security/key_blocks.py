"""Private-key blocks by line, for tools that show only part of a file.

The redactor replaces a private key block from its BEGIN line to its END line, but a tool
that shows a range of a file's lines (a read with an offset, a search match, an edit's
context) may show the base64 body without either marker. `KeyBlockLines.of(whole_file)`
finds the lines that lie inside a block in the whole file (BEGIN to END, or to the end of the
file when END is missing); the tool then hides those lines wherever it shows them. Each block
found is learned (`rho_kernel.security.known_keys`): a slice of it is redacted anywhere.

Lines are numbered from 1 and split at `\\n` (a `\\r\\n` ending is the same line), as the
file tools number them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from rho_kernel.security.redaction import REDACTED

_MARK = "-----BEGIN"


class KeyBlockLines:
    """The line numbers of a text that lie inside private key blocks; immutable.

    Build it from the whole file with `of`; ask `number in blocks`, or let `hide` replace
    the lines of a shown range. Empty (and false) when the text holds no block.
    """

    __slots__ = ("_firsts", "_ranges")

    def __init__(self, ranges: Iterable[tuple[int, int]] = ()) -> None:
        """Blocks as inclusive `(first, last)` line numbers, in order and disjoint."""
        self._ranges: tuple[tuple[int, int], ...] = tuple(ranges)
        self._firsts = [first for first, _last in self._ranges]

    @classmethod
    def of(cls, content: str | bytes) -> KeyBlockLines:
        """The key-block lines of a file's whole content (bytes are decoded as UTF-8,
        invalid bytes replaced)."""
        if isinstance(content, bytes):
            if _MARK.encode() not in content:
                return EMPTY
            content = content.decode("utf-8", errors="replace")
        if _MARK not in content:
            return EMPTY
        return cls.of_lines(content.split("\n"))

    @classmethod
    def of_lines(cls, lines: Iterable[str]) -> KeyBlockLines:
        """The key-block lines of a file given as its lines (numbered from 1)."""
        ranges: list[tuple[int, int]] = []
        start: int | None = None  # the first line of the block still open
        block: list[str] = []
        number = 0
        for number, line in enumerate(lines, 1):
            if start is None and _MARK not in line:
                continue
            opened, inside = _walk(line, start is not None)
            if opened and start is None:
                start = number
            if start is not None:
                block.append(line)
            if start is not None and not inside:
                ranges.append((start, number))
                start = None
                _learn(block)
                block = []
        if start is not None:  # no END: the block runs to the end of the file
            ranges.append((start, max(number, start)))
            _learn(block)
        return cls(ranges)

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        """The blocks as inclusive `(first, last)` line numbers."""
        return self._ranges

    def __bool__(self) -> bool:
        return bool(self._ranges)

    def __contains__(self, number: object) -> bool:
        if not isinstance(number, int) or not self._ranges:
            return False
        index = bisect_right(self._firsts, number) - 1
        return index >= 0 and number <= self._ranges[index][1]

    def __repr__(self) -> str:
        return f"KeyBlockLines({list(self._ranges)!r})"

    def hide(
        self, lines: Sequence[str], first: int = 1, *, keep_to: str | None = None
    ) -> list[str]:
        """`lines` (line `first` onwards) with each line inside a block replaced by
        `[REDACTED]`. With `keep_to`, a hidden line keeps its beginning up to and including
        the first `keep_to`. Keep nothing computed from the hidden content (a hashline row's
        anchor hash is: rho's file tools rewrite such rows whole)."""
        if not self._ranges:
            return list(lines)
        shown: list[str] = []
        for number, line in enumerate(lines, first):
            if number in self:
                cut = line.find(keep_to) + 1 if keep_to else 0
                line = line[:cut] + REDACTED
            shown.append(line)
        return shown

    def hide_text(self, text: str, first: int = 1, *, keep_to: str | None = None) -> str:
        """`text` (lines joined by `\\n`, its first being line `first`) with the lines inside
        a block hidden as `hide` does."""
        if not self._ranges:
            return text
        return "\n".join(self.hide(text.split("\n"), first, keep_to=keep_to))


def _learn(block: list[str]) -> None:
    """Remember a block's lines, so that a slice of them is redacted wherever it appears."""
    from rho_kernel.security.known_keys import learn_lines

    learn_lines(block)


def _walk(line: str, inside: bool) -> tuple[bool, bool]:
    """(whether `line` opens a block, whether a block is open at its end), given whether one
    was open at its start."""
    # Only lines holding a marker, or inside a block, get here: the rules' module (whose
    # patterns compile on import) is loaded on the first one.
    from rho_kernel.security.redaction_rules import PRIVATE_KEY_BEGIN, PRIVATE_KEY_END

    opened = False
    position = 0
    while True:
        marker = (PRIVATE_KEY_END if inside else PRIVATE_KEY_BEGIN).search(line, position)
        if marker is None:
            return opened, inside
        opened = opened or not inside
        inside = not inside
        position = marker.end()


#: No key block at all.
EMPTY = KeyBlockLines()

__all__ = ["EMPTY", "KeyBlockLines"]
