"""Trust of a project's extensions: they are code from the repository, so they run only while
the user trusts every file they are built from (`rho trust` records them, see
`rho_project_files_to_trust`). The user's own extensions always run."""

from __future__ import annotations

from pathlib import Path

from rho_ext_js.discovery import EXTENSIONS_DIR, source_files
from rho_kernel.security import TrustStore

#: What an untrusted project extension's listing says to do.
TRUST_HINT = "review it, then run 'rho trust' in the project to let it run"


def project_extension_files(root: Path) -> list[str]:
    """Every source file under `<root>/.rho/extensions` (hidden names and links skipped),
    relative to the root with `/`: what `rho trust` records."""
    folder = root / EXTENSIONS_DIR
    if folder.is_symlink():
        return []
    return sorted(path.relative_to(root).as_posix() for path in source_files(folder))


def untrusted(store: TrustStore, root: Path, files: dict[Path, bytes]) -> list[str]:
    """The files (relative to `root`) among `files` (path → the bytes that were read) that
    the user does not trust as they are."""
    problems = []
    for path, data in sorted(files.items()):
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:  # outside the project: nothing the project can vouch for
            problems.append(str(path))
            continue
        if not store.is_trusted(root, rel, data):
            problems.append(rel)
    return problems


__all__ = ["TRUST_HINT", "project_extension_files", "untrusted"]
