"""Loading `~/.rho/config.toml` and `<root>/.rho/config.toml` into one `RhoConfig`.

Both files are optional. Loading has two phases, because plugins are loaded according to the
config (`[plugins] disabled`) and only then declare their own sections:

1. `read_config` parses both files, validates the kernel's sections of each on its own (so an
   error names the file it is in), decides whether the project file is trusted and merges
   the kernel's sections (`ConfigFiles.kernel`);
2. `ConfigFiles.complete(sections)` validates the plugins' sections of each file the same
   way, merges them by their models' markers, attaches them to the config (read them with
   `RhoConfig.section`) and only then reports what nothing reads: unknown keys (with a
   "did you mean") and tables no loaded plugin declares.

`load_config` does both at once. The project file is the repository's: every project file
loses its `UserOnly` settings, and unless the user trusts it as it is now (`rho trust`, see
`rho_kernel.security.trust`) its settings that loosen the user's are dropped before the merge
(see `rho_kernel.config.untrusted`); each kind is named in one warning.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rho_kernel.config.errors import ConfigError, check_file_table, validate_table
from rho_kernel.config.merge import merge_config_dicts, provider_key
from rho_kernel.config.model import RhoConfig
from rho_kernel.config.unknown import unknown_key_warnings
from rho_kernel.config.untrusted import restrict_untrusted, strip_user_only
from rho_kernel.diagnostics import warn as warn_stderr
from rho_kernel.home import user_home
from rho_kernel.security.regular_file import read_optional
from rho_kernel.security.trust import TrustStore
from rho_kernel.tomlparse import TomlError, parse_toml

Warn = Callable[[str], None]
#: Plugin sections by name: the model each validates and merges with.
Sections = Mapping[str, type[BaseModel]]


# ── locations ───────────────────────────────────────────────────────────────


#: The project config file, relative to the project root (as recorded in the trust store).
PROJECT_CONFIG = ".rho/config.toml"


def user_config_path(home: Path | None = None) -> Path:
    """`<home>/.rho/config.toml`; home defaults to $HOME, then $USERPROFILE, then /tmp."""
    return user_home(home) / ".rho" / "config.toml"


def project_config_path(root: Path) -> Path:
    """`<root>/.rho/config.toml`."""
    return root / PROJECT_CONFIG


# ── reading ─────────────────────────────────────────────────────────────────


#: The largest config file read (real ones are a few KiB).
MAX_CONFIG_BYTES = 1024 * 1024


def _read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist. A FIFO, device or directory is
    refused without waiting on it (a repository, or a command, may put one there)."""
    try:
        return read_optional(path, limit=MAX_CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from None


def _parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    """The parsed table of `data`, the bytes of `path`."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"is not valid UTF-8 (byte {exc.start})") from None
    try:
        return parse_toml(text)
    except TomlError as exc:
        raise ConfigError(path, None, str(exc)) from None


def _load_table(path: Path, data: bytes) -> dict[str, Any]:
    """The parsed table of one file, its kernel sections validated."""
    table = _parse_toml(path, data)
    check_file_table(RhoConfig, table, path)
    return table


def _read_user(home: Path | None) -> dict[str, Any]:
    path = user_config_path(home)
    data = _read_bytes(path)
    return {} if data is None else _load_table(path, data)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


# ── what a project may set ──────────────────────────────────────────────────


@dataclass(slots=True)
class _Applied:
    """The project table as it applies, and the settings dropped from it (in file order)."""

    table: dict[str, Any]
    needs_trust: list[str]
    user_only: list[str]


def _restrict(
    model: type[BaseModel],
    user: Mapping[str, Any],
    table: Mapping[str, Any],
    at: tuple[Any, ...],
    trusted: bool,
    applied: _Applied,
) -> dict[str, Any]:
    """`table` (of shape `model`, at `at` in the project file) as the project may set it; the
    settings dropped from it are added to `applied`."""
    kept, dropped = strip_user_only(model, table, at=at)
    applied.user_only += dropped
    if not trusted:
        kept, dropped = restrict_untrusted(model, user, kept, at=at)
        applied.needs_trust += dropped
    return kept


def _applied(
    user: Mapping[str, Any], project: Mapping[str, Any] | None, trusted: bool, sections: Sections
) -> _Applied:
    """The project table without its `UserOnly` settings and, untrusted, without its
    settings that loosen the user's; tables of no known section pass unchanged."""
    applied = _Applied({}, [], [])
    for key, value in (project or {}).items():
        if key in RhoConfig.model_fields:
            kept = _restrict(RhoConfig, user, {key: value}, (), trusted, applied)
            if key in kept:
                applied.table[key] = kept[key]
        elif key in sections and isinstance(value, dict):
            own = user.get(key)
            mine = own if isinstance(own, dict) else {}
            applied.table[key] = _restrict(sections[key], mine, value, (key,), trusted, applied)
        else:
            applied.table[key] = value
    return applied


def _check_sections(tables: list[tuple[Path, dict[str, Any]]], sections: Sections) -> None:
    """Validate every file's plugin sections, each file on its own (before the merge)."""
    for path, table in tables:
        for name, model in sections.items():
            if name in table:
                check_file_table(model, table[name], path, at=(name,))


def _trust_message(path: Path, ignored: list[str], lapsed: bool) -> str:
    why = (
        "this file changed since it was trusted; run 'rho trust' in the project again"
        if lapsed
        else "this project is not trusted; run 'rho trust' in it"
    )
    return f"{path}: ignored settings that need trust ({', '.join(ignored)}): {why} to apply them"


def _user_only_message(path: Path, ignored: list[str], user_path: Path) -> str:
    return (
        f"{path}: ignored settings that only your own config may set ({', '.join(ignored)}): "
        f"set them in {user_path} to apply them"
    )


# ── the two phases ──────────────────────────────────────────────────────────


@dataclass(slots=True)
class ConfigFiles:
    """Both config files read, their kernel sections validated and merged (phase one).

    `kernel` is the kernel's configuration (no plugin sections yet: enough to know which
    plugins to load). `user` and `project` are the raw tables (`project` None without a
    project file); `trusted` says whether the project file is trusted as it is.
    """

    kernel: RhoConfig
    user: dict[str, Any]
    user_path: Path
    project: dict[str, Any] | None
    project_path: Path
    trusted: bool
    lapsed: bool
    warn: Warn

    def _tables(self) -> list[tuple[Path, dict[str, Any]]]:
        tables = [(self.user_path, self.user)]
        return tables if self.project is None else [*tables, (self.project_path, self.project)]

    def complete(
        self, sections: Sections | None = None, *, not_loading: str | None = None
    ) -> RhoConfig:
        """The whole configuration, with the plugin `sections` (name → model) (phase two).

        Each file's sections are validated on their own, then merged user-then-project by
        the models' markers, with the project's trust applied; a section no file sets gets
        its model's defaults. Raises `ConfigError` naming the file and dotted key. Then
        reports, once, every key nothing reads and the settings the project may not set:
        call it once. `not_loading` says why installed plugins are not loaded (None: they
        are), for the hint on a table of one of rho's own packs that nothing reads.
        """
        models = dict(sections or {})
        _check_sections(self._tables(), models)
        applied = _applied(self.user, self.project, self.trusted, models)
        merged = merge_config_dicts(self.user, applied.table, trusted=self.trusted, sections=models)
        values = {
            name: validate_table(model, merged.get(name, {}), None, at=(name,))
            for name, model in models.items()
        }
        self._report(models, applied, not_loading)
        return self.kernel.with_sections(values)

    def _report(self, sections: Sections, applied: _Applied, not_loading: str | None) -> None:
        disabled = self.kernel.plugins.disabled
        for path, table in self._tables():
            for warning in unknown_key_warnings(table, path, sections, disabled, not_loading):
                self.warn(warning)
        if applied.user_only:
            self.warn(_user_only_message(self.project_path, applied.user_only, self.user_path))
        if applied.needs_trust:
            self.warn(_trust_message(self.project_path, applied.needs_trust, self.lapsed))


def read_config(
    root: Path,
    *,
    home: Path | None = None,
    warn: Warn | None = None,
    trust: TrustStore | None = None,
) -> ConfigFiles:
    """Phase one: read both files and validate and merge the kernel's sections.

    Missing files are skipped (all kernel fields have defaults). Raises `ConfigError` for an
    unreadable or malformed file or an invalid value, naming the file and the key. `trust`
    (default: the user's trust store) decides whether the project file is trusted as it is;
    warnings go to `warn` (default: stderr), most of them from `ConfigFiles.complete`.
    """
    report = warn if warn is not None else warn_stderr
    user_path, project_path = user_config_path(home), project_config_path(root)
    user = _read_user(home)
    data = None if _same_file(user_path, project_path) else _read_bytes(project_path)
    project: dict[str, Any] | None = None
    trusted, lapsed = True, False
    if data is not None:
        project = _load_table(project_path, data)
        store = trust if trust is not None else TrustStore.load(home, warn=report)
        trusted = store.is_trusted(root, PROJECT_CONFIG, data)
        lapsed = not trusted and any(e.file == PROJECT_CONFIG for e in store.entries_for(root))
    applied = _applied(user, project, trusted, {})
    merged = merge_config_dicts(user, applied.table, trusted=trusted)
    kernel = validate_table(RhoConfig, merged, None)
    return ConfigFiles(kernel, user, user_path, project, project_path, trusted, lapsed, report)


def load_config(
    root: Path,
    *,
    home: Path | None = None,
    warn: Warn | None = None,
    trust: TrustStore | None = None,
    sections: Sections | None = None,
) -> RhoConfig:
    """The merged configuration of the user file and the project file under `root`.

    Both phases at once (`read_config(...).complete(sections)`): `sections` are the plugin
    sections (name → model) to validate and attach. Raises `ConfigError` for an unreadable
    or malformed file or an invalid value, naming the file and the key. Unknown keys are
    ignored and reported once each through `warn` (default: stderr). Unless `trust`
    (default: the user's trust store) trusts the project file as it is, its settings that
    loosen the user's are ignored and named in one warning.
    """
    files = read_config(root, home=home, warn=warn, trust=trust)
    return files.complete(sections)


def loosening_settings(
    root: Path, data: bytes, *, home: Path | None = None, sections: Sections | None = None
) -> list[str]:
    """The settings of `data` (the bytes of `<root>/.rho/config.toml`) that need trust.

    Each is described as `key = value` (or `key`), as in the warning an untrusted project
    gets; `sections` are the plugin sections to judge too. Raises `ConfigError` when `data`
    or the user's file is invalid.
    """
    models = dict(sections or {})
    user = _read_user(home)
    path = project_config_path(root)
    project = _load_table(path, data)
    _check_sections([(user_config_path(home), user), (path, project)], models)
    return _applied(user, project, False, models).needs_trust


__all__ = [
    "PROJECT_CONFIG",
    "ConfigError",
    "ConfigFiles",
    "load_config",
    "loosening_settings",
    "merge_config_dicts",
    "project_config_path",
    "provider_key",
    "read_config",
    "user_config_path",
]
