"""Splitting a project document's text into chunks, the units the knowledge base stores.

Markdown (`.md`, `.markdown`) is cut into one chunk per section at ATX (`#`..`######`) and
setext (`===`/`---` underline) headings, never inside a fenced code block; YAML front
matter is left out. Plain text is one chunk per file. Any chunk longer than
`MAX_CHUNK_CHARS` is split at blank lines, then at line ends, and a single longer line is
cut hard; the parts get titles ending in ` (part N)`.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

#: The longest chunk body, in characters.
MAX_CHUNK_CHARS = 4000

#: File suffixes (lower case) chunked as Markdown and as plain text.
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".txt"})

#: Separator between the file's path and the headings in a chunk title.
TITLE_SEPARATOR = " › "

#: Longest heading text kept in a title; a longer one is cut with "…".
MAX_HEADING_CHARS = 200

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_LIST_OR_QUOTE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|^ {0,3}>")
_FRONT_MATTER_END = re.compile(r"^(---|\.\.\.)[ \t]*$")


@dataclass(frozen=True)
class Chunk:
    """One piece of a document: its title (file path and heading path) and its text."""

    title: str
    body: str


@dataclass
class _Section:
    """Lines of one section while scanning: the heading path and where the body starts."""

    path: tuple[str, ...]
    lines: list[str]
    heading_lines: int


def chunk_file(rel_path: str, text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """Chunk `text` as Markdown if `rel_path` has a Markdown suffix, else as plain text."""
    if PurePosixPath(rel_path).suffix.lower() in MARKDOWN_SUFFIXES:
        return chunk_markdown(rel_path, text, max_chars)
    return chunk_text(rel_path, text, max_chars)


def chunk_text(rel_path: str, text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """One chunk of the whole text titled `rel_path`, split into parts when too long.

    Blank text gives no chunk.
    """
    return _sized(rel_path, _lines(text), max_chars)


def chunk_markdown(rel_path: str, text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """One chunk per section of a Markdown document (see the module docstring).

    Text before the first heading is titled `rel_path`; a section is titled
    `rel_path › Heading › Subheading`. Its body starts with its heading line. Sections with
    nothing under the heading are left out.
    """
    chunks: list[Chunk] = []
    for section in _sections(_skip_front_matter(_lines(text))):
        if not "".join(section.lines[section.heading_lines :]).strip():
            continue
        title = TITLE_SEPARATOR.join((rel_path, *section.path))
        chunks.extend(_sized(title, section.lines, max_chars))
    return chunks


def _lines(text: str) -> list[str]:
    """The lines of `text`, any line ending accepted, a leading byte order mark dropped."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")


def _skip_front_matter(lines: list[str]) -> list[str]:
    """`lines` without a leading YAML front matter block (`---` … `---` or `...`)."""
    if not lines or lines[0].rstrip() != "---":
        return lines
    for index in range(1, len(lines)):
        if _FRONT_MATTER_END.match(lines[index]):
            return lines[index + 1 :]
    return lines


def _sections(lines: list[str]) -> list[_Section]:
    """Cut `lines` at headings outside fenced code blocks."""
    stack: list[tuple[int, str]] = []
    current = _Section((), [], 0)
    sections = [current]
    fence: tuple[str, int] | None = None
    for line in lines:
        if fence is not None:
            if _closes(line, fence):
                fence = None
            current.lines.append(line)
            continue
        fence = _opens(line)
        heading = None if fence else _heading(line, current)
        if heading is None:
            current.lines.append(line)
            continue
        level, title, heading_lines = heading
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        # A setext heading's text line moves from the section above to the new one.
        opening = [current.lines.pop(), line] if heading_lines == 2 else [line]
        current = _Section(tuple(t for _, t in stack if t), opening, heading_lines)
        sections.append(current)
    return sections


def _heading(line: str, current: _Section) -> tuple[int, str, int] | None:
    """(level, title, lines it spans) if `line` makes a heading, else None."""
    match = _ATX.match(line)
    if match:
        return len(match.group(1)), _title(match.group(2) or ""), 1
    match = _SETEXT.match(line)
    if match and len(current.lines) > current.heading_lines:
        previous = current.lines[-1]
        if _setext_text(previous):
            return (1 if match.group(1)[0] == "=" else 2), _title(previous), 2
    return None


def _setext_text(line: str) -> bool:
    """Whether `line` can be the text of a setext heading (a plain paragraph line)."""
    if not line.strip() or line.startswith("    ") or line.startswith("\t"):
        return False
    if _LIST_OR_QUOTE.match(line):
        return False
    return not (_ATX.match(line) or _SETEXT.match(line) or _FENCE_OPEN.match(line))


def _title(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_HEADING_CHARS:
        return text[: MAX_HEADING_CHARS - 1] + "…"
    return text


def _opens(line: str) -> tuple[str, int] | None:
    """The fence (character, length) that `line` opens, or None."""
    match = _FENCE_OPEN.match(line)
    if match is None:
        return None
    marker = match.group(1)
    if marker[0] == "`" and "`" in match.group(2):
        return None  # a backtick fence's info string cannot hold a backtick
    return marker[0], len(marker)


def _closes(line: str, fence: tuple[str, int]) -> bool:
    """Whether `line` closes `fence`: the same character, at least as many, nothing after."""
    char, length = fence
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return False
    run = len(stripped) - len(stripped.lstrip(char))
    return run >= length and not stripped[run:].strip()


def _sized(title: str, lines: list[str], max_chars: int) -> list[Chunk]:
    """`lines` as one chunk titled `title`, or as `title (part N)` parts when too long."""
    body = "\n".join(lines).strip()
    if not body:
        return []
    if len(body) <= max_chars:
        return [Chunk(title, body)]
    parts = _split(body, max_chars)
    return [Chunk(f"{title} (part {n})", part) for n, part in enumerate(parts, 1)]


def _split(body: str, max_chars: int) -> list[str]:
    """Pack `body` into pieces of at most `max_chars`: whole paragraphs when they fit,
    else whole lines, else hard cuts of a line."""
    pieces: list[tuple[str, str]] = []  # (separator before it, text)
    for paragraph in re.split(r"\n[ \t]*\n", body):
        if len(paragraph) <= max_chars:
            pieces.append(("\n\n", paragraph))
            continue
        separator = "\n\n"
        for line in paragraph.split("\n"):
            for start in range(0, len(line), max_chars):
                pieces.append((separator, line[start : start + max_chars]))
                separator = ""
            separator = separator or "\n"
    return _pack(pieces, max_chars)


def _pack(pieces: list[tuple[str, str]], max_chars: int) -> list[str]:
    """Join consecutive pieces (each at most `max_chars`) while the result fits."""
    parts: list[str] = []
    current = ""
    for separator, text in pieces:
        if not text.strip():
            continue
        joined = f"{current}{separator}{text}" if current else text.strip()
        if len(joined) <= max_chars:
            current = joined
        else:
            parts.append(current.strip())
            current = text.strip()
    if current.strip():
        parts.append(current.strip())
    return parts


__all__ = [
    "MARKDOWN_SUFFIXES",
    "MAX_CHUNK_CHARS",
    "TEXT_SUFFIXES",
    "TITLE_SEPARATOR",
    "Chunk",
    "chunk_file",
    "chunk_markdown",
    "chunk_text",
]
