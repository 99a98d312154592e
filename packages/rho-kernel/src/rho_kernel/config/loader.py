"""Loading `~/.rho/config.toml` and `<root>/.rho/config.toml` into one `RhoConfig`.

Both files are optional. Each file is parsed and validated on its own (so an error names the
file it is in), then the raw tables are merged (project over user, see `merge_config_dicts`)
and the result is validated once more. Unknown keys are ignored for compatibility, but each
one is reported through `warn` so that a typo does not go unnoticed.

The project file is the repository's: unless the user trusts it as it is now (`rho trust`,
see `rho_kernel.security.trust`), its settings that loosen the user's are dropped before the
merge (see `rho_kernel.config.untrusted`) and named in one warning.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from rho_kernel.config.merge import merge_config_dicts, provider_key
from rho_kernel.config.model import ExtensionsConfig, RhoConfig
from rho_kernel.config.nesting import field_nesting
from rho_kernel.config.untrusted import restrict_untrusted
from rho_kernel.diagnostics import warn as warn_stderr
from rho_kernel.home import user_home
from rho_kernel.security.trust import TrustStore

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


#: The project config file, relative to the project root (as recorded in the trust store).
PROJECT_CONFIG = ".rho/config.toml"


def user_config_path(home: Path | None = None) -> Path:
    """`<home>/.rho/config.toml`; home defaults to $HOME, then $USERPROFILE, then /tmp."""
    return user_home(home) / ".rho" / "config.toml"


def project_config_path(root: Path) -> Path:
    """`<root>/.rho/config.toml`."""
    return root / PROJECT_CONFIG


# ── reading and validating ──────────────────────────────────────────────────


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise ConfigError(path, None, "is a directory, expected a TOML file") from None
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from None


def _parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    """The parsed table of `data`, the bytes of `path`."""
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


def _unknown_keys(
    data: Mapping[str, Any], model: type[BaseModel], loc: tuple[Any, ...]
) -> Iterator[tuple[tuple[Any, ...], list[str]]]:
    """Every key of `data` that `model` does not know: (location, known sibling names)."""
    known = list(model.model_fields)
    for key, value in data.items():
        if key not in model.model_fields:
            yield (*loc, key), known
            continue
        nesting = field_nesting(model, key)
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
            nesting = field_nesting(RhoConfig, section)
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


# ── entry point ─────────────────────────────────────────────────────────────


def _load_file(path: Path, data: bytes, warn: Warn) -> dict[str, Any]:
    table = _parse_toml(path, data)
    _validate(table, path)
    _report_unknown(table, path, warn)
    return table


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _read_user(home: Path | None, warn: Warn) -> dict[str, Any]:
    path = user_config_path(home)
    data = _read_bytes(path)
    return {} if data is None else _load_file(path, data, warn)


def loosening_settings(root: Path, data: bytes, *, home: Path | None = None) -> list[str]:
    """The settings of `data` (the bytes of `<root>/.rho/config.toml`) that need trust.

    Each is described as `key = value` (or `key`), as in the warning an untrusted project
    gets. Raises `ConfigError` when `data` or the user's file is invalid.
    """
    user = _read_user(home, lambda _: None)
    project = _load_file(project_config_path(root), data, lambda _: None)
    return restrict_untrusted(RhoConfig, user, project)[1]


def _ignored_message(path: Path, ignored: list[str], lapsed: bool) -> str:
    why = (
        "this file changed since it was trusted; run 'rho trust' in the project again"
        if lapsed
        else "this project is not trusted; run 'rho trust' in it"
    )
    return f"{path}: ignored settings that need trust ({', '.join(ignored)}): {why} to apply them"


def load_config(
    root: Path,
    *,
    home: Path | None = None,
    warn: Warn | None = None,
    trust: TrustStore | None = None,
) -> RhoConfig:
    """The merged configuration of the user file and the project file under `root`.

    Missing files are skipped (all fields have defaults). Raises `ConfigError` for an
    unreadable or malformed file or an invalid value, naming the file and the key. Unknown
    keys are ignored and reported once each through `warn` (default: stderr). Unless `trust`
    (default: the user's trust store) trusts the project file as it is, its settings that
    loosen the user's are ignored and named in one warning.
    """
    report = warn if warn is not None else warn_stderr
    user = _read_user(home, report)
    project_path = project_config_path(root)
    data = None if _same_file(user_config_path(home), project_path) else _read_bytes(project_path)
    if data is None:
        return _validate(user, None)
    project = _load_file(project_path, data, report)
    store = trust if trust is not None else TrustStore.load(home, warn=report)
    trusted = store.is_trusted(root, PROJECT_CONFIG, data)
    if not trusted:
        project, ignored = restrict_untrusted(RhoConfig, user, project)
        if ignored:
            lapsed = any(e.file == PROJECT_CONFIG for e in store.entries_for(root))
            report(_ignored_message(project_path, ignored, lapsed))
    return _validate(merge_config_dicts(user, project, trusted=trusted), None)


__all__ = [
    "PROJECT_CONFIG",
    "ConfigError",
    "load_config",
    "loosening_settings",
    "merge_config_dicts",
    "project_config_path",
    "provider_key",
    "user_config_path",
]
