"""What is wrong with a session line that cannot be read, said in rho's words.

A load warning names the line, what it holds (`Message entry`, `Resolution line` …), the
field at fault as it is spelled in the file, and the problem (`role must be 'system', 'user',
'assistant' or 'tool' (found "wizard")`), never a validation library's report. Every piece
of the file quoted here is cut short and escaped, so a hostile line cannot forge output.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

QUOTE_CHARS = 40
"""The longest piece of a line quoted in a description."""

# Members of a union show in an error's location under names like these, not as fields.
_UNION_TAGS = frozenset({"str", "int", "float", "bool", "none", "dict", "list"})

_PROBLEMS: dict[str, str] = {
    "missing": "is missing",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dataclass_type": "must be an object",
    "none_required": "must be null",
    "extra_forbidden": "is not allowed",
    "recursion_loop": "is nested too deeply",
    "string_too_long": "is too long",
    "too_long": "is too long",
    "string_too_short": "is too short",
    "too_short": "is too short",
}


def quote(value: Any, limit: int = QUOTE_CHARS) -> str:
    """A short, escaped JSON rendering of a value from the file (one line, ASCII only)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):
        text = json.dumps(str(value), ensure_ascii=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote_id(value: str) -> str:
    """An entry id from the file, shown as it is when it is plain, else quoted and escaped."""
    if value.isascii() and value.isprintable() and 0 < len(value) <= 16 and " " not in value:
        return value
    return quote(value, 24)


def describe(data: bytes | str, error: BaseException) -> str:
    """What is wrong with the line `data`, which failed with `error` (one line)."""
    if isinstance(error, RecursionError):
        return "the line is nested too deeply"
    if isinstance(error, UnicodeDecodeError):
        return "the line is not UTF-8 text"
    if isinstance(error, json.JSONDecodeError):
        reason = error.msg[:1].lower() + error.msg[1:]
        return f"the line is not valid JSON ({reason} at column {error.colno})"
    if not isinstance(error, ValidationError):
        if isinstance(error, ValueError) and str(error).startswith("line "):
            return "the " + str(error)  # parse_line's own words
        return "the line cannot be read"
    record = _record(data)
    kind = line_kind(record)
    return f"{kind}: {_validation_problem(error, _payload_tag(record))}"


def line_kind(record: Any) -> str:
    """What a line holds: `Message entry`, `entry`, `Resolution line`, `header` …"""
    if not isinstance(record, dict):
        return "line"
    kind = record.get("type")
    if kind == "Entry":
        tag = _payload_tag(record)
        return f"{tag} entry" if tag is not None else "entry"
    if kind == "Resolution":
        return "Resolution line"
    if kind == "Header":
        return "header"
    return f"{quote(kind)} line"


def _record(data: bytes | str) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _payload_tag(record: Any) -> str | None:
    """The payload's tag (`Message`, `Compaction` …) when the line has a tagged payload."""
    payload = record.get("payload") if isinstance(record, dict) else None
    if isinstance(payload, dict) and len(payload) == 1:
        (tag,) = payload
        return tag if tag.isidentifier() and len(tag) <= 40 else quote(tag)
    return None


def _validation_problem(error: ValidationError, tag: str | None) -> str:
    """The deepest problem of a validation error; a union's alternatives joined by `or`."""
    found = [(_field(detail["loc"], tag), detail) for detail in error.errors()]
    if not found:
        return "cannot be read"
    depth = max(len(loc) for loc, _ in found)
    deepest = [(loc, detail) for loc, detail in found if len(loc) == depth]
    loc = deepest[0][0]
    problems: list[str] = []
    for other, detail in deepest:
        text = _problem(detail)
        if other == loc and text not in problems:
            problems.append(text)
    subject = _spell(loc)
    text = " or ".join(problems).replace(" or must be ", " or ")
    detail = deepest[0][1]
    if detail["type"] != "missing" and "input" in detail:
        text += f" (found {quote(detail['input'])})"
    distinct = {(other, _problem(detail)) for other, detail in found}
    more = len(distinct) - len(problems)
    if more > 0:
        text += f"; and {more} more problem{'s' if more > 1 else ''}"
    return f"{subject} {text}" if subject else f"the line {text}"


def _field(loc: tuple[int | str, ...], tag: str | None) -> tuple[int | str, ...]:
    """The error's location as the file spells it: union members dropped, and a payload's
    fields named from inside its body."""
    kept = tuple(
        part
        for part in loc
        if isinstance(part, int) or (part not in _UNION_TAGS and "[" not in part)
    )
    if kept[:1] == ("payload",) and len(kept) > 1:
        rest = kept[1:]
        if tag == "Message" and rest[:1] == ("message",):
            rest = rest[1:]
        return rest or ("payload",)
    return kept


def _spell(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            shown = part if part.isidentifier() and len(part) <= 40 else quote(part)
            text += f".{shown}" if text else shown
    return text


def _problem(detail: Any) -> str:
    kind = detail["type"]
    if kind == "value_error":
        cause = (detail.get("ctx") or {}).get("error")
        if cause is None:
            return "is not valid"
        text = _one_line(str(cause))
        return text if text.startswith("must ") else f"is not valid: {text}"
    if kind in ("literal_error", "enum"):
        expected = (detail.get("ctx") or {}).get("expected")
        return f"must be {_one_line(str(expected))}" if expected else "is not one of the choices"
    return _PROBLEMS.get(kind, "has a value this version cannot read")


def _one_line(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    flat = "".join(char if char.isprintable() else f"\\x{ord(char):02x}" for char in flat)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["QUOTE_CHARS", "describe", "line_kind", "quote", "quote_id"]
