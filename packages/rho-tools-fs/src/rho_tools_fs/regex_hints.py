"""What to tell the model about a search pattern that is not a valid regex: a hint that fits
the mistake, from the error of either engine (ripgrep's Rust regex or Python's `re`).

Most invalid patterns are text meant literally (`greet(`, `a[0]`, `*.rs`): the hint shows
the pattern with the offending character escaped and points at `fixed_strings`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

FIXED = "or set fixed_strings: true to search for the text as it is"
#: Letters that form an escape in both engines (Python's `re` and Rust's regex).
_KNOWN_ESCAPES = frozenset("dDwWsSbBAzZntrfvxuU")


def escaped(pattern: str, chars: str) -> str:
    """`pattern` with every unescaped character of `chars` escaped with a backslash."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            out.append(pattern[index : index + 2])
            index += 2
            continue
        out.append(f"\\{char}" if char in chars else char)
        index += 1
    return "".join(out)


#: An example longer than this is not shown (the pattern itself is, in the error).
_MAX_EXAMPLE = 200


def _literal(example: str, chars: str, what: str) -> str:
    shown = " and ".join(f"`\\{char}`" for char in chars)
    instance = f" (`{example}`)" if len(example) <= _MAX_EXAMPLE else ""
    return f"{what}: to match it literally, escape it as {shown}{instance}, {FIXED}."


def _unclosed_group(pattern: str) -> str:
    return _literal(escaped(pattern, "("), "(", "`(` opens a group that is never closed")


def _unopened_group(pattern: str) -> str:
    return _literal(escaped(pattern, ")"), ")", "`)` closes a group that was never opened")


def _unclosed_class(pattern: str) -> str:
    what = "`[` starts a character class (like `[a-z]`) that is never closed"
    return _literal(escaped(pattern, "["), "[", what)


def _bad_escape(pattern: str) -> str:
    letters = [m.group(0) for m in re.finditer(r"\\[A-Za-z]", pattern)]
    unknown = [text for text in letters if text[1] not in _KNOWN_ESCAPES]
    which = f"`{unknown[0]}` is not" if unknown else "an escape in the pattern is not"
    return (
        f"{which} an escape this regex syntax knows: write `\\\\` to match a backslash; "
        "punctuation is escaped as `\\.` or `\\(`, letters only form the known escapes "
        f"(`\\d`, `\\w`, `\\s`, `\\b`, …); {FIXED}."
    )


def _nothing_to_repeat(pattern: str) -> str:
    what = (
        "`*`, `+`, `?` and `{n}` repeat what comes before them, and one here has nothing to repeat"
    )
    return _literal(bare_repetitions_escaped(pattern), "*+?", what)


def bare_repetitions_escaped(pattern: str) -> str:
    """`pattern` with each repetition character that has nothing to repeat (at the start,
    after `(` or `|`, or after another repetition) escaped."""
    out: list[str] = []
    previous = ""  # "" at the start: nothing to repeat yet
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            out.append(pattern[index : index + 2])
            previous, index = "x", index + 2
            continue
        bare = char in "*+?{" and previous in ("", "(", "|", "*", "+", "?")
        out.append(f"\\{char}" if bare else char)
        previous = "x" if bare else char
        index += 1
    return "".join(out)


def _counted(pattern: str) -> str:
    return _literal(
        escaped(pattern, "{"),
        "{",
        "`{` starts a counted repetition like `{2}` or `{2,5}` (the smaller number first)",
    )


def _class_range(pattern: str) -> str:
    return (
        "a range in `[…]` runs backwards (like `[z-a]`): write it from low to high, and put "
        f"`-` first or last in the class to match a literal `-`; {FIXED}."
    )


def _look_around(pattern: str) -> str:
    return (
        "look-around (lookahead `(?=…)`, `(?!…)`, lookbehind `(?<=…)`, `(?<!…)`) is not "
        "supported by this regex syntax: match the surrounding text too, or search for a "
        f"simpler pattern and narrow it with path or glob; {FIXED}."
    )


def _backreference(pattern: str) -> str:
    return (
        "backreferences (`\\1`) are not supported by this regex syntax: spell out the "
        f"repeated text, or search for a simpler pattern; {FIXED}."
    )


def _trailing_backslash(pattern: str) -> str:
    return f"the pattern ends with a lone `\\`, which escapes nothing: write `\\\\` to match a backslash, {FIXED}."


#: (what either engine's error says, the hint): the first that matches wins.
_HINTS: list[tuple[re.Pattern[str], Callable[[str], str]]] = [
    (re.compile(r"look-?around|look-?behind|look-?ahead"), _look_around),
    (re.compile(r"backreference|invalid group reference"), _backreference),
    (re.compile(r"unclosed group|missing \), unterminated subpattern"), _unclosed_group),
    (re.compile(r"unopened group|unbalanced parenthesis"), _unopened_group),
    (re.compile(r"unclosed character class|unterminated character set"), _unclosed_class),
    (re.compile(r"character class range|bad character range"), _class_range),
    (re.compile(r"counted repetition|repetition quantifier|repetition count|min repeat"), _counted),
    (
        re.compile(r"repetition operator missing|nothing to repeat|multiple repeat"),
        _nothing_to_repeat,
    ),
    (re.compile(r"escape"), _bad_escape),
]


def regex_hint(pattern: str, error: str, *, fixed_strings: bool = True) -> str:
    """One sentence on how to fix `pattern`, which a regex engine refused with `error`;
    `fixed_strings`: the tool has that option, and the hint points at it."""
    hint = _hint(pattern, error.lower())
    if fixed_strings:
        return hint
    return hint.replace(f", {FIXED}.", ".").replace(f"; {FIXED}.", ".")


def _hint(pattern: str, error: str) -> str:
    if (len(pattern) - len(pattern.rstrip("\\"))) % 2 == 1:
        return _trailing_backslash(pattern)
    for said, hint in _HINTS:
        if said.search(error):
            return hint(pattern)
    return f"the pattern is a ripgrep (Rust) regex; {FIXED}."


__all__ = ["FIXED", "bare_repetitions_escaped", "escaped", "regex_hint"]
