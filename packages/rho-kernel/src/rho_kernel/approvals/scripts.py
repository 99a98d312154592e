"""Little languages inside a command's words that can run programs: sed scripts, awk
programs, find expressions. Each check says whether a text is known to run nothing.

- sed: the `e` command and the `e` flag of `s` run commands; `w`/`W` (and the `w` flag)
  write files, `r`/`R` read them. Only a plain subset is accepted: addresses, `{ } !`,
  `= d D g G h H l n N p P q Q x z F`, `a i c` with their text, `s` with the flags
  `g p i I m M` and a count, `y`, `#` comments, labels and branches. Where sed
  implementations read a script differently (a delimiter inside a bracket expression, a
  backslash there), the script is refused rather than guessed.
- awk: `system()`, pipes (`print | "cmd"`, `"cmd" | getline`), gawk's `|&`, `@`-calls and
  `@load`, and its `/inet` files. The program text is searched as written, strings and
  regular expressions included: `|` is accepted only as `||`.
- find: `-exec`, `-execdir`, `-ok`, `-okdir`, `-delete`, and the `-fprint*`/`-fls` primaries
  are not accepted, nor any primary not listed here.
"""

from __future__ import annotations

import re

_SED_SIMPLE = frozenset("=dDgGhHlnNpPqQxzF")
_SED_NUMBERED = frozenset("lqQL")
_SED_TEXT = frozenset("aic")
_SED_BRANCH = frozenset("btT")
_SED_DELIMITERS = frozenset("/|,:#@!%_+=~^.")
_SED_S_FLAGS = frozenset("gpiImM0123456789")
_SED_END = frozenset(" \t;\n}#")


class _Refused(Exception):
    """The script holds something that is not known to be safe."""


class _SedScanner:
    """A sed script read one command at a time (see the module)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise _Refused
        self.pos += 1
        return char

    def blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.pos += 1

    def script(self) -> None:
        while self.pos < len(self.text):
            self.blanks()
            char = self.peek()
            if char in (";", "\n", "}"):
                self.pos += 1
                continue
            if not char:
                return
            if char == "#":
                self._to_line_end()
                continue
            self.command()

    def command(self) -> None:
        if self.address():
            self.blanks()
            if self.peek() == ",":
                self.pos += 1
                self.blanks()
                if not self.address(second=True):
                    raise _Refused
        self.blanks()
        while self.peek() == "!":
            self.pos += 1
            self.blanks()
        name = self.take()
        if name == "{":
            return
        if name in _SED_SIMPLE:
            if name in _SED_NUMBERED:
                self.blanks()
                while self.peek().isdigit():
                    self.pos += 1
            self._end()
        elif name in _SED_TEXT:
            self._text()
        elif name == ":" or name in _SED_BRANCH:
            self._label(required=name == ":")
        elif name == "s":
            self._substitute()
        elif name == "y":
            delimiter = self._delimiter()
            self.segment(delimiter, brackets=False)
            self.segment(delimiter, brackets=False)
            self._end()
        else:
            raise _Refused  # e, w, W, r, R, v and anything unknown

    def address(self, *, second: bool = False) -> bool:
        char = self.peek()
        if char.isdigit() or (second and char in "+~"):
            self.pos += 1
            while self.peek().isdigit() or self.peek() == "~":
                self.pos += 1
            return True
        if char == "$":
            self.pos += 1
            return True
        if char in ("/", "\\"):
            self.pos += 1
            delimiter = "/" if char == "/" else self._delimiter()
            self.segment(delimiter, brackets=True)
            while self.peek() in ("I", "M"):
                self.pos += 1
            return True
        return False

    def segment(self, delimiter: str, *, brackets: bool) -> None:
        """Up to and past the closing `delimiter`; a bracket expression holding the
        delimiter, a backslash or a newline is refused (seds disagree about it)."""
        while True:
            char = self.take()
            if char == delimiter:
                return
            if char == "\n":
                raise _Refused
            if char == "\\":
                self.take()
            elif char == "[" and brackets:
                self._bracket(delimiter)

    def _bracket(self, delimiter: str) -> None:
        if self.peek() == "^":
            self.pos += 1
        if self.peek() == "]":
            self.pos += 1
        while True:
            char = self.take()
            if char == "]":
                return
            if char in (delimiter, "\\", "\n"):
                raise _Refused
            if char == "[" and self.peek() in (":", ".", "="):
                close = self.peek() + "]"
                end = self.text.find(close, self.pos + 1)
                body = self.text[self.pos + 1 : end]
                if end < 0 or delimiter in body or "\\" in body or "\n" in body:
                    raise _Refused
                self.pos = end + 2

    def _delimiter(self) -> str:
        delimiter = self.take()
        if delimiter not in _SED_DELIMITERS:
            raise _Refused
        return delimiter

    def _substitute(self) -> None:
        delimiter = self._delimiter()
        self.segment(delimiter, brackets=True)
        self.segment(delimiter, brackets=False)
        while self.peek() in _SED_S_FLAGS:
            self.pos += 1
        self._end()

    def _text(self) -> None:
        """`a text`, `a\\` and its lines: the text runs to the end of the line (a `;` in it
        is refused: some seds would read a command there)."""
        while True:
            char = self.peek()
            if not char or char == "\n":
                return
            if char == ";":
                raise _Refused
            self.pos += 1
            if char == "\\":
                self.pos += 1

    def _label(self, *, required: bool) -> None:
        self.blanks()
        start = self.pos
        while self.peek() and self.peek() not in " \t;\n}":
            self.pos += 1
        if required and self.pos == start:
            raise _Refused
        self._end()

    def _end(self) -> None:
        self.blanks()
        if self.peek() and self.peek() not in _SED_END:
            raise _Refused

    def _to_line_end(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end


def safe_sed_script(text: str) -> bool:
    """Whether the sed script `text` is known to run, write and read nothing (see the
    module). An empty script is refused: BSD sed's `-i ''` takes it as a backup suffix,
    and the next word, unread, as the script."""
    if not text.strip():
        return False
    try:
        _SedScanner(text).script()
    except _Refused:
        return False
    return True


_AWK_RUNS = re.compile(r"system|@|/inet|\|&")


def safe_awk_program(text: str) -> bool:
    """Whether the awk program `text` is known to run nothing (see the module)."""
    if _AWK_RUNS.search(text):
        return False
    return all(len(run) == 2 for run in re.findall(r"\|+", text))


#: find's primaries and operators that take no argument and run nothing.
_FIND_ALONE = frozenset(
    {"-print", "-print0", "-prune", "-quit", "-empty", "-true", "-false", "-ls", "-depth"}
    | {"-mount", "-xdev", "-noleaf", "-follow", "-nouser", "-nogroup", "-readable"}
    | {"-writable", "-executable", "-daystart", "-ignore_readdir_race"}
    | {"-noignore_readdir_race", "-o", "-or", "-a", "-and", "-not", "!", "(", ")", ","}
)
#: find's primaries that take one argument (a name, a number, a format) and run nothing.
_FIND_VALUED = frozenset(
    {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"}
    | {"-regextype", "-type", "-xtype", "-maxdepth", "-mindepth", "-newer", "-anewer"}
    | {"-cnewer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-user"}
    | {"-group", "-uid", "-gid", "-perm", "-links", "-inum", "-samefile", "-lname"}
    | {"-ilname", "-fstype", "-used", "-printf"}
)
_FIND_NEWER = re.compile(r"-newer[aBcmt][aBcmt]")


def safe_find_arguments(args: list[str]) -> bool:
    """Whether `find ARGS` is known to run, delete and write nothing (see the module)."""
    index = 0
    while index < len(args) and args[index] in ("-H", "-L", "-P"):
        index += 1
    while index < len(args) and not args[index].startswith(("-", "(", "!", ")")):
        index += 1  # the starting points
    while index < len(args):
        word = args[index]
        if word in _FIND_ALONE:
            index += 1
        elif word in _FIND_VALUED or _FIND_NEWER.fullmatch(word):
            if index + 1 >= len(args):
                return False
            index += 2  # find takes the next word as the value, whatever it is
        else:
            return False
    return True


__all__ = ["safe_awk_program", "safe_find_arguments", "safe_sed_script"]
