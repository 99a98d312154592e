"""What the command policy sees of a shell line: simple commands made of words.

A `Word` is one argument as the shell would pass it, when that is known before the command
runs (`value`), together with its source text and a worst-case reading in which every
expansion is empty (`worst`, with `$HOME` read as `~`) — what `rm -rf "$DIR/"` removes when
`DIR` is unset — and the readings in which a parameter's default or alternate value is taken
(`${X:-/}` is `/` when `X` is unset). Both shell front ends (`bashparse`, `pwshparse`)
produce `ParsedLine`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Reading:
    """One way a word with expansions may read when it runs: `text`, and `exact` when no
    expansion in it was assumed empty (`${X:-/usr}` read as `/usr` is exact)."""

    text: str
    exact: bool


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a simple command.

    `value` is the word after quote removal, or None when it depends on an expansion
    (`$x`, `$(…)`, …). `pattern` marks an unquoted glob or brace pattern, whose meaning is
    only known when the shell expands it. `worst` is the word with every expansion empty.
    `readings` are further worst-case readings, where a parameter's default or alternate
    value (`${X:-/}`, `${X:+…}`), a replacement (`${X/a//}`) or a value the line assigns to
    the variable (`X=/; … $X`) is taken, each with whether it is exact (no other expansion
    in it was assumed empty).
    """

    text: str
    value: str | None
    worst: str
    pattern: bool = False
    readings: tuple[Reading, ...] = ()

    @property
    def static(self) -> bool:
        """Whether the word's value is known without running anything."""
        return self.value is not None and not self.pattern

    @classmethod
    def literal(cls, value: str) -> Word:
        """A word whose value is exactly `value`."""
        return cls(text=value, value=value, worst=value)


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """A command name and its arguments (`words[0]` is the name), with its source text."""

    words: list[Word]
    text: str


@dataclass(frozen=True, slots=True)
class Assignment:
    """A shell variable assignment (`NAME=value`, `NAME[i]+=value`, `export NAME=value`):
    the variable's `name` (without a subscript) and its value as a word."""

    name: str
    value: Word


@dataclass(slots=True)
class ParsedLine:
    """Every simple command of a line (nested ones included), the words that are
    redirection targets, the variable assignments, the quoted texts that hold an array
    subscript with a command substitution (`'a[$(…)]'`, which bash runs when it evaluates
    the subscript: `read`, `printf -v`, `[[ -v ]]`, arithmetic on a variable), and a syntax
    error (None when the line parsed)."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Word] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    subscripts: list[str] = field(default_factory=list)
    error: str | None = None


def shown(text: str, limit: int = 120) -> str:
    """`text` on one line and at most `limit` characters, for messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["Assignment", "ParsedLine", "Reading", "SimpleCommand", "Word", "shown"]
