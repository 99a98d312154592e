"""Where hooks are configured: the `[hooks]` of the user's `~/.rho/config.toml` and of the
project's `.rho/config.toml`, and — with `[hooks] claude_settings = true` — the `hooks` of
Claude Code's settings files.

Each file is read here, not from the merged config, because whose a hook is matters: a
repository's hooks run commands the repository chose, so they run only while the user trusts
the file that names them (`rho trust`). Untrusted hooks are listed too (`trusted=False`), so
that a listing can show them; only trusted ones run. The order is the files' — the user's
config, the project's, `~/.claude/settings.json`, the project's `.claude/settings.json` and
`.claude/settings.local.json` — and within a file the order written.

`claude_settings` is on when the user's file turns it on, or the project's while trusted; a
project's `false` turns it off (a project may always tighten). Every problem — a file that
cannot be read or parsed, an entry that is not a valid hook, an event rho does not have, a
hook type other than `command`, a project file that is a symbolic link — is reported with the
file's path and where in it, and only that part is skipped.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rho_hooks.config import EVENTS, HookCommand, parse_hook
from rho_kernel import read_regular_file, user_home
from rho_kernel.security import TrustStore

#: The project's rho config, relative to the project root (as `rho trust` records it).
PROJECT_CONFIG = ".rho/config.toml"
#: Claude Code's project settings, shared and personal, relative to the project root.
CLAUDE_SETTINGS = ".claude/settings.json"
CLAUDE_LOCAL_SETTINGS = ".claude/settings.local.json"
#: The files rho-hooks names to `rho trust` when `claude_settings` is on.
TRUST_FILES = (CLAUDE_SETTINGS, CLAUDE_LOCAL_SETTINGS)
#: Larger files are refused.
MAX_CONFIG_BYTES = 1 << 20

Origin = Literal["user", "project", "claude-user", "claude-project", "claude-local"]
Report = Callable[[str], None]
#: `(path relative to the root, its bytes) -> whether the user trusts it`.
_Trusted = Callable[[str, bytes], bool]

#: Keys of `[hooks]` that are settings, not events.
_SETTINGS = ("claude_settings", "max_stop_continuations")
_PROJECT_CLAUDE: tuple[tuple[str, Origin], ...] = (
    (CLAUDE_SETTINGS, "claude-project"),
    (CLAUDE_LOCAL_SETTINGS, "claude-local"),
)


@dataclass(frozen=True, slots=True)
class ConfiguredHook:
    """A configured hook: its event, its table, the file it comes from and whether it may
    run (False for a repository's hook the user has not trusted)."""

    event: str
    hook: HookCommand
    origin: Origin
    path: Path
    trusted: bool


def read_hooks(root: Path, home: Path | None, report: Report) -> list[ConfiguredHook]:
    """Every hook configured for the project at `root`, trusted or not, in order (see the
    module docstring); `home` is the user's home (None: the real one). Problems go to
    `report`; nothing raises."""
    store: TrustStore | None = None

    def trusted(rel: str, data: bytes) -> bool:
        nonlocal store
        if store is None:
            store = TrustStore.load(home, warn=report)
        return store.is_trusted(root, rel, data)

    hooks, claude = _rho_sources(root, user_home(home), trusted, report)
    if claude:
        hooks += _claude_sources(root, user_home(home), trusted, report)
    return hooks


def _rho_sources(
    root: Path, home: Path, trusted: _Trusted, report: Report
) -> tuple[list[ConfiguredHook], bool]:
    """The hooks of the user's and the project's config, and whether `claude_settings`
    is on."""
    user_path, project_path = home / ".rho" / "config.toml", root / PROJECT_CONFIG
    hooks: list[ConfiguredHook] = []
    claude = False
    data = _read(user_path, report)
    table = _toml_hooks(user_path, data, report) if data is not None else None
    if table is not None:
        hooks += _rho_hooks(user_path, table, "user", True, report)
        claude = table.get("claude_settings") is True
    if _same_file(user_path, project_path):
        return hooks, claude
    data = _read(project_path, report)
    table = _toml_hooks(project_path, data, report) if data is not None else None
    if data is not None and table is not None:
        ok = trusted(PROJECT_CONFIG, data)
        hooks += _rho_hooks(project_path, table, "project", ok, report)
        setting = table.get("claude_settings")
        if isinstance(setting, bool) and (ok or not setting):
            claude = setting
    return hooks, claude


def _claude_sources(
    root: Path, home: Path, trusted: _Trusted, report: Report
) -> list[ConfiguredHook]:
    """The hooks of Claude Code's user settings and the project's two settings files."""
    user_path = home / ".claude" / "settings.json"
    hooks: list[ConfiguredHook] = []
    data = _read(user_path, report)
    if data is not None:
        hooks += _claude_hooks(user_path, data, "claude-user", True, report)
    if _is_link(root / ".claude"):
        report(
            f"{root / '.claude'}: hooks not read: it is a symbolic link (rho reads only a folder)"
        )
        return hooks
    for rel, origin in _PROJECT_CLAUDE:
        path = root / rel
        if _same_file(user_path, path):
            continue
        data = _read(path, report, follow=False)
        if data is not None:
            hooks += _claude_hooks(path, data, origin, trusted(rel, data), report)
    return hooks


def _read(path: Path, report: Report, *, follow: bool = True) -> bytes | None:
    """The bytes of `path`; None when it is missing or cannot be read (then reported). A
    link is followed only with `follow` (`rho trust` records no linked project file)."""
    if not follow and _is_link(path):
        report(f"{path}: hooks not read: it is a symbolic link (rho reads only a file)")
        return None
    try:
        return read_regular_file(path, limit=MAX_CONFIG_BYTES, follow_symlinks=follow)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        report(f"{path}: hooks not read: {(exc.strerror or str(exc)).lower()}")
        return None


def _is_link(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:
        return False  # reading it reports why


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.samefile(second)
    except OSError:
        return False


def _toml_hooks(path: Path, data: bytes, report: Report) -> dict[str, Any] | None:
    """The `[hooks]` table of a rho config file's bytes (None: none, or not readable)."""
    try:
        table = tomllib.loads(data.decode("utf-8")).get("hooks")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        report(f"{path}: hooks not read: {exc}")
        return None
    if table is not None and not isinstance(table, dict):
        report(f"{path}: hooks not read: `hooks` is not a table")
        return None
    return table


def _rho_hooks(
    path: Path, table: dict[str, Any], origin: Origin, trusted: bool, report: Report
) -> list[ConfiguredHook]:
    """The `[[hooks.EVENT]]` tables of a `[hooks]` table."""
    hooks: list[ConfiguredHook] = []
    for event, entries in table.items():
        if event in _SETTINGS:
            continue
        if event not in EVENTS:
            report(f"{path}: hooks.{event} skipped: not a hook event ({', '.join(EVENTS)})")
            continue
        if not isinstance(entries, list):
            report(f"{path}: hooks.{event} skipped: write it as [[hooks.{event}]] tables")
            continue
        for index, entry in enumerate(entries):
            try:
                hook = parse_hook(entry)
            except ValueError as exc:
                report(f"{path}: hook hooks.{event}[{index}] skipped: {exc}")
                continue
            hooks.append(ConfiguredHook(event, hook, origin, path, trusted))
    return hooks


def _claude_hooks(
    path: Path, data: bytes, origin: Origin, trusted: bool, report: Report
) -> list[ConfiguredHook]:
    """The hooks of a Claude Code settings file's bytes: `{"hooks": {EVENT: [{"matcher":
    …, "hooks": [{"type": "command", "command": …, "timeout": …}]}]}}`."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        report(f"{path}: hooks not read: not JSON ({exc})")
        return []
    if not isinstance(document, dict):
        report(f"{path}: hooks not read: not a JSON object")
        return []
    table = document.get("hooks")
    if not isinstance(table, dict):
        if table is not None:
            report(f"{path}: hooks not read: `hooks` is not an object")
        return []
    hooks: list[ConfiguredHook] = []
    for event, groups in table.items():
        if event not in EVENTS:
            report(f"{path}: hooks.{event} skipped: rho has no such event ({', '.join(EVENTS)})")
            continue
        if not isinstance(groups, list):
            report(f"{path}: hooks.{event} skipped: not a list of matchers")
            continue
        for index, group in enumerate(groups):
            found = _claude_group(path, f"hooks.{event}[{index}]", group, report)
            hooks += (ConfiguredHook(event, hook, origin, path, trusted) for hook in found)
    return hooks


def _claude_group(path: Path, where: str, group: Any, report: Report) -> list[HookCommand]:
    """The command hooks of one `{"matcher": …, "hooks": […]}` entry at `where`."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        report(f"{path}: {where} skipped: not an object with a `hooks` list")
        return []
    matcher = group.get("matcher") or ""
    if not isinstance(matcher, str):
        report(f"{path}: {where} skipped: matcher is not a string")
        return []
    hooks: list[HookCommand] = []
    for index, entry in enumerate(group["hooks"]):
        at = f"{where}.hooks[{index}]"
        kind = entry.get("type") if isinstance(entry, dict) else None
        if kind != "command":
            shown = f"type {kind!r}" if isinstance(kind, str) else "not a command hook"
            report(f'{path}: hook {at} skipped: {shown} (rho runs only type "command")')
            continue
        table = {key: entry[key] for key in ("command", "timeout") if key in entry}
        try:
            hooks.append(parse_hook({**table, "matcher": matcher}))
        except ValueError as exc:
            report(f"{path}: hook {at} skipped: {exc}")
    return hooks


__all__ = [
    "CLAUDE_LOCAL_SETTINGS",
    "CLAUDE_SETTINGS",
    "MAX_CONFIG_BYTES",
    "PROJECT_CONFIG",
    "TRUST_FILES",
    "ConfiguredHook",
    "Origin",
    "read_hooks",
]
