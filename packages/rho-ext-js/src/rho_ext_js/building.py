"""Building an extension's script: its modules bundled (TypeScript stripped) into one script
for V8, every file it was built from recorded with the bytes read, and — for a project's
extension — the files the user does not trust as they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rho_ext_js.discovery import ExtensionSource
from rho_ext_js.modules import MAX_MODULE_BYTES, ModuleError, bundle
from rho_ext_js.trust import TRUST_HINT, untrusted
from rho_kernel.security import TrustStore


@dataclass
class Built:
    """An extension's script, the files it came from, and why it may not run (trust)."""

    script: str
    files: list[Path] = field(default_factory=list)
    untrusted: str | None = None


class RecordingReader:
    """Reads modules inside `root` (regular files, links resolved, UTF-8, size-capped) and
    keeps the bytes of each, so that trust is checked on exactly what runs."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.seen: dict[Path, bytes] = {}

    def __call__(self, path: Path) -> str:
        real = path.resolve()
        if real != self.root and self.root not in real.parents:
            raise PermissionError(f"{path.name} resolves outside the extension folder")
        if not real.is_file():
            raise (
                FileNotFoundError(str(path)) if not real.exists() else IsADirectoryError(str(path))
            )
        with real.open("rb") as handle:
            data = handle.read(MAX_MODULE_BYTES + 1)
        if len(data) > MAX_MODULE_BYTES:
            raise ValueError(f"module is larger than {MAX_MODULE_BYTES} bytes")
        self.seen[real] = data
        try:
            return data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise ValueError(f"module is not UTF-8 (byte {exc.start})") from None


def build(source: ExtensionSource, project_root: Path, home: Path | None = None) -> Built:
    """Bundle `source`; raises `LoadError` (from the manager) with the bundler's message."""
    from rho_ext_js.manager import LoadError

    reader = RecordingReader(source.root)
    try:
        built = bundle(source.entry, source.root, reader, label=source.name)
    except ModuleError as exc:
        raise LoadError(str(exc)) from None
    result = Built(built.script, sorted(reader.seen))
    if source.level == "project":
        store = TrustStore.load(home)
        root = project_root.resolve()
        problems = untrusted(store, root, reader.seen)
        if problems:
            result.untrusted = f"not trusted: {', '.join(problems[:5])}; {TRUST_HINT}"
    return result


__all__ = ["Built", "RecordingReader", "build"]
