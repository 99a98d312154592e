"""The process runner: process groups, timeouts, capped and live output, cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.process import (
    CappedOutput,
    Launch,
    LiveOutput,
    ProcessStartError,
    command_environment,
    find_shell,
    run_process,
)
from rho_kernel.security import FileTypeError, PathNotFoundError, SandboxError, SandboxRoot

SH = find_shell(None)


def alive(pid: int) -> bool:
    """Whether `pid` is a running (not zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def until(condition: Callable[[], bool], timeout: float = 60) -> bool:
    """Poll `condition` until it holds (True) or `timeout` passes, a safety net (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def gone(pid: int) -> bool:
    """Wait (bounded) for `pid` to die; a SIGKILLed process can take a moment to be reaped."""
    return await until(lambda: not alive(pid))


def written(path: Path) -> Callable[[], bool]:
    """Whether a shell has written something to `path` yet."""
    return lambda: path.exists() and bool(path.read_text())


async def test_exit_code_stdout_stderr_and_input(tmp_path: Path) -> None:
    result = await run_process(
        SH.argv("cat; echo err >&2; exit 3"), root=SandboxRoot(tmp_path), input="hello\n"
    )
    assert (result.exit_code, result.stdout, result.stderr) == (3, "hello\n", "err\n")
    assert not result.ok and not result.timed_out and result.signal is None


async def test_without_input_stdin_is_empty_and_does_not_block(tmp_path: Path) -> None:
    result = await run_process(SH.argv("cat; echo done"), root=SandboxRoot(tmp_path), timeout=30)
    assert result.stdout == "done\n" and not result.timed_out


async def test_cwd_is_resolved_inside_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    result = await run_process(["pwd"], root=SandboxRoot(tmp_path), cwd="sub")
    assert result.stdout.strip() == str((tmp_path / "sub").resolve())


@pytest.mark.parametrize(
    ("cwd", "error"),
    [
        ("..", SandboxError),
        ("/", SandboxError),
        ("missing", PathNotFoundError),
        ("f", FileTypeError),
    ],
)
async def test_cwd_outside_or_invalid_is_refused(tmp_path: Path, cwd: str, error: type) -> None:
    (tmp_path / "f").write_text("x")
    marker = tmp_path / "ran"
    with pytest.raises(error):
        await run_process(["touch", str(marker)], root=SandboxRoot(tmp_path), cwd=cwd)
    assert not marker.exists()


async def test_a_missing_program_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(ProcessStartError, match="cannot start 'no-such-program-xyz'"):
        await run_process(["no-such-program-xyz"], root=SandboxRoot(tmp_path))


async def test_timeout_kills_the_whole_process_tree_even_one_ignoring_sigterm(
    tmp_path: Path,
) -> None:
    """Two groups at once (each timeout must fire, after 1 s that lets the script write its
    pid): one stopped by SIGTERM, one that ignores it and is killed after the grace."""
    plain, ignoring = tmp_path / "plain", tmp_path / "ignoring"
    plain.mkdir()
    ignoring.mkdir()
    result, stubborn = await asyncio.gather(
        run_process(
            SH.argv("sleep 300 & echo $! > child.pid; sleep 300"),
            root=SandboxRoot(plain),
            timeout=1,
            kill_grace=1,
        ),
        run_process(
            SH.argv("trap '' TERM; sleep 300 & echo $! > child.pid; wait"),
            root=SandboxRoot(ignoring),
            timeout=1,
            kill_grace=0.2,
        ),
    )
    assert result.timed_out and result.exit_code is None and result.returncode == -1
    child = int((plain / "child.pid").read_text())
    assert await gone(child)
    assert stubborn.timed_out
    assert await gone(int((ignoring / "child.pid").read_text()))


async def test_background_processes_do_not_outlive_the_command(tmp_path: Path) -> None:
    result = await run_process(
        SH.argv("sleep 300 & echo $! > child.pid"), root=SandboxRoot(tmp_path), timeout=60
    )
    assert result.ok and not result.timed_out
    assert await gone(int((tmp_path / "child.pid").read_text()))


async def test_cancel_token_kills_the_group(tmp_path: Path) -> None:
    cancel = CancelToken()
    task = asyncio.ensure_future(
        run_process(
            SH.argv("sleep 300 & echo $! > child.pid; wait"),
            root=SandboxRoot(tmp_path),
            cancel=cancel,
        )
    )
    assert await until(written(tmp_path / "child.pid"))
    cancel.cancel()
    result = await task
    assert result.cancelled and not result.ok
    assert await gone(int((tmp_path / "child.pid").read_text()))


async def test_cancelling_the_awaiting_task_kills_the_group(tmp_path: Path) -> None:
    task = asyncio.ensure_future(
        run_process(SH.argv("echo $$ > leader.pid; sleep 300"), root=SandboxRoot(tmp_path))
    )
    assert await until(written(tmp_path / "leader.pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(int((tmp_path / "leader.pid").read_text()))


async def test_output_cap_keeps_head_and_tail(tmp_path: Path) -> None:
    script = "echo FIRST; seq 1 100000; echo LAST"
    result = await run_process(SH.argv(script), root=SandboxRoot(tmp_path), max_output_bytes=200)
    assert result.stdout.startswith("FIRST\n1\n2\n")
    assert result.stdout.endswith("99999\n100000\nLAST\n")
    assert result.stdout_bytes > 500_000
    # At most 200 bytes kept: less by the parts of the two lines cut at the edges.
    assert 0 <= result.stdout_elided - (result.stdout_bytes - 200) <= 2 * len("100000\n")
    assert "\n[… " in result.stdout and " elided …]\n" in result.stdout  # a line of its own
    assert (
        f"[… {result.stdout_elided} bytes (" in result.stdout
        and "lines) elided …]" in result.stdout
    )
    assert len(result.stdout) < 400


def test_capped_output_memory_stays_bounded_while_feeding() -> None:
    capture = CappedOutput(1000)
    for _ in range(10_000):
        capture.feed(b"x" * 999 + b"\n")
    assert len(capture._head) + len(capture._tail) <= 1000
    assert capture.total == 10_000_000
    assert capture.elided_lines == 10_000 - capture.text().count("\n") + 2  # lines cut


def test_capped_output_keeps_whole_lines_and_counts_what_it_elided() -> None:
    capture = CappedOutput(1000)
    data = "".join(f"{n}\n" for n in range(1, 100_001)).encode()
    for start in range(0, len(data), 4096):
        capture.feed(data[start : start + 4096])
    lines = capture.text().split("\n")
    assert lines.pop() == ""
    gap = next(i for i, line in enumerate(lines) if line.startswith("[…"))
    head, tail = lines[:gap], lines[gap + 1 :]
    assert head == [str(n) for n in range(1, len(head) + 1)] and len(head) > 100
    assert tail == [str(n) for n in range(100_001 - len(tail), 100_001)] and len(tail) > 50
    skipped = range(len(head) + 1, 100_001 - len(tail))
    size = sum(len(f"{n}\n") for n in skipped)
    assert lines[gap] == f"[… {size} bytes ({len(skipped)} lines) elided …]"
    assert (capture.elided_bytes, capture.elided_lines) == (size, len(skipped))


def test_capped_output_cuts_a_line_longer_than_half_the_limit() -> None:
    capture = CappedOutput(100)
    capture.feed(b"start\n" + b"x" * 1000 + b"\nend\n")
    text = capture.text()
    assert text.startswith("start\nxxx") and text.endswith("xxx\nend\n")
    assert "x\n[… " in text and " elided …]\nx" in text


def test_capped_output_does_not_split_utf8_sequences() -> None:
    capture = CappedOutput(10)
    capture.feed("ééééééééééééééé".encode())
    assert "\ufffd" not in capture.text()


async def test_live_output_arrives_in_order_before_the_result(tmp_path: Path) -> None:
    chunks: list[tuple[str, str]] = []

    async def sink(stream: str, text: str) -> None:
        chunks.append((stream, text))

    script = "for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.1; done"
    result = await run_process(SH.argv(script), root=SandboxRoot(tmp_path), on_output=sink)
    stdout = "".join(text for stream, text in chunks if stream == "stdout")
    stderr = "".join(text for stream, text in chunks if stream == "stderr")
    assert stdout == result.stdout == "out1\nout2\nout3\n"
    assert stderr == result.stderr == "err1\nerr2\nerr3\n"


async def test_live_output_is_coalesced_and_chunks_are_bounded() -> None:
    sent: list[str] = []

    async def sink(stream: str, text: str) -> None:
        sent.append(text)

    live = LiveOutput(sink, interval=3600, max_chunk=1024)
    live.feed("stdout", b"a\n")  # the first chunk goes out at once
    while not sent:
        await asyncio.sleep(0)
    for n in range(1000):
        live.feed("stdout", b"%09d\n" % n)  # within the interval: coalesced
    await live.close()
    assert sent[0] == "a\n"
    assert len(sent) == 2 and len(sent[1]) <= 1024
    lines = sent[1].splitlines()
    assert lines[0] == "000000000" and lines[-1] == "000000999"
    gap = next(i for i, line in enumerate(lines) if line.startswith("[…"))
    first, last = int(lines[gap - 1]), int(lines[gap + 1])
    skipped = last - first - 1
    assert lines[gap] == f"[… {skipped} lines ({skipped * 10} characters) skipped …]"
    assert [int(line) for line in lines[:gap] + lines[gap + 1 :]] == [
        *range(first + 1),
        *range(last, 1000),
    ]


@pytest.mark.parametrize("uptime", [0.0, 0.05, 5.0, 3599.0, 1e9])
async def test_the_first_live_chunk_goes_out_at_once_whatever_the_clock_reads(
    uptime: float,
) -> None:
    sent: list[str] = []

    async def sink(stream: str, text: str) -> None:
        sent.append(text)

    live = LiveOutput(sink, interval=3600, clock=lambda: uptime)
    live.feed("stdout", b"first\n")
    live.feed("stderr", b"oops\n")
    for _ in range(10):  # a few turns of the loop, never a wait on the clock
        await asyncio.sleep(0)
    assert sorted(sent) == ["first\n", "oops\n"]
    live.feed("stdout", b"second\n")  # within the interval: held
    for _ in range(10):
        await asyncio.sleep(0)
    assert len(sent) == 2
    await live.close()
    assert sent[-1] == "second\n"


async def test_live_output_decodes_utf8_across_chunks() -> None:
    sent: list[str] = []

    async def sink(stream: str, text: str) -> None:
        sent.append(text)

    live = LiveOutput(sink, interval=3600)
    data = "é€".encode()
    for byte in data:
        live.feed("stdout", bytes([byte]))
    live.feed("stdout", b"\xff")
    await live.close()
    assert "".join(sent) == "é€\ufffd"


async def test_a_failing_live_callback_does_not_stop_the_process(tmp_path: Path) -> None:
    async def broken(stream: str, text: str) -> None:
        raise OSError("client gone")

    result = await run_process(
        SH.argv("echo a; sleep 0.2; echo b"), root=SandboxRoot(tmp_path), on_output=broken
    )
    assert result.stdout == "a\nb\n" and result.ok


class _EnvLauncher:
    name = "env-wrapper"

    def __init__(self) -> None:
        self.cwds: list[Path] = []

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        self.cwds.append(cwd)
        return ["env", "WRAPPED=1", *argv]


async def test_the_launcher_rewrites_the_argv_and_is_named_on_the_result(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    launcher = _EnvLauncher()
    result = await run_process(
        SH.argv("echo $WRAPPED"), root=SandboxRoot(tmp_path), cwd="sub", launcher=launcher
    )
    assert result.stdout == "1\n" and result.argv[:2] == ["env", "WRAPPED=1"]
    assert launcher.cwds == [tmp_path.resolve() / "sub"] and result.confined_by == "env-wrapper"
    plain = await run_process(SH.argv("true"), root=SandboxRoot(tmp_path))
    assert plain.confined_by is None


class _FdLauncher:
    """Hands the process a pipe holding a secret, named in the argv (as bwrap's filter is)."""

    name = "fd-wrapper"

    def __init__(self, program: str = "env") -> None:
        self.program = program
        self.fds: list[int] = []

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        raise AssertionError("launch is used when a launcher has it")

    @contextlib.contextmanager
    def launch(self, argv: list[str], cwd: Path) -> Iterator[Launch]:
        read, write = os.pipe()
        os.write(write, b"from-the-launcher")
        os.close(write)
        self.fds.append(read)
        try:
            yield Launch([self.program, f"GIVEN_FD={read}", *argv], (read,))
        finally:
            os.close(read)


async def test_a_launcher_can_hand_the_process_descriptors_closed_after_the_start(
    tmp_path: Path,
) -> None:
    launcher = _FdLauncher()
    before = set(os.listdir("/proc/self/fd"))
    result = await run_process(
        SH.argv('cat <&"$GIVEN_FD"; echo; ls /proc/self/fd | wc -l'),
        root=SandboxRoot(tmp_path),
        launcher=launcher,
    )
    assert result.stdout.splitlines()[0] == "from-the-launcher", result.stderr
    assert result.confined_by == "fd-wrapper" and result.argv[0] == "env"
    assert set(os.listdir("/proc/self/fd")) == before  # the parent's end is closed
    # Another process started meanwhile does not inherit it.
    other = await run_process(SH.argv("ls /proc/self/fd"), root=SandboxRoot(tmp_path))
    assert str(launcher.fds[0]) not in other.stdout.split()


async def test_a_failed_start_still_closes_the_launchers_descriptors(tmp_path: Path) -> None:
    launcher = _FdLauncher("/nonexistent/program")
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(ProcessStartError):
        await run_process(["true"], root=SandboxRoot(tmp_path), launcher=launcher)
    assert set(os.listdir("/proc/self/fd")) == before


def test_command_environment_drops_api_keys_and_startup_files() -> None:
    base = {"PATH": "/bin", "OPENAI_API_KEY": "k", "MY_TOKEN": "t", "BASH_ENV": "/x", "KEEP": "1"}
    env = command_environment(["MY_TOKEN"], base)
    assert env == {"PATH": "/bin", "KEEP": "1"}


def test_bash_runs_without_profile_or_rc_files() -> None:
    argv = SH.argv("true")
    assert argv[1:4] == ["--noprofile", "--norc", "-c"] and os.path.basename(argv[0]) == "bash"
