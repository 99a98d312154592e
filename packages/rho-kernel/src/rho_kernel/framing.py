"""Framing untrusted text as data: escaping tags that could close (or open) its frame.

A tool that shows the model text it did not write (a file, a stored note, a web page) wraps
it in tags such as `<context>` … `<context:end>`, and says the text inside is information,
never instructions. The text itself must not be able to end that frame early, so every
tag-like occurrence of the frame's tag names in it gets one backslash after the `<`
(`<context:end>` → `<\\context:end>`, `</memory>` → `<\\/memory>`). Text that already
looks escaped gets one more, which keeps the escaping reversible.

Names a tool prints (file paths above all) are one line each: `escape_controls` turns every
control character in them into a visible escape, so a file named `a\nb` cannot forge a line
of a listing or of a message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


@lru_cache(maxsize=32)
def _patterns(names: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    if not names or not all(re.fullmatch(r"[A-Za-z][\w:-]*", name) for name in names):
        raise ValueError(f"tag names must be identifiers, got {names!r}")
    alternatives = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    # The name is followed by `>`, `:` (as in `:end>`), `/`, whitespace (attributes) or the end.
    tail = rf"(?:{alternatives})(?=[>:\s/]|$)"
    return re.compile(rf"<(\\*/?)(?={tail})"), re.compile(rf"<\\(\\*/?)(?={tail})")


def escape_tags(text: str, names: Iterable[str]) -> str:
    """`text` with one backslash after the `<` of every opening or closing tag named in
    `names` (`<name`, `</name`, each possibly already escaped), so it cannot close or open
    a frame made of those tags. Reverse it with `unescape_tags`."""
    opening, _ = _patterns(tuple(names))
    return opening.sub(lambda match: "<\\" + match.group(1), text)


def unescape_tags(text: str, names: Iterable[str]) -> str:
    """Undo `escape_tags` with the same names: remove one backslash after each such `<`."""
    _, escaped = _patterns(tuple(names))
    return escaped.sub(lambda match: "<" + match.group(1), text)


#: Characters that would break a line or move the cursor: C0 and C1 controls, DEL, the
#: Unicode line and paragraph separators, and the bidirectional overrides and isolates.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every control character written as an escape (`\\n`, `\\r`, `\\t`,
    `\\x1b`, `\\x7f`, `\\u2028`, …), so it shows as one line that cannot move the cursor;
    text without any is returned as is. For names and paths in a tool's output."""
    return _CONTROLS.sub(_escape, text) if _CONTROLS.search(text) else text


__all__ = ["escape_controls", "escape_tags", "unescape_tags"]
