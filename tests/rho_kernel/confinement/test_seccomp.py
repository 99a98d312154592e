"""The seccomp filter's program, run by a small classic-BPF interpreter for every
architecture it knows (the real kernel runs it in test_bubblewrap_setid.py)."""

from __future__ import annotations

import errno
import struct

import pytest

from rho_kernel.confinement import seccomp
from rho_kernel.confinement.seccomp import AARCH64, I386, TABLES, X86_64, SyscallTable

ALLOW, KILL = 0x7FFF0000, 0x80000000
EPERM, ENOSYS = 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
SETID_MODES = [0o4755, 0o2755, 0o6777, 0o4000, 0o2000, 0o104755, (1 << 31) | 0o4000]
ORDINARY_MODES = [0, 0o644, 0o755, 0o777, 0o1777, 0o100644, 0o10644]


def run(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """What the filter returns for one system call (`args`: 64-bit values)."""
    words = list(args) + [0] * (6 - len(args))
    data = struct.pack("<IIQ6Q", nr, arch, 0, *(w & (2**64 - 1) for w in words))
    insns = [struct.unpack_from("=HBBI", program, i) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == 0x20:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x06:
            return k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += jt if taken else jf


PROGRAM = seccomp.build_filter()


def with_mode(table: SyscallTable, nr: int, mode: int) -> tuple[int, ...]:
    """Arguments with `mode` at the call's mode index and O_NONBLOCK|O_CREAT (04000|0100,
    i.e. a set-ID-looking value) everywhere else."""
    index = table.mode_argument[nr]
    return tuple(mode if i == index else 0o4100 for i in range(6))


@pytest.mark.parametrize("table", TABLES, ids=["x86_64", "i386", "aarch64"])
def test_every_mode_taking_call_is_refused_with_a_set_id_mode(table: SyscallTable) -> None:
    for nr in table.mode_argument:
        for mode in SETID_MODES:
            assert run(PROGRAM, nr, table.arch, with_mode(table, nr, mode)) == EPERM, (nr, mode)
        for mode in ORDINARY_MODES:  # other arguments with 04000 set do not matter
            assert run(PROGRAM, nr, table.arch, with_mode(table, nr, mode)) == ALLOW, (nr, mode)


def test_only_the_low_32_bits_of_the_mode_are_read_and_high_ones_do_not_hide_it() -> None:
    assert run(PROGRAM, 90, X86_64.arch, (0, (1 << 32) | 0o4755)) == EPERM
    assert run(PROGRAM, 90, X86_64.arch, (0, 0xFFFFFFFF_00000000 | 0o755)) == ALLOW


@pytest.mark.parametrize("table", TABLES, ids=["x86_64", "i386", "aarch64"])
def test_calls_whose_mode_cannot_be_read_get_enosys(table: SyscallTable) -> None:
    for nr in (437, 425, 426, 427):  # openat2, io_uring_setup/enter/register
        assert run(PROGRAM, nr, table.arch, (0, 0, 0, 0)) == ENOSYS


@pytest.mark.parametrize(
    ("table", "numbers"),
    [(X86_64, (0, 1, 59, 60, 231, 92)), (I386, (3, 4, 11, 252)), (AARCH64, (63, 64, 221, 93))],
    ids=["x86_64", "i386", "aarch64"],
)
def test_other_calls_are_allowed_whatever_their_arguments(
    table: SyscallTable, numbers: tuple[int, ...]
) -> None:
    for nr in numbers:
        assert run(PROGRAM, nr, table.arch, (0o6777,) * 6) == ALLOW


def test_x32_calls_and_foreign_architectures_cannot_get_past() -> None:
    for nr in (90, 2, 0, 59, 512):
        assert run(PROGRAM, 0x40000000 | nr, X86_64.arch, (0, 0o755)) == ENOSYS
    assert run(PROGRAM, 0xFFFFFFFF & -1, X86_64.arch) == ENOSYS
    for arch in (0x40000028, 0xC00000F3, 0x80000016, 0, 0xC000003F):  # arm, riscv64, s390x…
        assert run(PROGRAM, 15, arch, (0, 0o4755)) == KILL
        assert run(PROGRAM, 0, arch) == KILL


def test_the_program_is_whole_instructions_and_the_numbers_are_the_kernels() -> None:
    assert len(PROGRAM) % 8 == 0 and len(PROGRAM) < 4096
    assert X86_64.mode_argument[90] == 1 and X86_64.mode_argument[257] == 3
    assert I386.mode_argument[15] == 1 and I386.mode_argument[295] == 3
    assert AARCH64.mode_argument[53] == 2 and AARCH64.mode_argument[56] == 3


@pytest.mark.parametrize(
    ("machine", "made"),
    [("x86_64", True), ("aarch64", True), ("riscv64", False), ("ppc64le", False), ("i686", False)],
)
def test_a_filter_only_for_the_machines_it_is_made_for(machine: str, made: bool) -> None:
    assert (seccomp.filter_for_machine(machine) is not None) is made


# ── the Landlock backend's options ───────────────────────────────────────────

EACCES = 0x00050000 | errno.EACCES
CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x20000, 17


@pytest.mark.parametrize("table", TABLES, ids=["x86_64", "i386", "aarch64"])
def test_new_namespaces_are_refused_and_ordinary_clones_pass(table: SyscallTable) -> None:
    program = seccomp.build_filter(seccomp.FilterOptions(namespaces=True))
    for flags in (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWUSER | SIGCHLD, 0x40000000, 0x20000000):
        assert run(program, table.clone, table.arch, (flags,)) == EPERM, hex(flags)
        assert run(program, table.unshare, table.arch, (flags,)) == EPERM, hex(flags)
    assert run(program, table.unshare, table.arch, (0x80,)) == EPERM  # CLONE_NEWTIME
    assert run(program, table.clone, table.arch, (0x01200000 | SIGCHLD,)) == ALLOW  # fork()
    assert run(program, table.clone, table.arch, (0x003D0F00,)) == ALLOW  # a thread
    assert run(program, table.unshare, table.arch, (0x200,)) == ALLOW  # CLONE_FILES
    assert run(program, seccomp.CLONE3, table.arch) == ENOSYS
    assert run(program, table.setns, table.arch, (3, 0)) == EPERM
    # Without the option, nothing changes for them.
    assert run(PROGRAM, table.clone, table.arch, (CLONE_NEWUSER,)) == ALLOW


@pytest.mark.parametrize("table", TABLES, ids=["x86_64", "i386", "aarch64"])
def test_without_network_only_unix_sockets_are_made_and_nothing_connects(
    table: SyscallTable,
) -> None:
    program = seccomp.build_filter(seccomp.FilterOptions(network=True))
    assert run(program, table.socket, table.arch, (1, 1, 0)) == ALLOW  # AF_UNIX
    for domain in (2, 10, 16, 17):  # AF_INET, AF_INET6, AF_NETLINK, AF_PACKET
        assert run(program, table.socket, table.arch, (domain, 1, 0)) == EACCES
    assert run(program, table.connect, table.arch, (3, 0, 16)) == EACCES
    if table.socketcall is not None:
        assert run(program, table.socketcall, table.arch, (1, 0)) == ENOSYS
    for nr in table.mode_argument:  # set-ID modes are still refused alongside
        assert run(program, nr, table.arch, with_mode(table, nr, 0o4755)) == EPERM


def test_both_options_fit_one_program_within_jump_range() -> None:
    program = seccomp.build_filter(seccomp.FilterOptions(namespaces=True, network=True))
    assert len(program) % 8 == 0 and len(program) // 8 < 256
    assert run(program, 90, X86_64.arch, (0, 0o4755)) == EPERM
