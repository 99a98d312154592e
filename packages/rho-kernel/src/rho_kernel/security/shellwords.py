"""What the command policy sees of a shell line: simple commands made of words.

A `Word` is one argument as the shell would pass it, when that is known before the command
runs (`value`), together with its source text and a worst-case reading in which every
expansion is empty (`worst`, with `$HOME` read as `~`) — what `rm -rf "$DIR/"` removes when
`DIR` is unset. Both shell front ends (`bashparse`, `pwshparse`) produce `ParsedLine`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a simple command.

    `value` is the word after quote removal, or None when it depends on an expansion
    (`$x`, `$(…)`, …). `pattern` marks an unquoted glob or brace pattern, whose meaning is
    only known when the shell expands it. `worst` is the word with every expansion empty.
    """

    text: str
    value: str | None
    worst: str
    pattern: bool = False

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


@dataclass(slots=True)
class ParsedLine:
    """Every simple command of a line (nested ones included), the words that are
    redirection targets, and a syntax error (None when the line parsed)."""

    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Word] = field(default_factory=list)
    error: str | None = None


def shown(text: str, limit: int = 120) -> str:
    """`text` on one line and at most `limit` characters, for messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["ParsedLine", "SimpleCommand", "Word", "shown"]
