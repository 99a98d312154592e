"""Config errors in plain words: `<file>: <dotted.key>: <problem>`, from pydantic's errors."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rho_kernel.config.fast_path import constructed

_Model = TypeVar("_Model", bound=BaseModel)


class ConfigError(Exception):
    """A configuration file cannot be read or is invalid.

    `file` is the offending file (None for the merged result), `key` the dotted key path
    (e.g. `agent.max_iterations`, `providers[1].api`; None for file-level problems) and
    `problem` a plain-words description. `str(error)` is `"<file>: <key>: <problem>"`.
    """

    def __init__(self, file: Path | None, key: str | None, problem: str) -> None:
        self.file = file
        self.key = key
        self.problem = problem
        parts = [str(part) for part in (file, key) if part is not None]
        super().__init__(": ".join([*parts, problem]))


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def is_bare_key(name: str) -> bool:
    """Whether `name` is a bare TOML key (ASCII letters, digits, `_` and `-`)."""
    return bool(_BARE_KEY.match(name))


def key_path(loc: tuple[Any, ...]) -> str:
    """`("providers", 1, "api")` → `providers[1].api`; other keys are quoted and escaped as
    TOML basic strings, so a hostile key cannot break the line it is reported on."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        name = part if is_bare_key(part) else json.dumps(part)
        text = f"{text}.{name}" if text else name
    return text


def _describe(value: Any) -> str:
    """A TOML-flavoured rendering of an offending value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "an array",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
}

_BOUNDS = {
    "greater_than_equal": ("at least", "ge"),
    "greater_than": ("greater than", "gt"),
    "less_than_equal": ("at most", "le"),
    "less_than": ("less than", "lt"),
}


def _problem(error: Mapping[str, Any]) -> str:
    """One pydantic error in plain words."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    value = error.get("input")
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_describe(value)}"
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"must be one of: {', '.join(choices)} (got {_describe(value)})"
    if kind in _BOUNDS:
        words, name = _BOUNDS[kind]
        return f"must be {words} {ctx.get(name)}, got {_describe(value)}"
    if kind == "missing":
        return "is required"
    message = str(error.get("msg", kind))
    return message[:1].lower() + message[1:]


#: How pydantic names the members of a union in an error's location (`literal[...]` too).
_UNION_MEMBERS = frozenset({"bool", "str", "int", "float"})


def _is_member_tag(part: Any) -> bool:
    return isinstance(part, str) and (part in _UNION_MEMBERS or part.startswith("literal["))


def _union_problem(errors: list[Any]) -> tuple[tuple[Any, ...], str] | None:
    """A value no member of its union takes (`true or false, or one of: …`): its location
    and one problem for all the members' errors; None for errors of anything else."""
    if len(errors) < 2 or len({tuple(error["loc"][:-1]) for error in errors}) != 1:
        return None
    wanted: list[str] = []
    for error in errors:
        if not _is_member_tag(error["loc"][-1]):
            return None
        if error["type"] == "literal_error":
            choices = re.findall(r"'([^']*)'", str((error.get("ctx") or {}).get("expected", "")))
            wanted.append(f"one of: {', '.join(choices)}")
        elif error["type"] in _EXPECTED:
            wanted.append(_EXPECTED[error["type"]])
        else:
            return None
    wanted.sort(key=lambda words: words.startswith("one of"))  # "true or false, or one of: …"
    got = _describe(errors[0].get("input"))
    return tuple(errors[0]["loc"][:-1]), f"expected {', or '.join(wanted)}, got {got}"


def _config_error(
    file: Path | None, errors: list[Any], prefix: tuple[Any, ...] = ()
) -> ConfigError:
    union = _union_problem(errors)
    if union is not None:
        return ConfigError(file, key_path((*prefix, *union[0])) or None, union[1])
    first = errors[0]
    problem = _problem(first)
    if len(errors) > 1:
        more = len(errors) - 1
        problem += f" (and {more} more problem{'s' if more > 1 else ''})"
    key = key_path((*prefix, *first["loc"])) or None
    return ConfigError(file, key, problem)


def _merges_field_wise(error: Mapping[str, Any]) -> bool:
    """A missing field outside any array of tables: the other file may still set it."""
    return error["type"] == "missing" and not any(isinstance(p, int) for p in error["loc"])


def _toml_scalar(value: Any) -> str:
    """TOML's date and time values, in JSON: as ISO 8601 text."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a TOML value")


def _validated(model: type[_Model], data: Any) -> _Model:
    """Validate a parsed TOML value strictly, with JSON's rules: a TOML file, like a JSON one,
    spells a path, an enum value or a date as a string and a tuple as an array, but "32"
    is not an integer and 1 is not a boolean."""
    plain = constructed(model, data)  # no validator built for a plainly valid table
    if plain is not None:
        return plain
    text = json.dumps(data, default=_toml_scalar)
    return model.model_validate_json(text, strict=True)


def validate_table(
    model: type[_Model], data: Any, file: Path | None, *, at: tuple[Any, ...] = ()
) -> _Model:
    """`data` validated strictly (TOML is typed: "32" is not an integer) as `model`.

    Raises `ConfigError` naming `file` and the dotted key, prefixed with `at` (where the table
    sits in the file, e.g. `("greeter",)` for a plugin section).
    """
    try:
        return _validated(model, data)
    except ValidationError as exc:
        raise _config_error(file, exc.errors(), at) from None


def check_file_table(
    model: type[BaseModel], data: Any, file: Path, *, at: tuple[Any, ...] = ()
) -> None:
    """Validate one file's table before the merge, as `validate_table` does.

    A required field the table lacks is no error here: the other file may set it, and the
    merged result is validated again.
    """
    try:
        _validated(model, data)
    except ValidationError as exc:
        errors = [error for error in exc.errors() if not _merges_field_wise(error)]
        if errors:
            raise _config_error(file, errors, at) from None


__all__ = ["ConfigError", "check_file_table", "is_bare_key", "key_path", "validate_table"]
