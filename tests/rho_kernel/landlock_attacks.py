"""The escape attempts of the Landlock tests: one shell script that tries every way out of the
policy a confined command has, one line each (`label=ok` when the attempt worked), and the
things that must keep working (`label=ok` expected).

Run by `test_landlock_attacks.py` in every tier the machine offers, as root and as a user.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Places:
    """What the attacks aim at."""

    project: Path
    outside: Path
    home: Path
    python: str
    rho_pid: int
    listener_port: int
    denied_socket: Path


#: (label, command): each must fail. `{…}` are `Places` fields.
ATTACKS: tuple[tuple[str, str], ...] = (
    # writes outside the project
    ("write-outside", "echo X > {outside}/planted"),
    ("write-home", "echo X > {home}/planted"),
    ("write-etc", "echo X > /etc/rho-landlock-planted"),
    ("write-usr", "echo X > /usr/local/bin/rho-landlock-planted"),
    ("mkdir-outside", "mkdir {outside}/dir"),
    # the project's repository internals
    ("git-config", "echo '[core] fsmonitor = touch {outside}/fsmon' >> .git/config"),
    ("git-hook-new", "echo 'touch {outside}/hooked' > .git/hooks/pre-commit"),
    ("git-commondir", "echo {outside} > .git/commondir"),
    ("git-rename", "mv .git .git-moved"),
    ("git-remove", "rm -f .git/HEAD"),
    ("git-symlink-in", "ln -s {outside} .git/hooks/linked"),
    ("git-via-link", "ln -s .git gl && echo X > gl/hooks/post-commit"),
    ("nested-git", "echo X > sub/.git/config"),
    ("rho-config", "echo X > .rho/config.toml"),
    ("unreadable-dir", "chmod 755 locked && echo X > locked/.git/config"),
    # credentials
    ("read-ssh", "cat {home}/.ssh/id_rsa"),
    ("list-ssh", "ls {home}/.ssh"),
    ("list-rho", "ls {home}/.rho"),
    ("read-rho", "cat {home}/.rho/sessions/s.jsonl"),
    ("read-rho-environ", "cat /proc/{rho_pid}/environ"),
    ("read-init-environ", "cat /proc/1/environ"),
    ("read-rho-mem", "head -c 16 /proc/{rho_pid}/mem"),
    ("read-rho-cwd", "readlink /proc/{rho_pid}/cwd"),
    # network and sockets
    (
        "tcp-host",
        "{python} -c 'import socket; socket.create_connection((\"127.0.0.1\", {listener_port}), 5)'",
    ),
    (
        "udp",
        '{python} -c \'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", {listener_port}))\' && {python} -c \'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("192.0.2.1", 53))\'',
    ),
    (
        "raw-socket",
        "{python} -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)'",
    ),
    (
        "denied-socket",
        "{python} -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(\"{denied_socket}\")'",
    ),
    # privileges
    ("unshare-user", "unshare -U true"),
    ("unshare-mount", "unshare -m true"),
    ("mount-tmpfs", "mount -t tmpfs none {project}/m"),
    ("chroot", "chroot / true"),
    ("mknod", "mknod {project}/disk b 8 0"),
    ("setuid-bit", "touch s && chmod u+s s"),
    ("signal-rho", "kill -0 {rho_pid}"),
)

#: (label, command): each must work.
ALLOWED: tuple[tuple[str, str], ...] = (
    ("write-src", "echo made > src/new.txt"),
    ("mkdir-src", "mkdir -p src/deep/er && echo ok > src/deep/er/f"),
    ("rewrite-top", "echo more >> README"),
    ("read-git", "cat .git/HEAD"),
    ("read-system", "cat /etc/hostname /etc/os-release"),
    ("tmp", 'echo x > "${{TMPDIR:-/tmp}}/t" && cat "${{TMPDIR:-/tmp}}/t"'),
    ("dev-null", "echo x > /dev/null"),
    ("run-python", "{python} -c 'print(1)'"),
    ("pipe", "echo hi | cat"),
    ("chmod-x", "touch src/exe && chmod +x src/exe"),
)
#: What a command may do only where it has a mount namespace (elsewhere, Landlock alone
#: cannot let it create in the top folder without letting it create in `.git`).
MOUNTED_ONLY: tuple[tuple[str, str], ...] = (
    ("create-top", "echo x > new-at-top"),
    ("mkdir-top", "mkdir top-dir"),
    (
        "localhost-own",
        "{python} -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); c=socket.create_connection(s.getsockname()); print(1)'",
    ),
)


def script(places: Places, checks: tuple[tuple[str, str], ...]) -> str:
    """A POSIX shell script printing `label=ok|fail` per check."""
    fields = places.__dict__
    lines = []
    for label, command in checks:
        text = command.format(**fields)
        lines.append(
            f"if ( {text} ) >/dev/null 2>&1; then echo {label}=ok; else echo {label}=fail; fi"
        )
    return "\n".join(lines) + "\n"


def outcome(stdout: str) -> dict[str, bool]:
    """label → whether it worked, from the script's output."""
    found = {}
    for line in stdout.split():
        label, _, said = line.partition("=")
        found[label] = said == "ok"
    return found
