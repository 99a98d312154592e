"""The launcher's steps: read the document, isolate, restrict, lock down, `exec`."""

from __future__ import annotations

import os
import sys

from .document import Document
from .namespaces import isolate
from .privileges import drop_privileges, filter_system_calls
from .rules import plan, restrict
from .syscalls import landlock_abi

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
else:  # the C module: `signal` itself imports `enum`, a good part of the launcher's start
    import _signal as signal

#: The exit status when the launcher cannot confine the command (nothing ran).
FAILED = 126
#: The exit status when the command cannot be started (as shells have it).
NOT_FOUND = 127
#: How the launcher's own messages start, on the command's stderr.
PREFIX = "rho sandbox: "


def main(args: list[str]) -> int:
    """`DOCUMENT -- ARGV…`: run ARGV confined as DOCUMENT says; returns only on failure."""
    if len(args) < 3 or args[1] != "--":
        return _fail("usage: launcher DOCUMENT -- ARGV…")
    try:
        document = Document.decode(args[0])
    except (ValueError, TypeError) as exc:
        return _fail(f"unreadable document ({exc})")
    argv = args[2:]
    abi = landlock_abi()
    if abi < 1:
        return _fail("Landlock is not available in this kernel")
    try:
        confine(document, abi)
    except OSError as exc:
        return _fail(f"could not confine the command: {exc}")
    os.environ.update(document.environment)  # confined now: the loader's variables too
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        print(f"{PREFIX}{argv[0]}: {exc.strerror}", file=sys.stderr)
        return NOT_FOUND


def confine(document: Document, abi: int) -> None:
    """Every restriction of `document`, on this process (and what it will `exec`)."""
    mounted = document.namespaces != "none"
    if mounted:
        isolate(document)
    tmp = "/tmp" if mounted else document.tmpdir
    grants = plan(
        root=document.root,
        writable=document.writable,
        read_only=document.read_only,
        read_deny=document.read_deny,
        mounted=mounted,
        tmp=tmp,
    )
    os.chdir(document.cwd)
    if tmp:
        os.environ["TMPDIR"] = tmp
    for number in (signal.SIGPIPE, signal.SIGXFSZ):  # as a shell would give them
        signal.signal(number, signal.SIG_DFL)
    drop_privileges()
    restrict(grants, abi, tcp=not document.network and not mounted)
    filter_system_calls(document.seccomp)


def _fail(message: str) -> int:
    print(f"{PREFIX}{message}", file=sys.stderr)
    return FAILED
