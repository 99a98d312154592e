"""Building an extension's script: its modules bundled (TypeScript stripped) into one script
for V8, every file it was built from recorded with the bytes read, and — for a project's
extension — the files the user does not trust as they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rho_ext_js.discovery import ExtensionSource
from rho_ext_js.modules import ModuleError, bundle, confined_reader
from rho_ext_js.trust import TRUST_HINT, untrusted
from rho_kernel.security import TrustStore


@dataclass
class Built:
    """An extension's script, the files it came from, and why it may not run (trust)."""

    script: str
    files: list[Path] = field(default_factory=list)
    untrusted: str | None = None
    #: Each module's `sourceURL` with its first-line column shift (see `Bundle.shifts`).
    modules: dict[str, int] = field(default_factory=dict)
    #: Each module's code by `sourceURL` (to place a syntax error only V8 finds).
    codes: dict[str, str] = field(default_factory=dict)


def build(source: ExtensionSource, project_root: Path, home: Path | None = None) -> Built:
    """Bundle `source`; raises `LoadError` (from the manager) with the bundler's message."""
    from rho_ext_js.manager import LoadError

    seen: dict[Path, bytes] = {}
    try:
        built = bundle(
            source.entry, source.root, confined_reader(source.root, seen), label=source.name
        )
    except ModuleError as exc:
        raise LoadError(str(exc)) from None
    result = Built(built.script, sorted(seen), modules=dict(built.shifts), codes=built.codes)
    if source.level == "project":
        store = TrustStore.load(home)
        root = project_root.resolve()
        problems = untrusted(store, root, seen)
        if problems:
            result.untrusted = f"not trusted: {', '.join(problems[:5])}; {TRUST_HINT}"
    return result


__all__ = ["Built", "build"]
