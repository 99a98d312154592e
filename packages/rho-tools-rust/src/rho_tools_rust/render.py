"""The model-facing text of a list of diagnostics: counts, then one line per diagnostic
grouped per file, errors first, with short `help:`/`note:` lines under each."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from rho_tools_rust.diagnostics import Diagnostic, Note, Suggestion

#: Diagnostics shown before the rest is summed up with a count.
DEFAULT_LIMIT = 50
_NOTE_CHARS = 160
_REPLACEMENT_CHARS = 60
#: Notes that cost tokens and tell the model nothing it can act on.
_BORING = re.compile(r"^(`#\[\w+\(.*\)\]`.* on by default|for further information visit )")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class Leveled(Protocol):
    """What counting needs of a diagnostic: its level."""

    @property
    def level(self) -> str: ...

    @property
    def is_error(self) -> bool: ...


def counts(diagnostics: Sequence[Leveled]) -> tuple[int, int]:
    """(errors, warnings) among `diagnostics`."""
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = sum(1 for d in diagnostics if d.level == "warning")
    return errors, warnings


def summary(tool: str, diagnostics: Sequence[Leveled]) -> str:
    """`cargo_check: 2 errors, 1 warning` (or `…: no errors or warnings`)."""
    errors, warnings = counts(diagnostics)
    if not errors and not warnings:
        return f"{tool}: no errors or warnings"
    return f"{tool}: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"


def _short(text: str, limit: int) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit and "\n" not in text.strip() else line[: limit - 1] + "…"


def _headline(diagnostic: Diagnostic) -> str:
    level = f"{diagnostic.level}[{diagnostic.code}]" if diagnostic.code else diagnostic.level
    span = diagnostic.span
    place = f"{span.file}:{span.line}:{span.column} " if span is not None else ""
    text = f"{place}{level}: {_short(diagnostic.message, 240)}"
    if span is not None and span.label:
        text += f" — {_short(span.label, 160)}"
    return text


def _note_line(note: Note, suggestions: Sequence[Suggestion]) -> str | None:
    if _BORING.match(note.message):
        return None
    text = f"    {note.level}: {_short(note.message, _NOTE_CHARS)}"
    for suggestion in suggestions:
        if note.span is not None and suggestion.span == note.span:
            replacement = suggestion.replacement
            if "\n" not in replacement and len(replacement) <= _REPLACEMENT_CHARS:
                text += f": `{replacement}`"
            break
    return text


def diagnostic_lines(diagnostic: Diagnostic) -> list[str]:
    """One diagnostic as the model reads it: its headline (`file:line:col level[code]: message
    — label`), then its `help:`/`note:` lines, indented."""
    lines = [_headline(diagnostic)]
    for note in diagnostic.notes:
        if (line := _note_line(note, diagnostic.suggestions)) is not None:
            lines.append(line)
    return lines


def _rank(diagnostic: Diagnostic) -> int:
    return 0 if diagnostic.is_error else 1 if diagnostic.level == "warning" else 2


def render(tool: str, diagnostics: Sequence[Diagnostic], limit: int = DEFAULT_LIMIT) -> str:
    """The summary line, then at most `limit` diagnostics (errors first) grouped per file,
    then `… and N more (fix these first)` when some were left out."""
    ordered = sorted(diagnostics, key=_rank)
    shown = ordered[:limit]
    groups: dict[str, list[Diagnostic]] = {}
    for diagnostic in shown:
        groups.setdefault(diagnostic.span.file if diagnostic.span else "", []).append(diagnostic)
    parts = [summary(tool, diagnostics)]
    for group in groups.values():
        parts.append("\n".join(line for d in group for line in diagnostic_lines(d)))
    if len(ordered) > limit:
        parts.append(f"… and {len(ordered) - limit} more (fix these first)")
    return "\n\n".join(parts)


__all__ = ["DEFAULT_LIMIT", "counts", "diagnostic_lines", "render", "summary"]
