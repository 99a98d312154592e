"""Writable paths the user granted to a project's commands: `~/.rho/sandbox_grants.toml`.

`[sandbox] writable` lists paths commands may write besides the project. Each is asked for
once, through an approval, and the answer is recorded here per project, so the question
is not repeated (also not after a restart). The store lives in `~/.rho`, which commands can
neither read nor write, so a command cannot grant itself anything. A grant is added under the
store's lock (`rho_kernel.security.file_lock`), to the store as read again while locked, so
rho processes granting at the same time keep every grant:

```toml
[[grants]]
root = "/home/me/proj"        # canonical project root
path = "~/.cargo/registry"    # the entry as configured
```
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rho_kernel.diagnostics import warn
from rho_kernel.home import user_home
from rho_kernel.security.file_lock import locked_update
from rho_kernel.security.private_file import PrivateFileError, toml_string, write_private
from rho_kernel.security.regular_file import read_optional
from rho_kernel.security.trust import canonical_root
from rho_kernel.tomlparse import parse_toml

#: The store's file name inside `~/.rho`.
GRANTS_NAME = "sandbox_grants.toml"
#: The largest store read.
MAX_GRANTS_BYTES = 16 * 1024 * 1024
_HEADER = "# Paths the user allowed a project's commands to write, asked for once each.\n"


class GrantError(Exception):
    """The grant store cannot be written."""


class WritableGrants:
    """The recorded grants of every project, loaded from and saved to one TOML file."""

    def __init__(self, path: Path, grants: list[tuple[str, str]] | None = None) -> None:
        """A store at `path` holding `(root, path)` pairs (nothing is read here)."""
        self.path = path
        self._grants = list(grants or [])

    @classmethod
    def load(cls, home: Path | None = None) -> WritableGrants:
        """The user's store; a missing one is empty, a malformed one is reported and empty."""
        path = user_home(home) / ".rho" / GRANTS_NAME
        return cls(path, _read(path, warn))

    def granted(self, root: Path | str) -> set[str]:
        """The entries granted for the project at `root`."""
        key = canonical_root(root)
        return {entry for owner, entry in self._grants if owner == key}

    def grant(self, root: Path | str, entries: list[str]) -> None:
        """Record `entries` for the project at `root` and save. Raises `GrantError`."""
        key = canonical_root(root)
        new = [(key, entry) for entry in entries if (key, entry) not in self._grants]
        if not new:
            return
        self._grants = [*self._grants, *new]  # granted for this process even if unsaved
        try:
            with locked_update(self.path):
                on_disk = _read(self.path, lambda _: None)  # reported when it was loaded
                grants = [*on_disk, *(pair for pair in new if pair not in on_disk)]
                body = "".join(
                    f"\n[[grants]]\nroot = {toml_string(owner)}\npath = {toml_string(entry)}\n"
                    for owner, entry in grants
                )
                write_private(self.path, (_HEADER + body).encode("utf-8"))
        except PrivateFileError as exc:
            raise GrantError(str(exc)) from None


def _read(path: Path, report: Callable[[str], None]) -> list[tuple[str, str]]:
    """The `(root, path)` pairs of the store at `path`; a missing store is empty, one that
    cannot be used is reported and empty."""
    try:
        data = read_optional(path, limit=MAX_GRANTS_BYTES)
        table = {} if data is None else parse_toml(data.decode("utf-8"))
    except (OSError, ValueError) as exc:  # TomlError and UnicodeDecodeError included
        report(f"{path}: cannot be read ({exc}); no writable path counts as granted")
        return []
    items = table.get("grants", [])
    return [
        (item["root"], item["path"])
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict)
        and isinstance(item.get("root"), str)
        and isinstance(item.get("path"), str)
    ]


__all__ = ["GRANTS_NAME", "GrantError", "WritableGrants"]
