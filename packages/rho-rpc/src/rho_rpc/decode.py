"""Decoding one protocol line: strict UTF-8, standard JSON numbers, bounded batches.

`json.loads` is lenient where the protocol must not be: it guesses UTF-16/32 from bytes,
accepts `NaN` and `Infinity`, turns `1e400` into an infinity that cannot be written back,
keeps the last of a repeated key, and builds every member of a batch before anyone can count
them. Everything decoded here is also scrubbed of lone surrogates, so whatever is echoed back
(an id, a method name, prompt text) can be encoded.

A request object in which some object repeats a key is not decoded as anything: it comes
back as `RepeatedKey`, holding what can still be learnt from it (its id, unless `id` itself
is the repeated key) so that the refusal can be answered with the right id. `-0` decodes as
`NEGATIVE_ZERO`, equal to 0 but telling apart an id that could not be echoed as written.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from json.decoder import JSONDecodeError
from typing import Any

from rho_kernel import scrub_json
from rho_kernel.frontend import RepeatedKeyError, quoted_key, unique_keys

# The decoder's own whitespace pattern, which typeshed does not declare.
WHITESPACE: re.Pattern[str] = json.decoder.WHITESPACE  # type: ignore[attr-defined]

#: Most requests one batch may hold; a larger batch is refused as a whole.
MAX_BATCH = 1000

#: Longest stretch of a rejected number quoted in an error message.
_QUOTED = 24

#: A `\uD800`–`\uDFFF` escape: the only way a surrogate gets into text decoded from UTF-8.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

BOM = "\ufeff"


class ParseError(Exception):
    """The line is not a JSON text this protocol accepts (answered with -32700)."""


class BatchTooLarge(Exception):
    """A batch holds more than the allowed number of requests (answered with -32600)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a batch holds at most {limit} requests")
        self.limit = limit


def _quote(number: str) -> str:
    return number if len(number) <= _QUOTED else number[:_QUOTED] + "…"


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {_quote(text)} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class NegativeZero(int):
    """The integer written `-0`: 0 as a value, but not what `0` would echo as an id."""

    def __repr__(self) -> str:
        return "-0"


#: What `-0` decodes to.
NEGATIVE_ZERO = NegativeZero(0)


def _integer(text: str) -> int:
    return NEGATIVE_ZERO if text == "-0" else int(text)


#: The decoder every protocol line goes through (also used for the id of an oversize line).
STRICT_DECODER = json.JSONDecoder(
    parse_float=_finite_float,
    parse_int=_integer,
    parse_constant=_no_constant,
    object_pairs_hook=unique_keys,
)


@dataclass(frozen=True, slots=True)
class RepeatedKey:
    """A message in which some object holds `key` more than once (it is refused).

    `message` is the message decoded with the last of each repeated key kept, only so that
    its id can be read; `id_repeated` says whether the id itself is ambiguous."""

    message: Any
    key: str
    id_repeated: bool

    @property
    def problem(self) -> str:
        """What is wrong, for the error message."""
        return f"the key {quoted_key(self.key)} appears more than once; send each key once"


class _Recorder:
    """A lenient decoder (the last of a repeated key wins) noting the first repeated key and
    the repeated keys of the object decoded last (the outermost one, once it is done)."""

    def __init__(self) -> None:
        self.first: str | None = None
        self.outermost: set[str] = set()
        self.decoder = json.JSONDecoder(
            parse_float=_finite_float,
            parse_int=_integer,
            parse_constant=_no_constant,
            object_pairs_hook=self._pairs,
        )

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        decoded = dict(pairs)
        self.outermost = set()
        if len(decoded) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.outermost.add(key)
                    self.first = key if self.first is None else self.first
                seen.add(key)
        return decoded


def _member(text: str, index: int) -> tuple[Any, int]:
    """The value at `text[index]` and the index after it; a value repeating a key anywhere
    comes back as `RepeatedKey`."""
    try:
        return STRICT_DECODER.raw_decode(text, index)
    except RepeatedKeyError as exc:
        recorder = _Recorder()
        value, end = recorder.decoder.raw_decode(text, index)
        key = recorder.first if recorder.first is not None else exc.key
        id_repeated = isinstance(value, dict) and "id" in recorder.outermost
        return RepeatedKey(value, key, id_repeated), end


def _scrubbed(message: Any) -> Any:
    """`message` with lone surrogates replaced; two keys of one object that differ only in
    their lone surrogates would become one key, so that too is a `RepeatedKey`."""
    if isinstance(message, RepeatedKey):
        return replace(message, message=scrub_json(message.message), key=scrub_json(message.key))
    collided = _colliding_key(message)
    scrubbed = scrub_json(message)
    return scrubbed if collided is None else RepeatedKey(scrubbed, collided, id_repeated=False)


def _colliding_key(value: Any) -> str | None:
    """A key that two keys of one object in `value` become once scrubbed, else None."""
    if isinstance(value, list):
        return next((k for k in map(_colliding_key, value) if k is not None), None)
    if not isinstance(value, dict):
        return None
    seen: set[str] = set()
    for key in value:
        clean = scrub_json(key)
        if clean in seen:
            return str(clean)
        seen.add(clean)
    return next((k for k in map(_colliding_key, value.values()) if k is not None), None)


def skip_whitespace(text: str, index: int) -> int:
    """The index of the first non-whitespace character (JSON's whitespace) at or after `index`."""
    return WHITESPACE.match(text, index).end()  # type: ignore[union-attr]  # matches "" too


def decode_message(line: bytes, *, max_batch: int = MAX_BATCH) -> Any:
    """The JSON value on `line`, with lone surrogates scrubbed.

    Raises `ParseError` when the line is not strict UTF-8 JSON (NaN, infinities and numbers
    that overflow a double included) and `BatchTooLarge` when it is an array of more than
    `max_batch` members, found without decoding more than `max_batch + 1` of them. A message
    (or batch member) that repeats a key in any of its objects is a `RepeatedKey`.
    """
    text = _utf8(line)
    start = skip_whitespace(text, 0)
    try:
        if text.startswith("[", start):
            message: Any = _decode_batch(text, start, max_batch)
        else:
            message, end = _member(text, start)
            _expect_end(text, end)
        if _SURROGATE_ESCAPE.search(line):
            message = (
                [_scrubbed(item) for item in message]
                if isinstance(message, list)
                else _scrubbed(message)
            )
    except RecursionError:
        raise ParseError("JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and the number checks above
        raise ParseError(_describe(exc)) from None
    return message


def _utf8(line: bytes) -> str:
    # A NUL byte is never valid in JSON text (raw control characters are refused in strings),
    # but UTF-16 and UTF-32 text is full of them: name the likely cause.
    if b"\x00" in line:
        raise ParseError("the line holds NUL bytes; the protocol is UTF-8, not UTF-16 or UTF-32")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(
            f"the protocol is UTF-8, and byte 0x{line[exc.start]:02x} at offset {exc.start} "
            "is not valid UTF-8"
        ) from None
    if text.startswith(BOM):
        raise ParseError("a byte order mark (U+FEFF) is accepted only at the start of the input")
    return text


def _describe(exc: ValueError) -> str:
    if "sys.set_int_max_str_digits" in str(exc):
        return "a number has too many digits"
    return str(exc)


def _decode_batch(text: str, start: int, max_batch: int) -> list[Any]:
    """The members of the array at `text[start]`, decoded one at a time."""
    members: list[Any] = []
    index = skip_whitespace(text, start + 1)
    if text.startswith("]", index):
        _expect_end(text, index + 1)
        return members
    while True:
        member, index = _member(text, index)
        members.append(member)
        if len(members) > max_batch:
            raise BatchTooLarge(max_batch)
        index = skip_whitespace(text, index)
        if text.startswith(",", index):
            index = skip_whitespace(text, index + 1)
        elif text.startswith("]", index):
            _expect_end(text, index + 1)
            return members
        else:
            raise JSONDecodeError("Expecting ',' delimiter", text, index)


def _expect_end(text: str, index: int) -> None:
    end = skip_whitespace(text, index)
    if end != len(text):
        raise JSONDecodeError("Extra data", text, end)


__all__ = [
    "BOM",
    "MAX_BATCH",
    "NEGATIVE_ZERO",
    "STRICT_DECODER",
    "BatchTooLarge",
    "NegativeZero",
    "ParseError",
    "RepeatedKey",
    "decode_message",
    "skip_whitespace",
]
