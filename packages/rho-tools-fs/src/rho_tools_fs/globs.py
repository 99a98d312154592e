"""File-name globs for find_files and search_files, compiled to Python regular expressions.

One translation serves both the ripgrep path and the pure-Python fallback, so the two select
exactly the same files. The syntax is the usual shell one:

- `*` any run of characters except `/`; `?` one character except `/`;
- `**` as a whole path component (`**/x`, `a/**`, `a/**/b`) any number of directories;
- `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character from (or not from) a set, never `/`;
- `{a,b,c}` one of the alternatives (not nested);
- `\\x` the character `x` itself.

Matching is case-sensitive and covers the whole name (or path).
"""

from __future__ import annotations

import re
from collections.abc import Callable


class GlobError(ValueError):
    """A glob cannot be compiled; the message says why."""


def _class(glob: str, start: int) -> tuple[str, int]:
    """The regex for the `[...]` class opening at `start`, and the index after it."""
    index = start + 1
    negate = index < len(glob) and glob[index] in "!^"
    if negate:
        index += 1
    items: list[str] = []
    first = True
    while index < len(glob):
        char = glob[index]
        if char == "]" and not first:
            body = "".join(items)
            return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), index + 1
        first = False
        if char == "\\" and index + 1 < len(glob):
            index += 1
            char = glob[index]
        if index + 2 < len(glob) and glob[index + 1] == "-" and glob[index + 2] != "]":
            low, high = char, glob[index + 2]
            if low > high:
                raise GlobError(f"invalid range '{low}-{high}' in character class")
            items.append(f"{re.escape(low)}-{re.escape(high)}")
            index += 3
            continue
        items.append(re.escape(char))
        index += 1
    raise GlobError("unclosed character class '['")


def _star(glob: str, index: int) -> tuple[str, int]:
    """The regex for the `*` or `**` at `index`, and the index after it."""
    if not glob.startswith("**", index):
        return "[^/]*", index + 1
    at_start = index == 0 or glob[index - 1] == "/"
    after = index + 2
    if at_start and after < len(glob) and glob[after] == "/":
        return "(?:.*/)?", after + 1  # `**/`: zero or more leading directories
    if at_start and after == len(glob):
        return ".*", after  # trailing `/**` or a lone `**`: anything below
    return "[^/]*", after  # `**` inside a name is a plain `*`


def translate(glob: str) -> str:
    """The regular expression (for `re.fullmatch`) equivalent to `glob`."""
    out: list[str] = []
    index = 0
    in_braces = False
    while index < len(glob):
        char = glob[index]
        if char == "*":
            piece, index = _star(glob, index)
            out.append(piece)
            continue
        if char == "[":
            piece, index = _class(glob, index)
            out.append(piece)
            continue
        if char == "\\":
            if index + 1 >= len(glob):
                raise GlobError("dangling '\\' at the end")
            out.append(re.escape(glob[index + 1]))
            index += 2
            continue
        if char == "{":
            if in_braces:
                raise GlobError("nested '{' alternatives are not supported")
            in_braces = True
            out.append("(?:")
        elif char == "}" and in_braces:
            in_braces = False
            out.append(")")
        elif char == "," and in_braces:
            out.append("|")
        elif char == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(char))
        index += 1
    if in_braces:
        raise GlobError("unclosed '{'")
    return "".join(out)


def compile_glob(glob: str) -> Callable[[str], bool]:
    """A predicate over names (or `/`-separated paths) that match `glob`.

    A glob without `/` is tested against the last path component (the file name); a glob
    with `/` against the whole path relative to the project root. Raises `GlobError`.
    """
    if not glob:
        raise GlobError("empty glob")
    if "\0" in glob:
        raise GlobError("glob contains a NUL byte")
    regex = re.compile(translate(glob.lstrip("/") if "/" in glob else glob), re.DOTALL)
    if "/" in glob:
        return lambda path: regex.fullmatch(path) is not None
    return lambda path: regex.fullmatch(path.rsplit("/", 1)[-1]) is not None


__all__ = ["GlobError", "compile_glob", "translate"]
