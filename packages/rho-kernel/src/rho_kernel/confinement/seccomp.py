"""The seccomp filter of a confined command: no setuid or setgid files, and for the Landlock
backend, no namespaces and (where nothing else cuts it) no network.

When rho runs as root, the confined uid maps to host root, so whatever a command creates is
owned by root; with `chmod u+s` it could leave a setuid-root program in the project for any
local user to run. The filter makes every system call that could set `S_ISUID` or `S_ISGID`
on a file fail with `EPERM` when its mode has either bit (`chmod`, `fchmod`, `fchmodat`,
`fchmodat2`, `open`, `openat`, `creat`, `mkdir`, `mkdirat`, `mknod`, `mknodat`), and the
calls whose mode it cannot read fail with `ENOSYS`, so programs fall back to ones it can:
`openat2` (the mode is in a struct) and io_uring (its `openat`/`mkdirat` operations are
not system calls).

The architecture is checked first: x86-64 (whose x32 calls, numbers with bit 30 set, get
`ENOSYS`), i386 (32-bit programs on an x86-64 kernel) and AArch64 each have their own
numbers; a process making calls of any other architecture is killed, so no compat call can
slip past. It is a classic BPF program (`struct sock_filter` entries, native byte order) for
little-endian machines, where an argument's low 32 bits are at its offset in
`struct seccomp_data`.

Two more rules serve the Landlock backend, which has no bubblewrap to do the same
(`FilterOptions`): `namespaces` refuses new namespaces (`unshare` and `clone` with a
`CLONE_NEW*` flag and `setns` fail with `EPERM`; `clone3`, whose flags are in a struct, with
`ENOSYS`, so programs fall back to `clone`), and `network` refuses every socket but a Unix
one and every `connect` (`EACCES`; 32-bit `socketcall`, whose arguments are in memory, gets
`ENOSYS`), for a command that has no network namespace of its own to cut it off.
"""

from __future__ import annotations

import errno
import platform
import struct
import sys
from dataclasses import dataclass

#: `platform.machine()` values the filter is made for (elsewhere there is none).
MACHINES = frozenset({"x86_64", "amd64", "aarch64", "arm64"})
#: The permission bits the filter refuses: set-user-ID and set-group-ID.
SETID_BITS = 0o6000

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K

_ALLOW = 0x7FFF0000
_AF_UNIX = 1
#: The `CLONE_NEW*` flags of `clone` (whose low byte is the exit signal, so no
#: `CLONE_NEWTIME` there) and of `unshare` (which has it).
CLONE_NAMESPACES = 0x7E020000
UNSHARE_NAMESPACES = CLONE_NAMESPACES | 0x80
_ERRNO = 0x00050000
_KILL_PROCESS = 0x80000000

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
#: x32 system calls are x86-64 ones with this bit set in the number.
X32_SYSCALL_BIT = 0x40000000

_NR, _ARCH, _ARGS = 0, 4, 16


@dataclass(frozen=True, slots=True)
class SyscallTable:
    """One architecture's calls: number → index of the mode argument, the calls that get
    `ENOSYS`, and the numbers the namespace and network rules look at."""

    arch: int
    mode_argument: dict[int, int]
    unsupported: tuple[int, ...]
    unshare: int
    clone: int
    setns: int
    socket: int
    connect: int
    #: The 32-bit multiplexer of socket calls (None: the architecture has none).
    socketcall: int | None = None


@dataclass(frozen=True, slots=True)
class FilterOptions:
    """What the filter refuses besides set-ID modes (see the module)."""

    namespaces: bool = False
    network: bool = False


# openat2, io_uring_setup, io_uring_enter, io_uring_register: the same on every architecture.
_UNREADABLE = (437, 425, 426, 427)

X86_64 = SyscallTable(
    AUDIT_ARCH_X86_64,
    # open, creat, mkdir, mknod, chmod, fchmod, openat, mkdirat, mknodat, fchmodat, fchmodat2
    {2: 2, 85: 1, 83: 1, 133: 1, 90: 1, 91: 1, 257: 3, 258: 2, 259: 2, 268: 2, 452: 2},
    _UNREADABLE,
    unshare=272,
    clone=56,
    setns=308,
    socket=41,
    connect=42,
)
I386 = SyscallTable(
    AUDIT_ARCH_I386,
    # open, creat, mknod, chmod, mkdir, fchmod, openat, mkdirat, mknodat, fchmodat, fchmodat2
    {5: 2, 8: 1, 14: 1, 15: 1, 39: 1, 94: 1, 295: 3, 296: 2, 297: 2, 306: 2, 452: 2},
    _UNREADABLE,
    unshare=310,
    clone=120,
    setns=346,
    socket=359,
    connect=362,
    socketcall=102,
)
AARCH64 = SyscallTable(
    AUDIT_ARCH_AARCH64,
    # mknodat, mkdirat, fchmod, fchmodat, openat, fchmodat2 (no legacy calls)
    {33: 2, 34: 2, 52: 1, 53: 2, 56: 3, 452: 2},
    _UNREADABLE,
    unshare=97,
    clone=220,
    setns=268,
    socket=198,
    connect=203,
)
#: `clone3`: the same number everywhere.
CLONE3 = 435
TABLES = (X86_64, I386, AARCH64)


class _Program:
    """A BPF program with forward jumps to named labels, resolved by `assemble`."""

    def __init__(self) -> None:
        self.items: list[tuple[int, int, str | None, str | None] | str] = []

    def stmt(self, code: int, k: int) -> None:
        self.items.append((code, k, None, None))

    def jump(self, code: int, k: int, true: str | None, false: str | None = None) -> None:
        self.items.append((code, k, true, false))

    def label(self, name: str) -> None:
        self.items.append(name)

    def assemble(self) -> bytes:
        where: dict[str, int] = {}
        count = 0
        for item in self.items:
            if isinstance(item, str):
                where[item] = count
            else:
                count += 1
        out = bytearray()
        index = 0
        for item in self.items:
            if isinstance(item, str):
                continue
            code, k, true, false = item
            jt = where[true] - index - 1 if true is not None else 0
            jf = where[false] - index - 1 if false is not None else 0
            if not (0 <= jt <= 255 and 0 <= jf <= 255):
                raise ValueError("seccomp filter jump out of range")
            out += struct.pack("=HBBI", code, jt, jf, k)
            index += 1
        return bytes(out)


def _section(program: _Program, table: SyscallTable, name: str, options: FilterOptions) -> None:
    program.label(name)
    program.stmt(_LD_W_ABS, _NR)
    if table.arch == AUDIT_ARCH_X86_64:
        program.jump(_JGE, X32_SYSCALL_BIT, "enosys")
    for number, argument in table.mode_argument.items():
        program.jump(_JEQ, number, f"mode_in_{argument}")
    for number in table.unsupported:
        program.jump(_JEQ, number, "enosys")
    if options.namespaces:
        program.jump(_JEQ, table.clone, "clone_flags")
        program.jump(_JEQ, table.unshare, "unshare_flags")
        program.jump(_JEQ, CLONE3, "enosys")
        program.jump(_JEQ, table.setns, "eperm")
    if options.network:
        program.jump(_JEQ, table.socket, "socket_domain")
        program.jump(_JEQ, table.connect, "eacces")
        if table.socketcall is not None:
            program.jump(_JEQ, table.socketcall, "enosys")
    program.stmt(_RET, _ALLOW)


def _argument_rules(program: _Program, options: FilterOptions) -> None:
    """The checks of one argument's low 32 bits that the sections jump to."""
    for argument in sorted({a for t in TABLES for a in t.mode_argument.values()}):
        program.label(f"mode_in_{argument}")
        program.stmt(_LD_W_ABS, _ARGS + 8 * argument)  # the low 32 bits (little-endian)
        program.jump(_JSET, SETID_BITS, "eperm")
        program.stmt(_RET, _ALLOW)
    if options.namespaces:
        for label, flags in (
            ("clone_flags", CLONE_NAMESPACES),
            ("unshare_flags", UNSHARE_NAMESPACES),
        ):
            program.label(label)
            program.stmt(_LD_W_ABS, _ARGS)
            program.jump(_JSET, flags, "eperm")
            program.stmt(_RET, _ALLOW)
    if options.network:
        program.label("socket_domain")
        program.stmt(_LD_W_ABS, _ARGS)
        program.jump(_JEQ, _AF_UNIX, "allow", "eacces")


def build_filter(options: FilterOptions | None = None) -> bytes:
    """The filter program, as bwrap's `--seccomp FD` and `prctl(PR_SET_SECCOMP)` read it;
    `options`: what more it refuses (by default, only set-ID modes)."""
    options = options or FilterOptions()
    program = _Program()
    program.stmt(_LD_W_ABS, _ARCH)
    for table in TABLES:
        program.jump(_JEQ, table.arch, f"arch_{table.arch:x}")
    program.stmt(_RET, _KILL_PROCESS)
    for table in TABLES:
        _section(program, table, f"arch_{table.arch:x}", options)
    _argument_rules(program, options)
    program.label("allow")
    program.stmt(_RET, _ALLOW)
    program.label("eperm")
    program.stmt(_RET, _ERRNO | errno.EPERM)
    program.label("eacces")
    program.stmt(_RET, _ERRNO | errno.EACCES)
    program.label("enosys")
    program.stmt(_RET, _ERRNO | errno.ENOSYS)
    return program.assemble()


def filter_for_machine(
    machine: str | None = None, options: FilterOptions | None = None
) -> bytes | None:
    """The filter for this machine (`machine`: a `platform.machine()` value), or None where
    it is not made for it (another architecture, or a big-endian one)."""
    machine = platform.machine() if machine is None else machine
    if machine.lower() not in MACHINES or sys.byteorder != "little":
        return None
    return build_filter(options)


__all__ = [
    "AARCH64",
    "CLONE3",
    "CLONE_NAMESPACES",
    "I386",
    "MACHINES",
    "SETID_BITS",
    "TABLES",
    "UNSHARE_NAMESPACES",
    "X86_64",
    "FilterOptions",
    "SyscallTable",
    "build_filter",
    "filter_for_machine",
]
