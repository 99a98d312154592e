"""The Landlock ruleset of a command: what it may read, write and reach.

Landlock only ever allows, and a right given on a directory holds for everything beneath
it. So a path that must stay out is kept out by giving rights on its *siblings* instead of
its parent ("carving"), down the chain of directories that lead to it:

- reads: everything beneath `/` except the credentials (`read_deny`), `/dev` (only its
  harmless devices: a raw disk is readable to root's uid even without capabilities) and,
  without a private `/tmp`, `/tmp` (rho gives the command a temp directory of its own);
- writes: the project and the granted paths, all of it where a mount keeps its `.git` and
  `.rho` read-only; where no mount can (`namespaces = "none"`), carved around them, so a
  directory holding one (the project's top folder, mostly) gets no new entries: the files
  in it stay writable, but nothing can be created, removed or renamed there, since a right
  to create there would be a right to create inside `.git` too.

A directory on the way to a carved-out path gets no right of its own (not even listing:
listing it would list what the carved path holds).
"""

from __future__ import annotations

import os
import stat

from .syscalls import landlock_add_path, landlock_create_ruleset, landlock_restrict_self

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13
TRUNCATE = 1 << 14
IOCTL_DEV = 1 << 15

NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

#: The rights a rule on a file (not a directory) may carry.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ = EXECUTE | READ_FILE | READ_DIR
#: Everything (masked to what the ABI handles).
ALL = (1 << 16) - 1
#: A file in a directory that must not get new entries: read and rewrite it in place.
REWRITE = READ | WRITE_FILE | TRUNCATE
DEVICE = READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV
#: The devices a command may use (the terminals for programs that make a pty).
DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
)

Grants = dict[str, int]
TYPE_CHECKING = False  # not `typing`'s, nor `collections.abc` at run time: the launcher's start
if TYPE_CHECKING:
    from collections.abc import Iterable


def handled_access(abi: int) -> int:
    """The file-system rights the kernel's ABI knows (all of them are handled)."""
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _inside(outer: str, path: str) -> bool:
    return outer == "/" or path.startswith(outer + "/")


def carve(
    grants: Grants,
    top: str,
    access: int,
    *,
    excluded: Iterable[str] = (),
    keep: dict[str, int] | None = None,
    file_access: int | None = None,
) -> None:
    """Give `access` beneath `top` but not beneath `excluded` (which get `keep`'s rights, or
    none); the files of a directory on the way to an excluded path get `file_access`."""
    excluded = set(excluded)
    keep = keep or {}
    if top in excluded:
        if keep.get(top):
            _grant(grants, top, keep[top])
        return
    below = [path for path in excluded if _inside(top, path)]
    if not below:
        _grant(grants, top, access)
        return
    try:
        with os.scandir(top) as listing:
            children = list(listing)
    except OSError:
        return  # nothing given: nothing reachable
    for child in children:
        try:
            if child.is_symlink():
                continue  # what it names is covered where it lies
            if child.is_dir(follow_symlinks=False):
                carve(
                    grants, child.path, access, excluded=below, keep=keep, file_access=file_access
                )
            elif child.path in keep:
                _grant(grants, child.path, keep[child.path])
            elif child.path not in below:
                _grant(grants, child.path, access if file_access is None else file_access)
        except OSError:
            continue


def _grant(grants: Grants, path: str, access: int) -> None:
    grants[path] = grants.get(path, 0) | access


def plan(
    *,
    root: str,
    writable: Iterable[str],
    read_only: Iterable[str],
    read_deny: Iterable[str],
    mounted: bool,
    tmp: str | None,
) -> Grants:
    """Every path to give rights on, and which (see the module). `mounted`: mounts already
    keep `read_only` read-only and hide `read_deny` inside the writable places."""
    grants: Grants = {}
    deny = list(read_deny)
    hidden = [*deny, "/dev"] + ([] if mounted else ["/tmp"])
    carve(grants, "/", READ, excluded=hidden, file_access=READ_FILE | EXECUTE)
    _grant(grants, "/dev", READ_DIR)
    for device in DEVICES:
        _grant(grants, device, DEVICE)
    _grant(grants, "/dev/pts", READ_DIR | DEVICE)
    _grant(grants, "/dev/shm", ALL)
    protected = list(read_only)
    for place in (root, *writable):
        if mounted:
            _grant(grants, place, ALL)
            continue
        inside = [path for path in (*protected, *deny) if _inside(place, path)]
        keep = {path: READ for path in protected}
        carve(grants, place, ALL, excluded=inside, keep=keep, file_access=REWRITE)
    if tmp:
        _grant(grants, tmp, ALL)
    return grants


def restrict(grants: Grants, abi: int, *, tcp: bool) -> None:
    """Enforce `grants` on this process from now on. `tcp`: refuse every TCP bind and
    connect too (ABI 4 and later). Signals and abstract Unix sockets are scoped to the
    command's own processes where the ABI has scopes (6 and later)."""
    handled = handled_access(abi)
    network = NET_BIND_TCP | NET_CONNECT_TCP if tcp and abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = landlock_create_ruleset(handled, network, scoped, size)
    try:
        for path, access in grants.items():
            _add(ruleset, path, access & handled)
        landlock_restrict_self(ruleset)
    finally:
        os.close(ruleset)


def _add(ruleset: int, path: str, access: int) -> None:
    """One rule; a path that is gone, or is now a symbolic link, gets none (nothing is
    given through a link swapped in since the plan)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISLNK(mode):
            return
        if not stat.S_ISDIR(mode):
            access &= FILE_RIGHTS
        if access:
            landlock_add_path(ruleset, fd, access)
    finally:
        os.close(fd)
