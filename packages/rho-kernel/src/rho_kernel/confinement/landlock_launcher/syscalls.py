"""The Linux system calls the launcher makes, through ctypes (no third-party binding: the
launcher runs with `python -S`, outside rho's environment).

Each wrapper raises `OSError` with the call's errno when it fails. The new calls (Landlock,
the mount API, `openat2`) have the same numbers on every architecture; `capset` and the
rest come from libc.
"""

from __future__ import annotations

import ctypes
import os
import struct

# ── numbers (include/uapi) ───────────────────────────────────────────────────

SYS_OPEN_TREE = 428
SYS_MOVE_MOUNT = 429
SYS_OPENAT2 = 437
SYS_MOUNT_SETATTR = 442
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446

LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_SECCOMP = 22
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
AT_RECURSIVE = 0x8000
OPEN_TREE_CLONE = 1
MOVE_MOUNT_F_EMPTY_PATH = 0x4
MOVE_MOUNT_T_EMPTY_PATH = 0x40
MOUNT_ATTR_RDONLY = 0x1
RESOLVE_NO_MAGICLINKS = 0x2
RESOLVE_NO_SYMLINKS = 0x4

_CAPABILITY_VERSION_3 = 0x20080522


_LIBC: list[ctypes.CDLL] = []


def libc() -> ctypes.CDLL:
    """The C library, with errno kept (loaded once)."""
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def _checked(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


def syscall(number: int, *args: int | bytes | None, what: str) -> int:
    """`syscall(number, args…)`; bytes are passed as pointers to a copy, None as NULL."""
    call = libc().syscall
    call.restype = ctypes.c_long
    converted: list[object] = [ctypes.c_long(number)]
    keep = []
    for arg in args:
        if arg is None:
            converted.append(ctypes.c_void_p(None))
        elif isinstance(arg, bytes):
            buffer = ctypes.create_string_buffer(arg, len(arg))
            keep.append(buffer)
            converted.append(ctypes.cast(buffer, ctypes.c_void_p))
        else:
            converted.append(ctypes.c_long(arg))
    return _checked(call(*converted), what)


def prctl(option: int, arg2: int = 0, arg3: int = 0, *, what: str = "prctl") -> int:
    """`prctl(option, arg2, arg3, 0, 0)`."""
    function = libc().prctl
    function.restype = ctypes.c_int
    args = [ctypes.c_ulong(value) for value in (arg2, arg3, 0, 0)]
    return _checked(function(ctypes.c_int(option), *args), what)


# ── Landlock ─────────────────────────────────────────────────────────────────


def landlock_abi() -> int:
    """The Landlock ABI version of the running kernel (0: none, or disabled)."""
    try:
        return syscall(
            SYS_LANDLOCK_CREATE_RULESET,
            None,
            0,
            LANDLOCK_CREATE_RULESET_VERSION,
            what="landlock_create_ruleset",
        )
    except OSError:
        return 0


def landlock_create_ruleset(handled_fs: int, handled_net: int, scoped: int, size: int) -> int:
    """A ruleset fd handling those rights; `size` is the attribute size the ABI knows."""
    attr = struct.pack("<QQQ", handled_fs, handled_net, scoped)[:size]
    return syscall(SYS_LANDLOCK_CREATE_RULESET, attr, size, 0, what="landlock_create_ruleset")


def landlock_add_path(ruleset: int, fd: int, access: int) -> None:
    """Allow `access` beneath the file or directory open at `fd`."""
    attr = struct.pack("<Qi", access, fd)  # struct landlock_path_beneath_attr is packed
    syscall(
        SYS_LANDLOCK_ADD_RULE,
        ruleset,
        LANDLOCK_RULE_PATH_BENEATH,
        attr,
        0,
        what="landlock_add_rule",
    )


def landlock_restrict_self(ruleset: int) -> None:
    """Enforce the ruleset on this thread and everything it starts from now on."""
    syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0, what="landlock_restrict_self")


# ── mounts ───────────────────────────────────────────────────────────────────


def unshare(flags: int) -> None:
    """Enter new namespaces (`CLONE_NEW*`)."""
    function = libc().unshare
    function.restype = ctypes.c_int
    _checked(function(ctypes.c_int(flags)), "unshare")


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    """`mount(2)`."""
    function = libc().mount
    function.restype = ctypes.c_int
    args = [None if text is None else os.fsencode(text) for text in (source, target, fstype)]
    payload = None if data is None else data.encode()
    _checked(
        function(args[0], args[1], args[2], ctypes.c_ulong(flags), payload),
        f"mount {target}",
    )


def open_path(path: str) -> int:
    """An `O_PATH` descriptor of `path`, refusing every symbolic link on the way (a link
    swapped in after the policy was made must not move a mount elsewhere)."""
    how = struct.pack(
        "<QQQ", os.O_PATH | os.O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
    )
    return syscall(
        SYS_OPENAT2, AT_FDCWD, os.fsencode(path) + b"\0", how, len(how), what=f"open {path}"
    )


def clone_tree(fd: int) -> int:
    """A detached copy of the mount tree at `fd` (`open_tree(OPEN_TREE_CLONE)`)."""
    flags = OPEN_TREE_CLONE | AT_EMPTY_PATH | AT_RECURSIVE | os.O_CLOEXEC
    return syscall(SYS_OPEN_TREE, fd, b"\0", flags, what="open_tree")


def make_read_only(tree: int) -> None:
    """Make every mount of the detached tree `tree` read-only."""
    attr = struct.pack("<QQQQ", MOUNT_ATTR_RDONLY, 0, 0, 0)
    syscall(
        SYS_MOUNT_SETATTR,
        tree,
        b"\0",
        AT_EMPTY_PATH | AT_RECURSIVE,
        attr,
        len(attr),
        what="mount_setattr",
    )


def attach_tree(tree: int, target: int) -> None:
    """Mount the detached tree `tree` on the file or directory open at `target`."""
    flags = MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH
    syscall(SYS_MOVE_MOUNT, tree, b"\0", target, b"\0", flags, what="move_mount")


# ── privileges ───────────────────────────────────────────────────────────────


def capset_none() -> None:
    """Drop every effective, permitted and inheritable capability."""
    function = libc().capset
    function.restype = ctypes.c_int
    header = ctypes.create_string_buffer(struct.pack("<Ii", _CAPABILITY_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(bytes(24), 24)
    _checked(function(header, data), "capset")


def install_seccomp(program: bytes) -> None:
    """Load the classic BPF `program` as this thread's seccomp filter (`no_new_privs` must
    be set first)."""
    count = len(program) // 8
    filters = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("<H6xQ", count, ctypes.addressof(filters))
    buffer = ctypes.create_string_buffer(fprog, len(fprog))
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(buffer), what="seccomp")
