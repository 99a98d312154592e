"""Finding extensions: `~/.rho/extensions/` and `<project>/.rho/extensions/`.

An extension is a single file (`name.ts` or `name.js`; its name is the stem) or a folder
holding `mod.ts` or `mod.js` (its name is the folder's). Hidden names are skipped, and so
are symbolic links: an extension is code that runs, and a link could bring in a file from
anywhere. Only those names are entry points: a declaration file (`rho.d.ts`, `x.d.mts`), a
source map, JSON, an editor's backup (`x.ts~`, `#x.ts#`, `x.ts.bak`) and a `node_modules`
folder are never extensions. A project's extension replaces the user's of the same name.
Which names `[extensions]` means is `rho_ext_js.naming`'s business.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rho_ext_js.config import ExtensionsConfig
from rho_ext_js.folders import EXTENSIONS_DIR, Level, extension_dirs

#: Entry files, in order of preference.
SINGLE_FILE_SUFFIXES = (".ts", ".js")
FOLDER_ENTRIES = ("mod.ts", "mod.js")
#: Folders that hold what extensions use, never an extension.
NOT_EXTENSION_FOLDERS = frozenset({"node_modules"})

#: The source files of an extension (what trust and reload look at).
SOURCE_SUFFIXES = (".ts", ".js", ".mts", ".mjs")


@dataclass(frozen=True)
class ExtensionSource:
    """Where one extension lives: its `entry` file and the `root` its imports stay inside
    (the extension's own folder; for a single file, the extensions folder holding it)."""

    name: str
    entry: Path
    root: Path
    level: Level
    folder: bool

    def files(self) -> list[Path]:
        """The source files the extension may be built from: every non-hidden source file in
        its root (recursively, links not followed), sorted."""
        if not self.folder:
            return sorted({self.entry, *source_files(self.root)})
        return sorted(source_files(self.root))


def discover(root: Path, home: Path | None = None) -> dict[str, ExtensionSource]:
    """Every extension of the user and the project by name (the project's win)."""
    found: dict[str, ExtensionSource] = {}
    for level, directory in extension_dirs(root, home):
        for source in _scan(directory, level):
            found[source.name] = source
    return found


def discover_all(root: Path, home: Path | None = None) -> list[ExtensionSource]:
    """Every extension of both folders, the overridden ones too (user first)."""
    return [
        source
        for level, directory in extension_dirs(root, home)
        for source in _scan(directory, level)
    ]


def selected(name: str, config: ExtensionsConfig) -> bool:
    """Whether `[extensions]` lets the extension of discovery name `name` load (the manager
    also accepts manifest names: see `rho_ext_js.naming`)."""
    if config.enabled and name not in config.enabled:
        return False
    return name not in config.disabled


def stamp(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """The (path, size, mtime) of each file (a missing one is left out): a reload re-runs an
    extension when any file it was built from changed, not only its entry."""
    stamps = []
    for path in paths:
        try:
            info = path.lstat()
        except OSError:
            continue
        stamps.append((str(path), info.st_size, info.st_mtime_ns))
    return tuple(stamps)


def _scan(directory: Path, level: Level) -> Iterator[ExtensionSource]:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:  # missing, not a folder, unreadable: no extensions there
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        path = Path(entry.path)
        if entry.is_file(follow_symlinks=False):
            if is_entry_name(entry.name):
                yield ExtensionSource(path.stem, path, path.parent, level, folder=False)
        elif entry.is_dir(follow_symlinks=False) and entry.name not in NOT_EXTENSION_FOLDERS:
            for candidate in FOLDER_ENTRIES:
                main = path / candidate
                if _regular(main):
                    yield ExtensionSource(entry.name, main, path, level, folder=True)
                    break


def is_entry_name(name: str) -> bool:
    """Whether a file named `name` in an extensions folder is a single-file extension:
    `name.ts` or `name.js`, not hidden, and not a declaration file (`rho.d.ts`), which
    declares types and never runs."""
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem or name.startswith(".") or f".{suffix}" not in SINGLE_FILE_SUFFIXES:
        return False
    return not stem.endswith(".d")


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def source_files(folder: Path) -> Iterator[Path]:
    """The non-hidden source files below `folder`, regular files only, links not followed."""
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = [name for name in dirnames if not name.startswith(".")]
        for name in filenames:
            path = Path(dirpath, name)
            if not name.startswith(".") and path.suffix in SOURCE_SUFFIXES and _regular(path):
                yield path


__all__ = [
    "EXTENSIONS_DIR",
    "ExtensionSource",
    "Level",
    "discover",
    "discover_all",
    "extension_dirs",
    "is_entry_name",
    "selected",
    "source_files",
    "stamp",
]
