"""Text a terminal shows as text: control sequences removed from what the model and tools
wrote, before `rho exec` prints it as plain text.

A reply can carry bytes that a terminal obeys rather than shows: OSC 52 (write the
clipboard), a window title, `ESC[2J` (clear the screen), `ESC c` (reset), 8-bit CSI. Plain
output drops them, as a terminal would never see them: every ESC-introduced sequence (CSI,
OSC ended by BEL or ST, DCS/APC/PM/SOS strings, two-character escapes), every C1 control
(U+0080–U+009F, which some terminals obey as the 8-bit forms of those), every C0 control but
newline and tab (DEL too), and the bidirectional overrides and isolates (U+202A–U+202E,
U+2066–U+2069), which make a terminal show text in an order other than the one it is in.

`ControlStripper` does it to a stream of pieces (the model's text comes in deltas, and a
sequence may be split across them): it keeps only which part of a sequence it is in, never
text, so what it returns is final. `strip_controls` does it to a whole text. `StrippedStream`
is a text stream that strips what is written to it (rho exec's stderr).
"""

from __future__ import annotations

import re
from typing import IO

#: Characters that start something to drop, in text.
_SPECIAL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: What ends a control string (OSC, DCS, APC, PM, SOS), or interrupts it.
_STRING_END = re.compile("[\x07\x18\x1a\x1b\x9c]")
#: What a CSI sequence may hold before its final byte: parameters and intermediates.
_CSI_BODY = re.compile("[\x20-\x3f]*")

#: After ESC: the character that opens a control string, and CSI.
_OPENS_STRING = frozenset("]P_^X")
#: The 8-bit forms: CSI, and the C1 controls that open a control string.
_C1_CSI = "\x9b"
_C1_STRING = frozenset("\x90\x98\x9d\x9e\x9f")
#: Cancel a sequence in any state (and are dropped themselves).
_CANCEL = frozenset("\x18\x1a")

_TEXT, _ESCAPE, _ESCAPE_MORE, _CSI, _STRING, _STRING_ESCAPE = range(6)


class ControlStripper:
    """Removes control sequences from text fed in pieces (see the module).

    `keep` are the controls let through (newline and tab by default; `\\r` may be added).
    `feed(piece)` returns the text of `piece` that is shown; `reset()` forgets a sequence
    left open (the next text starts afresh).
    """

    def __init__(self, keep: str = "\n\t") -> None:
        self.keep = frozenset(keep)
        self._state = _TEXT

    def reset(self) -> None:
        """Forget a sequence left unfinished: what comes next is text again."""
        self._state = _TEXT

    def feed(self, piece: str) -> str:
        """The part of `piece` a terminal would show as text."""
        shown: list[str] = []
        index, end = 0, len(piece)
        while index < end:
            if self._state == _TEXT:
                found = _SPECIAL.search(piece, index)
                stop = end if found is None else found.start()
                shown.append(piece[index:stop])
                if found is None:
                    break
                char = piece[stop]
                if char in self.keep:
                    shown.append(char)
                else:
                    self._state = _start(char)
                index = stop + 1
            elif self._state == _STRING:
                found = _STRING_END.search(piece, index)
                if found is None:
                    break  # the whole rest is inside the string
                self._state = _STRING_ESCAPE if found.group() == "\x1b" else _TEXT
                index = found.end()
            elif self._state == _CSI:
                body = _CSI_BODY.match(piece, index)
                index = body.end() if body is not None else index
                if index < end:
                    char = piece[index]
                    self._state = _TEXT
                    if "\x40" <= char <= "\x7e":
                        index += 1  # the final byte ends it
                    # anything else breaks the sequence off and is read as text
            else:
                index = self._escape(piece[index], index)
        return "".join(shown)

    def _escape(self, char: str, index: int) -> int:
        """One character after ESC (or inside a string, after its ESC); the next index."""
        if char in _CANCEL:
            self._state = _TEXT
            return index + 1
        if self._state == _STRING_ESCAPE:
            if char == "\\":
                self._state = _TEXT  # ST: the string ends
                return index + 1
            self._state = _ESCAPE  # another sequence starts: the string is cut off
        if self._state == _ESCAPE:
            if char == "[":
                self._state = _CSI
            elif char in _OPENS_STRING:
                self._state = _STRING
            elif char == "\x1b":
                return index + 1
            elif "\x20" <= char <= "\x2f":
                self._state = _ESCAPE_MORE
            elif "\x30" <= char <= "\x7e":
                self._state = _TEXT  # a two-character escape (ESC c, ESC 7, ESC M, …)
            else:
                self._state = _TEXT
                return index  # not an escape: read as text (a control is dropped there)
            return index + 1
        # _ESCAPE_MORE: intermediates (ESC ( B, ESC # 8) until a final character
        if "\x20" <= char <= "\x2f":
            return index + 1
        self._state = _TEXT
        return index + 1 if "\x30" <= char <= "\x7e" else index


def _start(char: str) -> int:
    """The state a dropped character leaves the stripper in."""
    if char == "\x1b":
        return _ESCAPE
    if char == _C1_CSI:
        return _CSI
    if char in _C1_STRING:
        return _STRING
    return _TEXT


def strip_controls(text: str, keep: str = "\n\t") -> str:
    """`text` as a terminal would show it as text (see the module); a sequence left open at
    its end is dropped."""
    if _SPECIAL.search(text) is None:
        return text
    return ControlStripper(keep).feed(text)


class StrippedStream:
    """A text stream writing to `target` what `ControlStripper` lets through; the rest of
    the stream's interface (`isatty`, `fileno`, `encoding`, …) is `target`'s."""

    def __init__(self, target: IO[str]) -> None:
        self.target = target
        self._stripper = ControlStripper()

    def write(self, text: str) -> int:
        """Write `text` without its control sequences; returns `len(text)`, as if all of it
        was written (the caller wrote it; what a terminal would obey is not shown)."""
        self.target.write(self._stripper.feed(text))
        return len(text)

    def flush(self) -> None:
        """Flush `target`."""
        self.target.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.target, name)


__all__ = ["ControlStripper", "StrippedStream", "strip_controls"]
