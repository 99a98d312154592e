"""The command's namespaces, where the machine lets the launcher make them.

`isolate` enters new mount, PID and IPC namespaces (network too, without network), inside a
user namespace of its own when `namespaces = "user"`, then forks twice:

- the launcher waits for the namespace's first process and exits as it does;
- that process (pid 1 there) sets up the mounts and the loopback, starts the command, hands
  it the signals it gets, reaps what is left behind, and exits with the command's status,
  which ends every process of the namespace: nothing the command started outlives it, and
  everything dies with rho (the launcher has rho's parent-death signal, pid 1 the
  launcher's);
- the command's process returns from `isolate`, to be locked down and `exec`ed.

Mounts (in a namespace of the command's own, never propagated back): a fresh `/proc` of the
new PID namespace, a private `/tmp` (the project and granted paths beneath the old `/tmp`
are moved into it), every `.git`/`.rho` bound read-only onto itself, and the credentials
covered (an empty read-only directory, or `/dev/null`): Landlock keeps them unreadable
already, but cannot stop a `connect` to a socket such as `/run/docker.sock`.
"""

from __future__ import annotations

import errno
import os
import stat
import struct

from .document import Document
from .syscalls import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUSER,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    PR_SET_PDEATHSIG,
    attach_tree,
    clone_tree,
    make_read_only,
    mount,
    open_path,
    prctl,
    unshare,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
else:  # the C module: `signal` itself imports `enum`, a good part of the launcher's start
    import _signal as signal

#: Signals pid 1 hands to the command (pid 1 gets no default action of its own).
FORWARDED = (
    signal.SIGTERM,
    signal.SIGINT,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGCONT,
    signal.SIGWINCH,
)

_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def isolate(document: Document) -> None:
    """Enter the namespaces; returns only in the command's process (see the module)."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC
    if not document.network:
        flags |= CLONE_NEWNET
    if document.namespaces == "user":
        flags |= CLONE_NEWUSER
    unshare(flags)
    if document.namespaces == "user":
        inner = uid if document.inner_id is None else document.inner_id
        _map_ids(inner, uid, gid)
    first = os.fork()
    if first:
        _exit_as(first, forward=False)
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    set_up_mounts(document)
    if not document.network:
        loopback_up()
    command = os.fork()
    if command:
        _exit_as(command, forward=True)
    for number in FORWARDED:
        signal.signal(number, signal.SIG_DFL)


def _map_ids(inner: int, uid: int, gid: int) -> None:
    """Map `inner` to our own uid and gid (the only mapping an unprivileged process may
    write; it drops supplementary groups)."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{inner} {uid} 1")
    _write("/proc/self/gid_map", f"{inner} {gid} 1")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _exit_as(child: int, *, forward: bool) -> None:
    """Wait for `child` (reaping every other child meanwhile), then exit with its status:
    its exit code, or 128 + the signal that killed it. `forward`: hand the signals this
    process gets to `child`; otherwise they are only kept from ending this process early
    (the command gets the process group's signals itself)."""

    def handle(number: int, _frame: object) -> None:
        if forward:
            try:  # noqa: SIM105 (contextlib costs the launcher's start)
                os.kill(child, number)
            except OSError:
                pass  # the command has just ended

    for number in FORWARDED:
        signal.signal(number, handle)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(126)
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            os._exit(code if code >= 0 else 128 - code)


# ── mounts ───────────────────────────────────────────────────────────────────


def set_up_mounts(document: Document) -> None:
    """The command's view of the file system (see the module). A read-only bind or a
    cover that cannot be made stops the launch: it would be a hole."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    _private_tmp(document)
    try:  # noqa: SIM105 (contextlib costs the launcher's start)
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        pass  # the old /proc is kept: Landlock keeps other processes' secrets out of reach
    for path in document.read_only:
        _bind_read_only(path)
    for path in document.read_deny:
        _cover(path)


def _inside(outer: str, path: str) -> bool:
    return path == outer or path.startswith(outer + "/")


def _private_tmp(document: Document) -> None:
    places = [p for p in (document.root, *document.writable) if _inside("/tmp", p)]
    places = [p for p in places if not any(o != p and _inside(o, p) for o in places)]
    trees = []
    for place in places:
        fd = open_path(place)
        try:
            trees.append((place, clone_tree(fd)))
        finally:
            os.close(fd)
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    for place, tree in trees:
        try:
            os.makedirs(place, exist_ok=True)
            _attach(tree, place)
        finally:
            os.close(tree)


def _attach(tree: int, path: str) -> None:
    """Mount the detached `tree` on `path` (reached without following a link)."""
    fd = open_path(path)
    try:
        attach_tree(tree, fd)
    finally:
        os.close(fd)


def _bind_read_only(path: str) -> None:
    """Bind `path` read-only onto itself. A symbolic link (`.git` naming a directory) is
    left alone: nothing can be mounted on a link, and its target, where it matters, is in
    the list too; a link anywhere else on the way stops the launch."""
    try:
        fd = open_path(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP and stat.S_ISLNK(os.lstat(path).st_mode):
            return
        raise
    try:
        tree = clone_tree(fd)
        try:
            make_read_only(tree)
            attach_tree(tree, fd)
        finally:
            os.close(tree)
    finally:
        os.close(fd)


def _cover(path: str) -> None:
    """Put an empty read-only directory, or `/dev/null`, over `path` (nothing where it does
    not exist, or where this uid cannot even reach it: it is out of reach already)."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return
    if stat.S_ISDIR(info.st_mode):
        mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0555")
        return
    null = open_path("/dev/null")
    try:
        tree = clone_tree(null)
    finally:
        os.close(null)
    try:
        _attach(tree, path)
    finally:
        os.close(tree)


def loopback_up() -> None:
    """Bring up the new network namespace's loopback (down when it is made), so that a
    command's own servers on 127.0.0.1 work as on the host."""
    import _socket  # the C module: `socket` itself costs the launcher several milliseconds
    import fcntl

    sock = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sh14x", b"lo", 0)
        flags = struct.unpack("16sh14x", fcntl.ioctl(sock.fileno(), _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), _SIOCSIFFLAGS, struct.pack("16sh14x", b"lo", flags | _IFF_UP))
    finally:
        sock.close()
