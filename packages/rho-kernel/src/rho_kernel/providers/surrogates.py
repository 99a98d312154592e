"""Streamed text that never holds a lone UTF-16 surrogate.

JSON encodes a character outside the Basic Multilingual Plane (most emoji) as a surrogate
pair, `"\\ud83d\\ude00"`, and some providers split that pair across two stream chunks; a
broken one may even send half a pair alone. Decoded on its own, each half is a lone
surrogate, which UTF-8 cannot encode: on stdout or in the session it would break every
later write. `SurrogateJoiner` holds back a trailing high surrogate until the next piece
completes it and replaces anything that stays alone with U+FFFD.
"""

from __future__ import annotations

from rho_kernel.encoding import REPLACEMENT, scrub_surrogates


def _is_high_surrogate(char: str) -> bool:
    return "\ud800" <= char <= "\udbff"


class SurrogateJoiner:
    """Joins surrogate pairs split across the pieces of one text stream.

    `push(piece)` returns the text that can be emitted now (possibly ""): a trailing high
    surrogate is kept back for the next piece, and every other surrogate is joined with its
    partner or replaced by U+FFFD. `flush()` returns what is still held (as U+FFFD) at the end.
    """

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held = ""

    def push(self, piece: str) -> str:
        """The emittable part of `self._held + piece`; a trailing high surrogate is held."""
        text = self._held + piece
        self._held = ""
        if text and _is_high_surrogate(text[-1]):
            self._held = text[-1]
            text = text[:-1]
        return scrub_surrogates(text)

    def flush(self) -> str:
        """U+FFFD for a high surrogate still held (its partner never came), else ""."""
        if not self._held:
            return ""
        self._held = ""
        return REPLACEMENT


__all__ = ["SurrogateJoiner"]
