"""The installed plugins' entry points, remembered between starts until the environment changes.

Finding entry points reads the metadata of every installed distribution (and imports
`importlib.metadata` and the `email` package to parse it): the largest cost of discovering
plugins at each start. `discover` keeps what it found in a small JSON file under rho's state
directory, with a fingerprint of the environment: the interpreter, and each `sys.path` entry
with its modification time. Installing, upgrading or removing a distribution adds or removes a
`.dist-info` directory, which changes its directory's time, so the fingerprint no longer
matches and the metadata is read again. An entry point from the file that no longer imports
makes the caller read the metadata again (`discover(..., fresh=True)`).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: The layout of the file; another value is read as no file.
FORMAT = 1
#: The file's name in rho's state directory (`~/.rho`), where the runtime keeps it.
CACHE_NAME = "entry-points.json"


@dataclass(frozen=True, slots=True)
class FoundEntryPoint:
    """One entry point of a group: its name, its `module:attribute` value, and the
    distribution (name and version, as its metadata spells them) that declares it."""

    name: str
    value: str
    distribution: str | None
    version: str | None

    def load(self) -> Any:
        """Import the module and return the attribute the value names (as
        `importlib.metadata.EntryPoint.load` does)."""
        module_name, _, attributes = self.value.partition(":")
        loaded: Any = importlib.import_module(module_name.strip())
        for attribute in filter(None, attributes.strip().split(".")):
            loaded = getattr(loaded, attribute)
        return loaded


def fingerprint() -> list[Any]:
    """What the entry points found depend on: the interpreter and each `sys.path` entry with
    its modification time (None when it does not exist)."""
    entries: list[Any] = []
    for entry in sys.path:
        try:
            stamp: int | None = os.stat(entry or ".").st_mtime_ns
        except OSError:
            stamp = None
        entries.append([entry, stamp])
    return [sys.executable, sys.version, entries]


def discover(group: str, cache: Path | None, *, fresh: bool = False) -> list[FoundEntryPoint]:
    """The entry points of `group`, from `cache` when its fingerprint still matches (and not
    `fresh`), otherwise from the installed metadata, then remembered in `cache` (when given
    and its directory exists: nothing is created for it)."""
    now = fingerprint()
    if cache is not None and not fresh:
        remembered = _read(cache, group, now)
        if remembered is not None:
            return remembered
    found = _scan(group)
    if cache is not None and cache.parent.is_dir():
        _write(cache, group, now, found)
    return found


def _scan(group: str) -> list[FoundEntryPoint]:
    from importlib.metadata import entry_points

    return [
        FoundEntryPoint(point.name, point.value, *_identity(point.dist))
        for point in entry_points(group=group)
    ]


def _identity(dist: Any) -> tuple[str | None, str | None]:
    """A distribution's name and version as its metadata spells them (None when missing or
    not text), from one read of its METADATA file."""
    try:
        metadata = dist.metadata if dist is not None else None
        if not metadata:  # no distribution, or an empty METADATA file
            return None, None
        name, version = metadata.get("Name"), metadata.get("Version")
    except Exception:  # a broken METADATA file must not stop startup
        return None, None
    return (
        name if isinstance(name, str) and name else None,
        version if isinstance(version, str) and version else None,
    )


def _read(cache: Path, group: str, now: list[Any]) -> list[FoundEntryPoint] | None:
    """The entry points `cache` remembers for `group` under fingerprint `now`, or None
    (no file, another fingerprint, or anything unreadable)."""
    try:
        data = json.loads(cache.read_bytes())
        if data.get("format") != FORMAT or data.get("fingerprint") != now:
            return None
        found = [FoundEntryPoint(**point) for point in data["groups"][group]]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return found if all(_well_formed(point) for point in found) else None


def _well_formed(point: FoundEntryPoint) -> bool:
    """Names and values are text, the distribution and version text or None."""
    return (
        isinstance(point.name, str)
        and isinstance(point.value, str)
        and all(isinstance(v, (str, type(None))) for v in (point.distribution, point.version))
    )


def _write(cache: Path, group: str, now: list[Any], found: list[FoundEntryPoint]) -> None:
    from rho_kernel.security.private_file import PrivateFileError, write_private

    data = {"format": FORMAT, "fingerprint": now, "groups": {group: [asdict(p) for p in found]}}
    with contextlib.suppress(PrivateFileError):  # a read-only home: read the metadata each time
        write_private(cache, json.dumps(data).encode())


__all__ = ["CACHE_NAME", "FORMAT", "FoundEntryPoint", "discover", "fingerprint"]
