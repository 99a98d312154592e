"""The setuid/setgid attempts a confined process makes in the sandbox tests: one shell script
that tries every way to leave a file with the set-user-ID or set-group-ID bit in the project
(each must fail), and the ordinary permission changes and a build (each must work)."""

from __future__ import annotations

import io
import os
import platform
import stat
import sys
import tarfile
from pathlib import Path

PYTHON = os.path.realpath(sys.executable)
X86_64 = platform.machine() == "x86_64"
#: A setuid program of the host, when there is one (a copy must not keep the bit).
PASSWD = "/usr/bin/passwd"
HOST_SETUID = os.path.exists(PASSWD) and bool(os.stat(PASSWD).st_mode & stat.S_ISUID)

#: A helper the script runs as `python3 setid_helper.py NAME...`: each named call runs in a
#: child process of its own (forked: one interpreter start for all of them, which was most of
#: the script's time) and `NAME=ok` (the call worked) or `NAME=fail` is printed for it.
HELPER = r'''
import ctypes, mmap, os, stat, struct, sys, tarfile
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100


def call(number, *args):
    done = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) if isinstance(a, int) else a for a in args))
    if done < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return done


def fresh(name):
    open(name, "w").close()
    return name


def int80(number, first, second):
    """An i386 system call (int 0x80) from this x86-64 process; eax is returned."""
    memory = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    assert base < 2**32
    if isinstance(first, bytes):
        memory[256:256 + len(first) + 1] = first + b"\0"
        first = base + 256
    code = (b"\x53\xb8" + struct.pack("<I", number) + b"\xbb" + struct.pack("<I", first)
            + b"\xb9" + struct.pack("<I", second) + b"\xcd\x80\x5b\xc3")
    memory[0:len(code)] = code
    result = ctypes.CFUNCTYPE(ctypes.c_int)(base)()
    if result < 0:
        raise OSError(-result, os.strerror(-result))


def link_tmpfile(fd, name):
    """Give an O_TMPFILE file a name (linkat through /proc with AT_SYMLINK_FOLLOW)."""
    if libc.linkat(AT_FDCWD, b"/proc/self/fd/%d" % fd, AT_FDCWD, name, 0x400) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def here():
    return os.open(".", os.O_RDONLY | os.O_DIRECTORY)


ATTACKS = {
    "py-chmod": lambda: os.chmod(fresh("p1"), 0o4755),
    "py-chmod-setgid": lambda: os.chmod(fresh("p2"), 0o2755),
    "py-fchmod": lambda: os.fchmod(os.open(fresh("p3"), os.O_RDONLY), 0o4755),
    "py-fchmodat": lambda: (fresh("p4"), os.chmod("p4", 0o6755, dir_fd=here())),
    "fchmodat2": lambda: (fresh("p5"), call(452, AT_FDCWD, b"p5", 0o4755, 0)),
    "chmod-high-bits": lambda: (fresh("p6"), call(90, b"p6", (1 << 32) | 0o4755)),
    "open-creat": lambda: os.open("p7", os.O_CREAT | os.O_WRONLY, 0o4755),
    "open-creat-nonblock": lambda: os.open("p8", os.O_CREAT | os.O_WRONLY | os.O_NONBLOCK, 0o6777),
    "openat-creat": lambda: os.open("p9", os.O_CREAT | os.O_WRONLY, 0o2700, dir_fd=here()),
    "creat": lambda: call(85, b"p10", 0o4755),
    "libc-creat": lambda: (libc.creat(b"p11", 0o4755) >= 0) or sys.exit(1),
    "py-mkdir": lambda: os.mkdir("p12", 0o2755),
    "py-mkdirat": lambda: os.mkdir("p13", 0o4755, dir_fd=here()),
    "mknod": lambda: os.mknod("p14", stat.S_IFREG | 0o4755),
    "mknod-fifo": lambda: os.mknod("p15", stat.S_IFIFO | 0o6755),
    "mknodat": lambda: os.mknod("p16", stat.S_IFREG | 0o2755, dir_fd=here()),
    "tmpfile-link": lambda: link_tmpfile(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o4755), b"p17"),
    "openat2": lambda: call(437, AT_FDCWD, b"p18",
                            struct.pack("QQQ", os.O_CREAT | os.O_WRONLY, 0o4755, 0), 24),
    "io-uring": lambda: call(425, 8, ctypes.create_string_buffer(120)),
    "x32-chmod": lambda: (fresh("p19"), call(0x40000000 | 90, b"p19", 0o4755)),
    "i386-chmod": lambda: (fresh("p20"), int80(15, b"p20", 0o4755)),
    "i386-creat": lambda: int80(8, b"p21", 0o6755),
    # A file capability (cap_setuid+ep) is a setuid bit by another name.
    "file-caps": lambda: os.setxattr(
        fresh("p23"), "security.capability", struct.pack("<5I", 0x02000001, 1 << 7, 0, 0, 0)),
    "py-tarfile": lambda: tarfile.open("setid.tar", errorlevel=2).extractall("p22", filter="fully_trusted"),
    "ok-py-modes": lambda: (
        os.close(os.open("q1", os.O_CREAT | os.O_WRONLY, 0o644)), os.chmod("q1", 0o750),
        os.mkdir("q2", 0o700), os.chmod("q2", 0o1777), os.fchmod(os.open("q1", 0), 0o755)),
}

def worked(name):
    pid = os.fork()
    if pid == 0:
        try:
            ATTACKS[name]()
        except BaseException as exc:  # an OSError; `sys.exit(1)` when libc says no
            print(exc, file=sys.stderr, flush=True)
            os._exit(1)
        os._exit(0)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


for name in sys.argv[1:]:
    print(f"{name}={'ok' if worked(name) else 'fail'}", flush=True)
'''

#: The helper's attacks the script runs (every one must fail).
HELPER_ATTACKS: tuple[str, ...] = (
    "py-chmod",
    "py-chmod-setgid",
    "py-fchmod",
    "py-fchmodat",
    "fchmodat2",
    "open-creat",
    "open-creat-nonblock",
    "openat-creat",
    "libc-creat",
    "py-mkdir",
    "py-mkdirat",
    "mknod",
    "mknod-fifo",
    "mknodat",
    "tmpfile-link",
    "openat2",
    "io-uring",
    "file-caps",
    "py-tarfile",
    *(("chmod-high-bits", "creat", "x32-chmod", "i386-chmod", "i386-creat") if X86_64 else ()),
)
#: What `ATTEMPTS` names as the command of an attack the helper makes: the script runs all of
#: them in one helper line.
HELPER_CALL = "{py} setid_helper.py NAME"
#: (label, shell command): each must fail and leave no set-ID file (`HELPER_CALL`: the helper
#: makes the attack called `label`).
ATTEMPTS: tuple[tuple[str, str], ...] = (
    ("chmod-u+s", "touch s1 && chmod u+s s1"),
    ("chmod-g+s", "touch s2 && chmod g+s s2"),
    ("chmod-4755", "touch s3 && chmod 4755 s3"),
    ("chmod-dir-g+s", "mkdir s4 && chmod g+s s4"),
    ("chmod-given-file", "chmod u+s given"),
    ("install-m", "install -m 4755 /bin/true s5"),
    ("install-d", "install -d -m 2755 s6"),
    ("mkdir-m", "mkdir -m 2755 s7"),
    ("cp-p-setuid", "cp -p {outside}/setuid-source s8"),
    ("cp-a-setuid", "cp -a {outside}/setuid-source s9"),
    ("tar-xp", "mkdir s10 && tar -xpf setid.tar -C s10"),
    *((("cp-p-passwd", f"cp -p {PASSWD} s11"),) if HOST_SETUID else ()),
    *((("hardlink-passwd", f"ln {PASSWD} s12"),) if HOST_SETUID else ()),
    *((name, HELPER_CALL) for name in HELPER_ATTACKS),
)
#: (label, shell command): ordinary permission changes and a build, each must work.
ORDINARY: tuple[tuple[str, str], ...] = (
    ("chmod-x", "touch n1 && chmod +x n1 && test -x n1 && chmod 0644 n1 && chmod 0755 n1"),
    ("mkdir", "mkdir -m 0755 n2 && mkdir -p n3/a/b && chmod 1777 n2"),
    ("cp-p", "cp -p /bin/true n4 && test -x n4"),
    ("install", "install -m 0755 /bin/true n5 && install -d -m 0750 n6"),
    ("tar", "mkdir n7 && tar -xpf plain.tar -C n7 && test -x n7/tool"),
    ("make", "make -s -C build && build/hello"),
    ("ok-py-modes", HELPER_CALL),
)

MAKEFILE = "hello: hello.c\n\tcc -o hello hello.c\n\tchmod 0755 hello\n"
HELLO_C = '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n'


def _tar(members: dict[str, int]) -> bytes:
    """A tar archive of empty files (or directories, names ending in /) with these modes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, mode in members.items():
            info = tarfile.TarInfo(name.rstrip("/"))
            info.mode = mode
            info.type = tarfile.DIRTYPE if name.endswith("/") else tarfile.REGTYPE
            archive.addfile(info, io.BytesIO(b""))
    return buffer.getvalue()


def setid_script(project: Path, outside: Path) -> str:
    """Prepares the project (the helper, archives, a file it owns, a small C build) and a
    setuid file outside it; returns the shell script printing `<label>=ok|fail` for each
    attempt and ordinary operation."""
    (project / "setid_helper.py").write_text(HELPER)
    (project / "setid.tar").write_bytes(_tar({"suid": 0o4755, "sgid-dir/": 0o2755}))
    (project / "plain.tar").write_bytes(_tar({"tool": 0o755}))
    (project / "given").write_text("x\n")
    (project / "build").mkdir(exist_ok=True)
    (project / "build" / "Makefile").write_text(MAKEFILE)
    (project / "build" / "hello.c").write_text(HELLO_C)
    source = outside / "setuid-source"
    source.write_bytes(Path("/bin/true").read_bytes())
    source.chmod(0o6755)
    helper = " ".join((*HELPER_ATTACKS, "ok-py-modes"))
    lines = [f"cd {project}", f"{PYTHON} setid_helper.py {helper} 2>/dev/null"]
    for label, command in (*ATTEMPTS, *ORDINARY):
        if command == HELPER_CALL:
            continue
        text = command.format(outside=outside, py=PYTHON)
        lines.append(
            f"if ( {text} ) >/dev/null 2>&1; then echo {label}=ok; else echo {label}=fail; fi"
        )
    return "\n".join(lines) + "\n"


def setid_files(project: Path) -> list[str]:
    """Every file or directory under `project` with a set-user-ID or set-group-ID bit, or
    a file capability."""
    found = []
    for directory, dirs, files in os.walk(project):
        for name in (*dirs, *files):
            path = os.path.join(directory, name)
            if os.lstat(path).st_mode & (stat.S_ISUID | stat.S_ISGID) or _capabilities(path):
                found.append(os.path.relpath(path, project))
    return sorted(found)


def _capabilities(path: str) -> bool:
    try:
        return bool(os.getxattr(path, "security.capability", follow_symlinks=False))
    except OSError:
        return False


def assert_no_setid(report: str, project: Path) -> None:
    """Every attempt failed, every ordinary operation worked, and no file in `project` has a
    set-ID bit."""
    lines = report.split()
    for label, _ in ATTEMPTS:
        assert f"{label}=fail" in lines, (label, report)
    for label, _ in ORDINARY:
        assert f"{label}=ok" in lines, (label, report)
    assert setid_files(project) == [], setid_files(project)
