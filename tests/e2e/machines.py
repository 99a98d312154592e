"""Machines rho must cope with, made real for one process: a kernel without Landlock, and a
container where no namespace can be made.

`without_landlock(argv)` runs `argv` (rho, say) under a seccomp filter that makes the
Landlock system calls fail with `ENOSYS`, as a kernel built without Landlock (or older than
5.13) answers them; with bubblewrap off PATH too, no OS sandbox works for that process.
`without_namespaces(argv)` makes `unshare` fail with `EPERM`, as a container's seccomp
profile does: Landlock then confines with no namespace at all.
"""

from __future__ import annotations

import errno
import platform
import sys
from pathlib import Path

#: A stdlib program: `no_new_privs`, the filter, then exec of its arguments.
_PROGRAM = r"""
import ctypes, errno, os, struct, sys
LD, JEQ, RET = 0x20, 0x15, 0x06
ALLOW = 0x7FFF0000
error, *numbers = (int(word) for word in sys.argv[1].split(","))
insns = [(LD, 0, 0, 0)]
insns += [(JEQ, len(numbers) - i, 0, number) for i, number in enumerate(numbers)]
insns += [(RET, 0, 0, ALLOW), (RET, 0, 0, 0x00050000 | error)]
program = b"".join(struct.pack("=HBBI", *i) for i in insns)
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
buffer = ctypes.create_string_buffer(program, len(program))
fprog = ctypes.create_string_buffer(struct.pack("<H6xQ", len(insns), ctypes.addressof(buffer)), 16)
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.addressof(fprog), 0, 0) != 0:
    sys.exit("cannot install the filter: " + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[2], sys.argv[2:])
"""


def _refusing(error: int, numbers: tuple[int, ...], argv: list[str]) -> list[str]:
    return [sys.executable, "-I", "-c", _PROGRAM, ",".join(map(str, (error, *numbers))), *argv]


def without_landlock(argv: list[str]) -> list[str]:
    """`argv` run where the kernel has no Landlock (its calls, the same number on every
    machine, fail with ENOSYS)."""
    return _refusing(errno.ENOSYS, (444, 445, 446), argv)


def without_namespaces(argv: list[str]) -> list[str]:
    """`argv` run where no namespace can be made (`unshare` fails with EPERM; x86-64's
    number, or AArch64's)."""
    unshare = {"x86_64": 272, "aarch64": 97}.get(platform.machine(), 272)
    return _refusing(errno.EPERM, (unshare,), argv)


def path_without_bubblewrap(directory: Path) -> str:
    """A PATH directory with the usual tools but no `bwrap`."""
    import shutil

    directory.mkdir()
    for name in ("bash", "sh", "touch", "cat", "echo", "true", "env", "rg", "git", "id"):
        if found := shutil.which(name):
            (directory / name).symlink_to(found)
    return str(directory)


if __name__ == "__main__":  # `python machines.py without-landlock ARGV...`, for .ci/run
    run = {"without-landlock": without_landlock, "without-namespaces": without_namespaces}
    import os

    command = run[sys.argv[1]](sys.argv[2:])
    os.execv(command[0], command)
