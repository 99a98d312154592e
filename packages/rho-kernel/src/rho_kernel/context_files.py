"""Project context files: `AGENTS.md` and the like, added to the system prompt when trusted.

A repository can tell the agent how to work with it through the files of `[context]
scan_list` (default `AGENTS.md`, `.agents.md`, `CLAUDE.md`, `.cursorrules`,
`.rho/prompt.md`). Whoever can write to the repository writes them, so they are a prompt
injection vector: a file is added only while the user trusts it as it is (its SHA-256 in
`~/.rho/trusted_projects.toml`, recorded by `rho trust`). rho runs headless, so a new or
changed file is left out, with one note on stderr saying how to trust it.

Files are read through the sandbox root (never outside the project, never through a link
leading out of it), and are capped at `MAX_CONTEXT_FILE_BYTES`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from rho_kernel.diagnostics import warn as warn_stderr
from rho_kernel.security.sandbox import PathNotFoundError, SandboxError, SandboxRoot
from rho_kernel.security.trust import TrustStore, file_digest

#: A context file larger than this is left out (with a note).
MAX_CONTEXT_FILE_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class ContextFile:
    """One context file as read: its scan-list `name` (relative to the root) and its bytes."""

    name: str
    data: bytes

    @property
    def text(self) -> str:
        """The contents as text (invalid UTF-8 replaced)."""
        return self.data.decode("utf-8", errors="replace")


def plain_name(name: str) -> str | None:
    """`name` normalised as a path relative to the project root, or None when it is not one
    (absolute, with `..`, a backslash or a NUL, or empty)."""
    if not name or "\\" in name or "\0" in name or name.startswith("/"):
        return None
    parts = [part for part in PurePosixPath(name).parts if part != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def scan_context_files(
    root: SandboxRoot, scan_list: Iterable[str], *, warn: Callable[[str], None] | None = None
) -> list[ContextFile]:
    """The files of `scan_list` present in the project, in scan-list order.

    A name that is not a plain relative path, a file that cannot be read, or one larger
    than `MAX_CONTEXT_FILE_BYTES` is reported through `warn` (default: stderr) and skipped;
    a missing file is skipped silently.
    """
    report = warn or warn_stderr
    found: list[ContextFile] = []
    seen: set[str] = set()
    for raw in scan_list:
        name = plain_name(raw)
        if name is None:
            report(f"[context] scan_list: {raw!r} is not a path relative to the project root")
            continue
        if name in seen:
            continue
        seen.add(name)
        data = _read(root, name, report)
        if data is not None:
            found.append(ContextFile(name, data))
    return found


def _read(root: SandboxRoot, name: str, report: Callable[[str], None]) -> bytes | None:
    try:
        handle = root.open_read(name)
    except (PathNotFoundError, FileNotFoundError):
        return None
    except (SandboxError, OSError) as exc:
        report(f"context file {name} left out: {exc}")
        return None
    with contextlib.closing(handle):
        try:
            data = handle.read(MAX_CONTEXT_FILE_BYTES + 1)
        except OSError as exc:
            report(f"context file {name} left out: {exc.strerror or exc}")
            return None
    if len(data) > MAX_CONTEXT_FILE_BYTES:
        report(
            f"context file {name} left out: larger than {MAX_CONTEXT_FILE_BYTES} bytes, "
            "the limit for a file in the system prompt"
        )
        return None
    return data


def trusted_context_files(
    root: SandboxRoot,
    scan_list: Sequence[str],
    store: TrustStore,
    *,
    noted: set[tuple[str, str]] | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[ContextFile]:
    """The context files of the project that the user trusts as they are now.

    Each one left out (new, or changed since it was trusted) gets one note through `warn`
    (default: stderr) naming the file and the remedy; `noted` remembers the notes given,
    so a file is noted once per content however often this is called.
    """
    report = warn or warn_stderr
    trusted: list[ContextFile] = []
    known = {entry.file for entry in store.entries_for(root.path)}
    for found in scan_context_files(root, scan_list, warn=report):
        if store.is_trusted(root.path, found.name, found.data):
            trusted.append(found)
            continue
        key = (found.name, file_digest(found.data))
        if noted is not None:
            if key in noted:
                continue
            noted.add(key)
        why = "it changed since it was trusted" if found.name in known else "it is not trusted"
        report(
            f"{root.path / found.name}: context file left out of the system prompt: {why}; "
            "review it, then run 'rho trust' in the project to include it"
        )
    return trusted


def context_block(file: ContextFile, text: str | None = None) -> str:
    """`--- {name} ---\\n{contents, trimmed}\\n---`: a context file's part of the system prompt
    (`text` replaces the contents, e.g. once redacted)."""
    body = (file.text if text is None else text).strip()
    return f"--- {file.name} ---\n{body}\n---"


__all__ = [
    "MAX_CONTEXT_FILE_BYTES",
    "ContextFile",
    "context_block",
    "plain_name",
    "scan_context_files",
    "trusted_context_files",
]
