"""A committed snapshot of something plugins rely on (hook signatures, the public API),
rewritten only by a change that breaks no plugin within rho-kernel's major version."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rho_kernel

#: `breaking(old, new)`: what in `new` (the snapshot's `key` part) breaks a plugin of `old`.
Breaking = Callable[[Any, Any], list[str]]


def major(version: str = rho_kernel.__version__) -> int:
    """The major version of a `MAJOR.MINOR.PATCH` version string (rho-kernel's by default)."""
    return int(version.split(".", 1)[0])


def load(path: Path) -> dict[str, Any]:
    """The committed snapshot at `path`."""
    return json.loads(path.read_text(encoding="utf-8"))


def rewrite(path: Path, now: dict[str, Any], key: str, breaking: Breaking, indent: int) -> int:
    """Write `now` (holding `kernel_major` and the `key` part) to `path`, unless it breaks a
    plugin written against the snapshot there within the same major version (then 1)."""
    if path.exists():
        old = load(path)
        problems = breaking(old[key], now[key])
        if problems and old["kernel_major"] == now["kernel_major"]:
            print("not written: these changes break plugins within a major version:")
            print("\n".join(f"  {problem}" for problem in problems))
            return 1
    path.write_text(json.dumps(now, indent=indent) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0
