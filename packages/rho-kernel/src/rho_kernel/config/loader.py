"""Loading `~/.rho/config.toml` and `<root>/.rho/config.toml` into one `RhoConfig`.

Both files are optional. Each file is parsed and validated on its own (so an error names the
file it is in), then the raw tables are merged (project over user, see `merge_config_dicts`)
and the result is validated once more. Unknown keys are ignored for compatibility, but each
one is reported through `warn` so that a typo does not go unnoticed.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
import sys
import tomllib
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from rho_kernel.config.model import ExtensionsConfig, RhoConfig

Warn = Callable[[str], None]


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


# ── locations ───────────────────────────────────────────────────────────────


def user_config_path(home: Path | None = None) -> Path:
    """`<home>/.rho/config.toml`; home defaults to $HOME, then $USERPROFILE, then /tmp."""
    if home is None:
        env_home = os.environ.get("HOME") or os.environ.get("USERPROFILE")
        home = Path(env_home) if env_home else Path("/tmp")
    return home / ".rho" / "config.toml"


def project_config_path(root: Path) -> Path:
    """`<root>/.rho/config.toml`."""
    return root / ".rho" / "config.toml"


# ── merging ─────────────────────────────────────────────────────────────────

#: Top-level tables the project replaces wholesale instead of merging field by field.
_REPLACED_TABLES = frozenset({"approval"})
#: Keys of `[extensions]` the project replaces wholesale (`defaults` merges field-wise).
_REPLACED_EXTENSION_KEYS = frozenset({"enabled", "disabled", "per_extension"})


def _merge_tables(user: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, Any]:
    """Field-wise recursive merge: tables merge, everything else (lists too) is replaced."""
    merged = copy.deepcopy(dict(user))
    for key, value in project.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_tables(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def provider_key(entry: Mapping[str, Any]) -> str | None:
    """The name a `[[providers]]` entry merges by: `name`, else `preset`, else `endpoint`."""
    for field in ("name", "preset", "endpoint"):
        value = entry.get(field)
        if isinstance(value, str) and value:
            return value
    return None


def _merge_providers(user: list[Any], project: list[Any]) -> list[Any]:
    merged = copy.deepcopy(user)
    for entry in project:
        key = provider_key(entry) if isinstance(entry, dict) else None
        for index, existing in enumerate(merged):
            if key is not None and isinstance(existing, dict) and provider_key(existing) == key:
                merged[index] = copy.deepcopy(entry)
                break
        else:
            merged.append(copy.deepcopy(entry))
    return merged


def _model_key(entry: Any) -> str | None:
    """The id a `[[models]]` entry merges by, or None when it has none."""
    if isinstance(entry, dict):
        value = entry.get("id")
        if isinstance(value, str) and value:
            return value
    return None


def _merge_models(user: list[Any], project: list[Any]) -> list[Any]:
    """`[[models]]` merge by `id`: the project's entries for an id replace all of the user's.

    They take the place of the user's first entry for that id; entries with new ids are
    appended in project order.
    """
    by_id: dict[str, list[Any]] = {}
    for entry in project:
        key = _model_key(entry)
        if key is not None:
            by_id.setdefault(key, []).append(entry)
    merged: list[Any] = []
    placed: set[str] = set()
    for entry in user:
        key = _model_key(entry)
        if key is not None and key in by_id:
            if key not in placed:
                merged.extend(copy.deepcopy(by_id[key]))
                placed.add(key)
            continue
        merged.append(copy.deepcopy(entry))
    for entry in project:
        key = _model_key(entry)
        if key is None or key not in placed:
            merged.append(copy.deepcopy(entry))
    return merged


def _merge_extensions(user: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(dict(user))
    for key, value in project.items():
        current = merged.get(key)
        if key in _REPLACED_EXTENSION_KEYS:
            merged[key] = copy.deepcopy(value)
        elif isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_tables(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def merge_config_dicts(user: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    """Merge two raw config tables, the project winning; neither input is modified.

    - tables merge field by field, recursively; scalars and lists are replaced;
    - `[[providers]]` merge by name (`name`, else `preset`, else `endpoint`): a project entry
      replaces the user entry of the same name entirely, new names are appended, user order
      is kept;
    - `[[models]]` merge by `id`: the project's entries for an id replace the user's entries
      for it (at the position of the first), new ids are appended;
    - `[approval]` is replaced wholesale;
    - `[extensions]`: `defaults` merges field by field; `enabled`, `disabled` and
      `per_extension` are replaced wholesale.
    """
    merged = copy.deepcopy(user)
    for key, value in project.items():
        current = merged.get(key)
        if key == "providers" and isinstance(current, list) and isinstance(value, list):
            merged[key] = _merge_providers(current, value)
        elif key == "models" and isinstance(current, list) and isinstance(value, list):
            merged[key] = _merge_models(current, value)
        elif key == "extensions" and isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_extensions(current, value)
        elif key not in _REPLACED_TABLES and isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_tables(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


# ── reading and validating ──────────────────────────────────────────────────


def _read_toml(path: Path) -> dict[str, Any] | None:
    """The parsed file, or None when it does not exist."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise ConfigError(path, None, "is a directory, expected a TOML file") from None
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"is not valid UTF-8 (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"invalid TOML: {exc}") from None


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key_path(loc: tuple[Any, ...]) -> str:
    """`("providers", 1, "api")` → `providers[1].api`; odd keys are quoted as in TOML."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        name = part if _BARE_KEY.match(part) else '"' + part.replace('"', '\\"') + '"'
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
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "greater_than": ("greater than", "gt"),
        "less_than_equal": ("at most", "le"),
        "less_than": ("less than", "lt"),
    }
    if kind in bounds:
        words, name = bounds[kind]
        return f"must be {words} {ctx.get(name)}, got {_describe(value)}"
    if kind == "missing":
        return "is required"
    message = str(error.get("msg", kind))
    return message[:1].lower() + message[1:]


def _config_error(
    file: Path | None, exc: ValidationError, prefix: tuple[Any, ...] = ()
) -> ConfigError:
    errors = exc.errors()
    first = errors[0]
    problem = _problem(first)
    if len(errors) > 1:
        more = len(errors) - 1
        problem += f" (and {more} more problem{'s' if more > 1 else ''})"
    key = _key_path((*prefix, *first["loc"])) or None
    return ConfigError(file, key, problem)


def _validate(data: dict[str, Any], file: Path | None) -> RhoConfig:
    """Validate a raw table strictly (TOML is typed: "32" is not an integer)."""
    try:
        config = RhoConfig.model_validate(data, strict=True)
    except ValidationError as exc:
        raise _config_error(file, exc) from None
    try:
        ExtensionsConfig.model_validate(data.get("extensions") or {}, strict=True)
    except ValidationError as exc:
        raise _config_error(file, exc, ("extensions",)) from None
    return config


# ── unknown keys ────────────────────────────────────────────────────────────


def _model_in(annotation: Any) -> tuple[str, type[BaseModel]] | None:
    """How a field nests a model: ("model"|"list"|"dict", Model), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                found = _model_in(arg)
                if found is not None and found[0] == "model":
                    return found
        return None
    if origin is list and args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
        return ("list", args[0])
    if (
        origin is dict
        and len(args) == 2
        and isinstance(args[1], type)
        and issubclass(args[1], BaseModel)
    ):
        return ("dict", args[1])
    return None


def _field_nesting(model: type[BaseModel], name: str) -> tuple[str, type[BaseModel]] | None:
    if model is RhoConfig and name == "extensions":
        return ("model", ExtensionsConfig)
    return _model_in(model.model_fields[name].annotation)


def _unknown_keys(
    data: Mapping[str, Any], model: type[BaseModel], loc: tuple[Any, ...]
) -> Iterator[tuple[tuple[Any, ...], list[str]]]:
    """Every key of `data` that `model` does not know: (location, known sibling names)."""
    known = list(model.model_fields)
    for key, value in data.items():
        if key not in model.model_fields:
            yield (*loc, key), known
            continue
        nesting = _field_nesting(model, key)
        if nesting is None:
            continue
        how, inner = nesting
        if how == "model" and isinstance(value, dict):
            yield from _unknown_keys(value, inner, (*loc, key))
        elif how == "list" and isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    yield from _unknown_keys(item, inner, (*loc, key, index))
        elif how == "dict" and isinstance(value, dict):
            for name, item in value.items():
                if isinstance(item, dict):
                    yield from _unknown_keys(item, inner, (*loc, key, name))


def _suggestion(loc: tuple[Any, ...], known: list[str]) -> str:
    """A "did you mean …?" hint for an unknown key, or ""."""
    name = str(loc[-1])
    if len(loc) == 1:  # a section field written at the top level, e.g. `model = "…"`
        # An exact field name wins over a near top-level name (`model` is not `models`).
        for section in RhoConfig.model_fields:
            nesting = _field_nesting(RhoConfig, section)
            if nesting and nesting[0] == "model" and name in nesting[1].model_fields:
                return f"did you mean '{section}.{name}' (in the [{section}] table)?"
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"did you mean '{_key_path((*loc[:-1], close[0]))}'?"
    return ""


def _report_unknown(data: Mapping[str, Any], file: Path, warn: Warn) -> None:
    seen: set[str] = set()
    for loc, known in _unknown_keys(data, RhoConfig, ()):
        key = _key_path(loc)
        if key in seen:
            continue
        seen.add(key)
        hint = _suggestion(loc, known)
        warn(f"{file}: unknown key '{key}' ignored" + (f"; {hint}" if hint else ""))


def _warn_stderr(message: str) -> None:
    print(f"rho: warning: {message}", file=sys.stderr, flush=True)


# ── entry point ─────────────────────────────────────────────────────────────


def _load_file(path: Path, warn: Warn) -> dict[str, Any] | None:
    data = _read_toml(path)
    if data is None:
        return None
    _validate(data, path)
    _report_unknown(data, path, warn)
    return data


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def load_config(root: Path, *, home: Path | None = None, warn: Warn | None = None) -> RhoConfig:
    """The merged configuration of the user file and the project file under `root`.

    Missing files are skipped (all fields have defaults). Raises `ConfigError` for an
    unreadable or malformed file or an invalid value, naming the file and the key. Unknown
    keys are ignored and reported once each through `warn` (default: stderr).
    """
    report = warn if warn is not None else _warn_stderr
    user_path = user_config_path(home)
    project_path = project_config_path(root)
    user = _load_file(user_path, report) or {}
    if _same_file(user_path, project_path):
        project: dict[str, Any] = {}
    else:
        project = _load_file(project_path, report) or {}
    return _validate(merge_config_dicts(user, project), None)


__all__ = [
    "ConfigError",
    "load_config",
    "merge_config_dicts",
    "project_config_path",
    "provider_key",
    "user_config_path",
]
