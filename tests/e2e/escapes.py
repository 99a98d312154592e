"""The escape attempts a confined process makes in the sandbox tests: one shell script that
reports its capabilities and uid, and tries every privileged way out, one line each."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PYTHON = os.path.realpath(sys.executable)

#: (label, command): each must fail inside the sandbox.
ATTEMPTS: tuple[tuple[str, str], ...] = (
    ("umount", "umount -l /tmp"),
    ("remount-root", "mount -o remount,rw,bind /"),
    ("mount", "mount -t tmpfs none {outside}"),
    ("bind", "mount --bind {project} {outside}"),
    ("unshare-user", "unshare -U true"),
    ("unshare-mount", "unshare -m true"),
    ("unshare-root", "unshare -r true"),
    ("chroot", "chroot / true"),
    ("pivot-root", "mkdir -p {project}/pr/old && pivot_root {project}/pr {project}/pr/old"),
    ("mknod", "mknod {project}/disk b 8 0"),
    (
        "raw-socket",
        PYTHON + " -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)'",
    ),
    ("write-outside", "echo X > {outside}/file"),
    ("repro", "umount -l /tmp; mount -o remount,rw,bind /; echo X > {outside}/repro"),
)


def escape_script(project: Path, outside: Path) -> str:
    """A POSIX shell script printing `CapEff`, `uid=N` and `<label>=ok|fail` per attempt."""
    lines = ["grep '^CapEff:' /proc/self/status", 'echo "uid=$(id -u)"']
    for label, command in ATTEMPTS:
        text = command.format(project=project, outside=outside)
        lines.append(
            f"if ( {text} ) >/dev/null 2>&1; then echo {label}=ok; else echo {label}=fail; fi"
        )
    return "\n".join(lines) + "\n"


def assert_contained(report: str, outside: Path) -> None:
    """The report shows no capability, a uid that is not root and every attempt failed; and
    nothing was written in `outside`."""
    lines = report.split()
    assert "CapEff:" in lines and lines[lines.index("CapEff:") + 1] == "0000000000000000", report
    uid = next(line for line in lines if line.startswith("uid="))
    assert uid != "uid=0", report
    for label, _ in ATTEMPTS:
        assert f"{label}=fail" in lines, (label, report)
    assert list(outside.iterdir()) == [], list(outside.iterdir())
