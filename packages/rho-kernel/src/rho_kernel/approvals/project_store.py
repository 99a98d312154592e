"""Rules remembered for a project: kept in `~/.rho/approval-rules.json` (0600), never in
the repository, by project root.

The file is rewritten atomically under its lock (`rho_kernel.security.file_lock`), read
again while locked, so two rho processes remembering at once both keep their rules. A file
that cannot be read counts as empty and is said so; it is replaced at the next change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rho_kernel.home import state_dir
from rho_kernel.security.file_lock import locked_update
from rho_kernel.security.private_file import write_private
from rho_kernel.security.regular_file import read_optional

STORE_NAME = "approval-rules.json"
#: The largest store read (a store is a few rules per project).
MAX_STORE_BYTES = 4 * 1024 * 1024


def store_path(home: Path | None = None) -> Path:
    """Where the project rules of this user are kept."""
    return state_dir(home) / STORE_NAME


def project_rules(root: Path, home: Path | None = None) -> list[str]:
    """The rules remembered for the project at `root` (empty when none or unreadable)."""
    return list(_read(store_path(home)).get(str(root), []))


def remember(root: Path, rule: str, home: Path | None = None) -> None:
    """Keep `rule` for the project at `root` (once). Raises `PrivateFileError`."""
    _change(root, home, lambda rules: rules if rule in rules else [*rules, rule])


def forget(root: Path, rule: str, home: Path | None = None) -> bool:
    """Drop `rule` for the project at `root`; whether it was there."""
    found = rule in project_rules(root, home)
    if found:
        _change(root, home, lambda rules: [kept for kept in rules if kept != rule])
    return found


def _change(root: Path, home: Path | None, change: Any) -> None:
    path = store_path(home)
    with locked_update(path):
        projects = _read(path)
        rules = change(list(projects.get(str(root), [])))
        if rules:
            projects[str(root)] = rules
        else:
            projects.pop(str(root), None)
        data = json.dumps({"projects": projects}, indent=1, ensure_ascii=False) + "\n"
        write_private(path, data.encode("utf-8"))


def _read(path: Path) -> dict[str, list[str]]:
    try:
        data = read_optional(path, limit=MAX_STORE_BYTES)
        parsed = json.loads(data) if data is not None else {}
    except (OSError, ValueError) as exc:
        from rho_kernel.diagnostics import warn

        warn(f"{path}: unreadable ({exc}); its project rules are not applied")
        return {}
    projects = parsed.get("projects") if isinstance(parsed, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {
        root: [rule for rule in rules if isinstance(rule, str)]
        for root, rules in projects.items()
        if isinstance(root, str) and isinstance(rules, list)
    }


__all__ = ["MAX_STORE_BYTES", "STORE_NAME", "forget", "project_rules", "remember", "store_path"]
