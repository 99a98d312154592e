"""Telling the model that a failed command hit the sandbox, so it asks instead of retrying."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.process.runner import ProcessResult
    from rho_kernel.tools.base import ToolResult

#: Output that a confined command shows when the sandbox stopped it: (text, what was blocked).
SANDBOX_SIGNS: tuple[tuple[str, str], ...] = (
    ("Read-only file system", "a write outside the project"),
    ("Permission denied", "a write outside the project or a read of credentials"),
    ("Operation not permitted", "a write outside the project or a network connection"),
    ("Network is unreachable", "network access"),
    ("Could not resolve host", "network access"),
    ("Temporary failure in name resolution", "network access"),
    ("Name or service not known", "network access"),
    ("nodename nor servname", "network access"),
    ("getaddrinfo", "network access"),
    ("Connection refused", "network access"),
)


def sandbox_note(result: ProcessResult, *, escalation: str | None = None) -> str | None:
    """A note for a confined command that failed with a sign of the sandbox, else None.
    `escalation` names the tool whose `sandbox` parameter leaves the sandbox for one call
    (added in 0.3): the note then tells the model to ask that way."""
    if result.confined_by is None or result.ok:
        return None
    output = f"{result.stdout}\n{result.stderr}"
    signs = [(text, what) for text, what in SANDBOX_SIGNS if text in output]
    if not signs:
        return None
    text, blocked = signs[0]
    return (
        f'[sandbox: the command ran confined ({result.confined_by}); "{text}" above is likely '
        f"the sandbox refusing {blocked}. Commands may write only inside the project (not "
        ".git or .rho) and have no network unless the user allows it. Do not retry the same "
        f"way: {_way_out(escalation)}]"
    )


def _way_out(escalation: str | None) -> str:
    if escalation is None:
        return (
            "use paths inside the project, or ask the user to allow it ([sandbox] writable or "
            "network in their config)."
        )
    return (
        f"use paths inside the project; or, if this command truly needs more, call "
        f'{escalation} again with sandbox: "network" (or "unconfined") and a justification, '
        "which asks the user for this one call."
    )


#: Paths named in the note at most (the details hold up to `_MAX_DETAILED`).
_MAX_NAMED = 20
_MAX_DETAILED = 1000


def printable(path: str) -> str:
    """`path` with control and other invisible format characters escaped (`\\n`,
    `\\x1b`, `\\u202e`), so that a name cannot forge or hide lines of a result."""
    if all(not unicodedata.category(ch).startswith("C") for ch in path):
        return path
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch).startswith("C")
        else ch
        for ch in path
    )


def _named(paths: list[str]) -> str:
    """The first `_MAX_NAMED` of `paths`, escaped, and how many more there are."""
    named = ", ".join(printable(path) for path in paths[:_MAX_NAMED])
    if len(paths) > _MAX_NAMED:
        named += f" and {len(paths) - _MAX_NAMED} more"
    return named


def created_note(created: list[str]) -> str:
    """The line that reports `created` (paths relative to the project): repository
    internals a command made, which no rule could keep read-only while it ran."""
    return (
        f"[sandbox: the command created {_named(created)}, which commands may not write once they "
        "exist: a .git or .rho made during a command was writable to it. git run there "
        "would use its hooks and config; check it before running git there.]"
    )


def revealed_note(revealed: list[str]) -> str:
    """The line that reports `revealed` (paths relative to the project): repository
    internals found after a command in a directory that could not be listed before it."""
    return (
        f"[sandbox: {_named(revealed)} came to light after the command, in a folder rho could not list "
        "before it (the folder was kept read-only, so the command could not write there, "
        "but whoever made it readable may have changed it): check it before running git "
        "there.]"
    )


def with_created_note(
    result: ToolResult, created: list[str], revealed: list[str] | None = None
) -> ToolResult:
    """`result` with `created_note` (and `revealed_note`) appended to its output and the
    paths in its details (under `createdRepositories` and `revealedRepositories`, when the
    details are a dict or absent)."""
    revealed = revealed or []
    notes = [created_note(created)] if created else []
    notes += [revealed_note(revealed)] if revealed else []
    if not notes:
        return result
    from rho_kernel.tools.base import ToolResult

    details = result.details
    if details is None or isinstance(details, dict):
        details = dict(details or {})
        for key, paths in (("createdRepositories", created), ("revealedRepositories", revealed)):
            if paths:
                details[key] = [printable(path) for path in paths[:_MAX_DETAILED]]
    output = "\n".join([result.output, *notes] if result.output else notes)
    return ToolResult(output, result.is_error, details)


__all__ = [
    "SANDBOX_SIGNS",
    "created_note",
    "printable",
    "revealed_note",
    "sandbox_note",
    "with_created_note",
]
