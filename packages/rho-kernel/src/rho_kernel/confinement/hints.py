"""Telling the model that a failed command hit the sandbox, so it asks instead of retrying."""

from __future__ import annotations

from rho_kernel.process.runner import ProcessResult

#: Output that a confined command shows when the sandbox stopped it: (text, what was blocked).
SANDBOX_SIGNS: tuple[tuple[str, str], ...] = (
    ("Read-only file system", "a write outside the project"),
    ("Operation not permitted", "a write outside the project or a network connection"),
    ("Network is unreachable", "network access"),
    ("Could not resolve host", "network access"),
    ("Temporary failure in name resolution", "network access"),
    ("Name or service not known", "network access"),
    ("nodename nor servname", "network access"),
    ("getaddrinfo", "network access"),
    ("Connection refused", "network access"),
)


def sandbox_note(result: ProcessResult) -> str | None:
    """A note for a confined command that failed with a sign of the sandbox, else None."""
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
        "way: use paths inside the project, or ask the user to allow it ([sandbox] writable "
        "or network in their config).]"
    )


__all__ = ["SANDBOX_SIGNS", "sandbox_note"]
