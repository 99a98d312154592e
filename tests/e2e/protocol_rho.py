"""One real `rho` that protocol tests talk to in turn, each test one checked turn.

Starting rho costs ~0.7 s of CPU (mostly imports). Tests that only send lines and read the
answers can share one process, each in its own `turn`: the turn starts with every earlier
answer read (a `getState` round trip), checks what the test exchanged against
docs/openrpc.json as `start_rho` does, and fails the test during which rho exited. When the
module is done, `close` ends the process on end of input and asserts that it ended cleanly:
exit 0, no traceback, and nothing but strict JSON lines on stdout. The server surviving
every test in sequence is part of what is checked.

A process that an earlier test brought down is started afresh for the next turn, so a test
never depends on which tests ran before it on the same worker. (Tests that prompt a scripted
model, each in a session of its own, share a rho through the `shared_rho` fixture instead.)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from openrpc_check import drift  # type: ignore[import-not-found]
from rho_process import RhoProcess  # type: ignore[import-not-found]


class ServingRho(RhoProcess):  # type: ignore[misc]
    """A `RhoProcess` whose stderr is read as it comes (a long-lived process must never
    block on a full stderr pipe); `stderr_text` is what it wrote so far."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stderr: list[bytes] = []
        self._stderr_pump = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_pump.start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self._stderr.append(chunk)

    def stderr_text(self) -> str:
        if self.proc.poll() is not None:
            self._stderr_pump.join(timeout=30)
        return b"".join(self._stderr).decode(errors="replace")


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} on stdout")


def assert_strict_json_lines(lines: list[bytes]) -> None:
    """Every line is strict UTF-8 holding standard JSON (no NaN/Infinity)."""
    for line in lines:
        json.loads(line.decode("utf-8", "strict"), parse_constant=_reject_constant)


class ProtocolRho:
    """A `rho` started with `args` in a project and home of its own under `root`."""

    def __init__(self, args: list[str], root: Path, env: dict[str, str] | None = None) -> None:
        self.args = args
        self.env = env
        project = root / "project"
        (project / ".git").mkdir(parents=True)
        self.project = project.resolve()
        self.home = root / "home"
        self.home.mkdir()
        self.process: ServingRho | None = None
        self._checked = (0, 0)  # how many lines sent and received the turns checked
        self._stderr_checked = 0  # how many characters of stderr the turns checked
        #: The first message the running process wrote.
        self.ready: Any = None

    def _running(self) -> ServingRho:
        if self.process is None or self.process.proc.poll() is not None:
            self.process = ServingRho(self.args, cwd=self.project, home=self.home, env=self.env)
            self.ready = self.process.read()
            self._checked = (0, 0)
            self._stderr_checked = 0
        return self.process

    @contextmanager
    def turn(self) -> Iterator[ServingRho]:
        """The process for one test: synchronised before; after, it still answers
        `getState`, and what it wrote fits docs/openrpc.json."""
        process = self._running()
        sent, raw = self._checked  # the lines no turn has checked yet
        process.call("getState")  # reads past anything an earlier test left unread
        yield process
        answered = process.proc.poll() is None and "result" in process.call("getState")
        self._checked = (len(process.sent), len(process.raw))
        code = process.proc.poll()
        if code is not None:
            pytest.fail(
                f"rho exited ({code}) during this test; stderr:\n{process.stderr_text()}",
                pytrace=False,
            )
        problems = drift(process.sent[sent:], process.raw[raw:])
        if problems:
            pytest.fail(
                "rho sent messages that docs/openrpc.json does not describe:\n"
                + "\n".join(problems),
                pytrace=False,
            )
        assert_strict_json_lines(process.raw[raw:])
        stderr = process.stderr_text()
        new_stderr, self._stderr_checked = stderr[self._stderr_checked :], len(stderr)
        assert "Traceback" not in new_stderr, new_stderr
        assert answered, "rho does not answer getState after this test"

    def close(self) -> None:
        """End the process on end of input; it must exit 0 without a traceback, having
        written nothing but strict JSON lines."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            code = process.finish()
            stderr = process.stderr_text()
        finally:
            process.kill()
        assert code == 0, f"the shared rho exited {code}; stderr:\n{stderr}"
        assert "Traceback" not in stderr, stderr
        assert_strict_json_lines(process.raw)
        sent, raw = self._checked
        problems = drift(process.sent[sent:], process.raw[raw:])
        assert not problems, "\n".join(problems)
