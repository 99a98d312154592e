"""Machines rho must cope with, made real for one process: a kernel without Landlock.

`without_landlock(argv)` runs `argv` (rho, say) under a seccomp filter that makes the
Landlock system calls fail with `ENOSYS`, as a kernel built without Landlock (or older than
5.13) answers them; with bubblewrap off PATH too, no OS sandbox works for that process.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: A stdlib program: `no_new_privs`, the filter, then exec of its arguments.
_PROGRAM = r"""
import ctypes, errno, os, struct, sys
LD, JEQ, RET = 0x20, 0x15, 0x06
ALLOW, ENOSYS = 0x7FFF0000, 0x00050000 | errno.ENOSYS
# landlock_create_ruleset, _add_rule, _restrict_self: the same number on every machine.
insns = [(LD, 0, 0, 0), (JEQ, 3, 0, 444), (JEQ, 2, 0, 445), (JEQ, 1, 0, 446), (RET, 0, 0, ALLOW), (RET, 0, 0, ENOSYS)]
program = b"".join(struct.pack("=HBBI", *i) for i in insns)
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
buffer = ctypes.create_string_buffer(program, len(program))
fprog = ctypes.create_string_buffer(struct.pack("<H6xQ", len(insns), ctypes.addressof(buffer)), 16)
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:
    sys.exit("cannot install the filter: " + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])
"""


def without_landlock(argv: list[str]) -> list[str]:
    """`argv` run where the kernel has no Landlock."""
    return [sys.executable, "-I", "-c", _PROGRAM, *argv]


def path_without_bubblewrap(directory: Path) -> str:
    """A PATH directory with the usual tools but no `bwrap`."""
    import shutil

    directory.mkdir()
    for name in ("bash", "sh", "touch", "cat", "echo", "true", "env", "rg", "git", "id"):
        if found := shutil.which(name):
            (directory / name).symlink_to(found)
    return str(directory)
