"""Key material by its shape: base64 lines as key files wrap them, with no armour in sight.

A tool that shows part of a key file (`sed -n 10,16p key.pem`, `tail -n +5 key.pem | head`,
`cut -c1-20 key.pem`) shows neither its BEGIN nor its END line, so the block rule cannot see
a key there. These lines are key material by their shape:

- A *body line* is nothing but base64 (`A-Za-z0-9+/`, up to two `=` at its end) after an
  optional row prefix: indentation, a diff's `+`/`-`, a line number as `cat -n`, `grep -n`
  and rho's `read_file` write it (`12:`, `12-`, `12\\t`, `12#ABCD:`, `file:12:`).
- A run of body lines of key width (`KEY_WIDTHS`: 64 for PEM, PGP and PuTTY, 70 for
  OpenSSH), the first and the last maybe shorter (`tail -c`, `head -c`), is key material;
  so is one such line alone.
- A run of at least `MIN_COLUMN_RUN` body lines of one other width between `MIN_WIDTH` and
  `MAX_WIDTH` (a key cut in columns), the last maybe shorter, except `MIME_WIDTH`.
- A single body line of `MIN_LONE_LINE` characters or more (a key body joined on one line).
- Body lines just before a private key's END line (the short last line of a key).

Each needs upper- and lower-case letters and digits among its characters (a hex digest, a
base32 string, a word in capitals is no key). A run under a public armour (`BEGIN
CERTIFICATE`, `BEGIN PUBLIC KEY`, `BEGIN PGP SIGNATURE`, …) is left alone. Each line found
becomes its row prefix and `[REDACTED]`, so the text keeps its lines.

Live output is redacted as it arrives: `ShapeState` carries a run from one piece of a
stream to the next, and the stream holds trailing body lines back (`trailing_body_lines`)
until it knows how their run goes on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rho_kernel.security.redaction import REDACTED

#: The widths key files wrap their base64 at.
KEY_WIDTHS = frozenset({64, 70})
#: Narrow runs (a key cut in columns) count from this width …
MIN_WIDTH = 8
#: … to this one, …
MAX_WIDTH = 100
#: … and from this many full lines; MIME wraps at this width (mail, `base64`, data URIs).
MIN_COLUMN_RUN = 3
MIME_WIDTH = 76
#: A body line alone, this long, is key material whatever its width.
MIN_LONE_LINE = 200

_LEAD = (
    r"[ \t]*+(?:[+\-] ?)?"  # indentation, a diff's marker
    r"(?:[0-9]++(?:#[A-Z]{4})?[:\-\t] ?)?+[ \t]*+"  # a line number
)
_CONTENT = (
    rf"(?P<lead>{_LEAD})(?:(?P<body>[A-Za-z0-9+/]{{8,}}+={{0,2}}+)"
    r"|-----(?P<edge>BEGIN|END) (?P<label>[A-Z0-9 ]{1,60}?)-----)[ \t]*+\r?"
)
#: A body or armour line, found after the line break before it (a literal start is searched
#: for fast): the text is searched with a line break put in front.
_LINE = re.compile(rf"\n{_CONTENT}(?=\n|\Z)")
_ONE_LINE = re.compile(_CONTENT)
_UPPER = re.compile(r"[A-Z]")
_LOWER = re.compile(r"[a-z]")
_DIGIT = re.compile(r"[0-9]")


@dataclass(slots=True)
class _Line:
    """A body line: where its base64 starts and ends, and its widths (two when a leading `+`
    may be a diff's marker or the first base64 character)."""

    start: int
    end: int
    widths: tuple[int, ...]


@dataclass(slots=True)
class _Run:
    """Adjacent body lines of one width, the last maybe shorter."""

    width: int
    public: bool  # under a public armour
    lines: list[_Line] = field(default_factory=list)
    full: int = 0  # lines of the run's width
    closed: bool = False  # its shorter last line has come
    hidden: bool = False  # decided: key material (a stream's later lines follow it)
    classes: int = 0  # bit 1: upper case, 2: lower case, 4: digit


@dataclass(slots=True)
class ShapeState:
    """What a stream's earlier pieces leave open: a public armour, a run of body lines."""

    public: bool = False
    run: _Run | None = None


def redact_key_shapes(text: str, state: ShapeState | None = None) -> str:
    """`text` with every body line that is key material by its shape redacted (its row
    prefix kept). Pass the `state` of a stream to carry armour and runs from one of its
    pieces to the next (each piece ending with a line break); without one, `text` is whole."""
    stream = state is not None
    state = state if state is not None else ShapeState()
    hidden: list[tuple[int, int]] = []
    padded = "\n" + text  # positions below are in `padded`: one more than in `text`
    last_end = 0  # where the last line seen ends: a run open before this piece goes on
    for match in _LINE.finditer(padded):
        if match.start() != last_end:
            _close(state, hidden, before_end=False)
        if match.group("edge"):
            _armour(state, hidden, match.group("edge"), match.group("label"))
        else:
            _body(state, hidden, match)
        last_end = match.end()
    if not stream or len(padded.rstrip("\n")) > last_end:
        _close(state, hidden, before_end=False)  # the run does not reach the end of `text`
    elif state.run is not None:
        _settle(state.run, hidden)  # open at the end: what is known now decides
    return _replace(text, hidden) if hidden else text


def trailing_body_lines(text: str, limit: int = 64) -> int:
    """Where the body lines at the end of `text` (which ends with a line break) start, or
    `len(text)` when its last line is no body line: a stream holds them back until it knows
    how their run ends. At most `limit` lines are held: past that, all but the last
    `MIN_COLUMN_RUN` are released (enough of the run is known then to judge it)."""
    start = len(text)
    starts: list[int] = []
    while start and len(starts) <= limit:
        previous = text.rfind("\n", 0, start - 1) + 1
        match = _ONE_LINE.fullmatch(text, previous, start - 1)
        if match is None or match.group("body") is None:
            break
        start = previous
        starts.append(start)
    if len(starts) > limit:
        return starts[MIN_COLUMN_RUN - 1]
    return start


def public_label(label: str) -> bool:
    """Whether an armour's label (`CERTIFICATE`, `RSA PRIVATE KEY`) names public material:
    nothing private, secret or a key that is not a public one."""
    return not (
        "PRIVATE" in label or "SECRET" in label or ("KEY" in label and "PUBLIC" not in label)
    )


def _armour(state: ShapeState, hidden: list[tuple[int, int]], edge: str, label: str) -> None:
    public = public_label(label)
    _close(state, hidden, before_end=edge == "END" and not public)
    state.public = edge == "BEGIN" and public


def _body(state: ShapeState, hidden: list[tuple[int, int]], match: re.Match[str]) -> None:
    body = match.group("body")
    width = len(body.rstrip("="))
    widths = (width, width + 1) if match.group("lead").endswith("+") else (width,)
    line = _Line(match.start("body"), match.end("body"), widths)
    run = state.run
    if run is not None and not run.closed:
        if run.width in widths:
            _extend(run, line, body, full=True)
            return
        if max(widths) < run.width:
            _extend(run, line, body, full=False)
            run.closed = True
            return
        if len(run.lines) == 1 and widths[-1] in KEY_WIDTHS:  # a cut first line (`tail -c`)
            run.width, run.full = widths[-1], 0
            _extend(run, line, body, full=True)
            return
    _close(state, hidden, before_end=False)
    state.run = _Run(width=widths[-1] if widths[-1] in KEY_WIDTHS else width, public=state.public)
    _extend(state.run, line, body, full=True)


def _extend(run: _Run, line: _Line, body: str, *, full: bool) -> None:
    if len(line.widths) == 2 and (run.width == line.widths[1] or not full):
        line.start -= 1  # the `+` before it is its first character, not a diff's marker
    run.lines.append(line)
    run.full += full
    if run.classes != 7:
        run.classes |= (
            (1 if _UPPER.search(body) else 0)
            | (2 if _LOWER.search(body) else 0)
            | (4 if _DIGIT.search(body) else 0)
        )


def _close(state: ShapeState, hidden: list[tuple[int, int]], *, before_end: bool) -> None:
    """End the open run: redact it if it is key material, or if a private key's END line
    follows it (the body's last lines)."""
    run, state.run = state.run, None
    if run is None:
        return
    if before_end:
        run.hidden = True
    _settle(run, hidden)


def _settle(run: _Run, hidden: list[tuple[int, int]]) -> None:
    """Redact the lines of `run` seen so far if it is key material, and let them go (the
    decision stays with the run)."""
    if not run.hidden:
        run.hidden = _key_shaped(run)
    if run.hidden:
        hidden += [(line.start, line.end) for line in run.lines]
    run.lines = []


def _key_shaped(run: _Run) -> bool:
    if run.classes != 7 or run.public:
        return False
    if run.width in KEY_WIDTHS or run.width >= MIN_LONE_LINE:
        return True
    narrow = MIN_WIDTH <= run.width <= MAX_WIDTH and run.width != MIME_WIDTH
    return narrow and run.full >= MIN_COLUMN_RUN


def _replace(text: str, hidden: list[tuple[int, int]]) -> str:
    out: list[str] = []
    position = 0
    for start, end in sorted(hidden):  # positions in `text` with a line break in front
        out.append(text[position : start - 1])
        out.append(REDACTED)
        position = end - 1
    out.append(text[position:])
    return "".join(out)


__all__ = [
    "KEY_WIDTHS",
    "MIME_WIDTH",
    "MIN_COLUMN_RUN",
    "MIN_LONE_LINE",
    "ShapeState",
    "public_label",
    "redact_key_shapes",
    "trailing_body_lines",
]
