"""One real `rho` shared by the tests of a module that need the same flags, config and HOME.

Starting rho costs most of an e2e test's CPU (its imports). Tests that differ only in what
the model says or which tool it calls can run in one process, each in a session of its own:
`SharedRho.fresh` aborts what the test before left running, reads the answers to its
requests, and hands the test an idle rho after `newSession`, an empty script on its own
`ScriptedServer`, and `seen`/`raw` holding only what came after. A rho that died or stays
busy is replaced by a new one, so a test never depends on what ran before it. The e2e
fixture `shared_rho` gives the tests of a module these processes (one per set of flags,
HOME config and env); each test keeps its own files apart in the shared project.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from openrpc_check import drift  # type: ignore[import-not-found]
from rho_process import RhoProcess  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer

Key = tuple[tuple[str, ...], str | None, tuple[tuple[str, str], ...], tuple[str, ...]]


class _Server(ScriptedServer):
    """A ScriptedServer whose script and record can be emptied between tests."""

    def reset(self) -> None:
        with self._cond:
            self._script.clear()
            self.requests.clear()


def _ids(lines: Iterable[bytes], *, requests: bool) -> set[Any]:
    """The ids of the requests (or of the responses) among JSON-RPC `lines`."""
    found: set[Any] = set()
    for line in lines:
        with contextlib.suppress(ValueError):
            message = json.loads(line)
            for item in message if isinstance(message, list) else [message]:
                if isinstance(item, dict) and ("method" in item) == requests:
                    with contextlib.suppress(TypeError):
                        found.add(item.get("id"))
    found.discard(None)
    return found


class SharedRho:
    """A rho against its own ScriptedServer (model `scripted-model`), project and HOME."""

    def __init__(
        self,
        root: Path,
        args: Iterable[str],
        user_config: str | None,
        env: dict[str, str] | None,
        models: Iterable[str],
    ) -> None:
        self.args = list(args)
        self.user_config = user_config
        self.env = env
        self.models = list(models)
        self.project = root / "project"
        (self.project / ".git").mkdir(parents=True)
        self.project = self.project.resolve()
        self.home = root / "home"
        (self.home / ".rho").mkdir(parents=True)
        if user_config is not None:
            (self.home / ".rho" / "config.toml").write_text(user_config)
        self.server: _Server = _Server(models=self.models).start()
        self.rho: RhoProcess = self._start()
        self.problems: list[str] = []  # not yet reported: drift, a replaced rho's exit
        self._answered_ids: set[Any] = set()
        self._stderr = b""

    def _start(self) -> RhoProcess:
        rho = RhoProcess(
            ["--endpoint", self.server.chat_url, "-m", "scripted-model", *self.args],
            cwd=self.project,
            home=self.home,
            env=self.env,
        )
        assert rho.proc.stderr is not None
        fd = rho.proc.stderr.fileno()
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
        ready = rho.read()
        assert isinstance(ready, dict) and ready.get("method") == "ready", ready
        self.ready: dict[str, Any] = ready
        self._stderr = b""
        return rho

    def _settle(self) -> bool:
        """End what the last test left running (an abort is a no-op when idle) and read the
        answers to its requests; False when rho is gone or stays busy."""
        if self.rho.proc.poll() is not None:
            return False
        try:
            self.rho.call("abort")
            for request_id in _ids(self.rho.sent, requests=True) - self._answered():
                self.rho.wait_for(lambda m, i=request_id: m.get("id") == i and "method" not in m)
            state = self.rho.call("getState")
        except (EOFError, TimeoutError, OSError):
            return False
        return state.get("result", {}).get("busy") is False

    def _answered(self) -> set[Any]:
        self._answered_ids |= _ids(self.rho.raw, requests=False)
        return self._answered_ids

    def _replace(self) -> None:
        self.check_drift()
        self.rho.kill()  # a test failed half-way: that test reported it
        self.server.stop()
        self.server = _Server(models=self.models).start()
        self.rho = self._start()
        self._answered_ids = set()

    def fresh(self) -> SharedRho:
        """Make this rho idle in a new session with an empty script, and forget what it said."""
        if not self._settle():
            self._replace()
        self.server.reset()
        created = self.rho.call("newSession")
        assert "result" in created, created
        self.check_drift()
        self.rho.seen.clear()
        self.drain_stderr()
        return self

    def check_drift(self) -> None:
        """Note what rho wrote since the last check that docs/openrpc.json does not describe."""
        self._answered()
        self.problems += drift(self.rho.sent, self.rho.raw)
        self.rho.raw.clear()

    def take_problems(self) -> list[str]:
        """The problems noted since the last call (drift checked up to now)."""
        self.check_drift()
        problems, self.problems = self.problems, []
        return problems

    def drain_stderr(self) -> str:
        """What rho wrote to stderr since the last drain. Everything rho wrote there before
        the last line read from its stdout is included (it writes both in order)."""
        assert self.rho.proc.stderr is not None
        chunks = []
        while True:
            try:
                chunk = os.read(self.rho.proc.stderr.fileno(), 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        data = b"".join(chunks)
        self._stderr += data
        return data.decode(errors="replace")

    def close(self) -> list[str]:
        """End rho (stdin closed) and stop the server; returns the problems seen (drift, an
        exit status other than 0, a traceback on stderr)."""
        code = self.rho.finish()
        self.check_drift()
        self.drain_stderr()
        self.server.stop()
        if code != 0:
            self.problems.append(f"a shared rho {self.args} exited with status {code}")
        if b"Traceback" in self._stderr:
            self.problems.append(f"a shared rho {self.args} wrote a traceback")
        return self.take_problems()


class SharedRhos:
    """The shared rho processes of one test module, one per set of flags, config and env."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.processes: dict[Key, SharedRho] = {}

    def get(
        self,
        *args: str,
        user_config: str | None = None,
        env: dict[str, str] | None = None,
        models: Iterable[str] = (),
    ) -> SharedRho:
        """The shared rho started with `args`, `user_config` as HOME's config.toml and `env`,
        made fresh for the calling test."""
        models = tuple(models)
        key: Key = (args, user_config, tuple(sorted((env or {}).items())), models)
        shared = self.processes.get(key)
        if shared is None:
            root = self.root / f"shared{len(self.processes)}"
            shared = SharedRho(root, args, user_config, env, models)
            self.processes[key] = shared
        return shared.fresh()

    def close(self) -> list[str]:
        problems: list[str] = []
        for shared in self.processes.values():
            problems += shared.close()
        return problems
