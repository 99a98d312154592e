"""Drive the real `rho` console script over stdin/stdout."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rho_rpc.distributions import RHO_DISTRIBUTIONS

RHO = str(Path(sys.executable).with_name("rho"))
#: `RHO_PLUGINS` for every rho a test starts: rho's own distributions, so that a third-party
#: plugin installed next to rho never changes what a test sees; a test adds its own.
OWN_PLUGINS = ",".join(sorted(RHO_DISTRIBUTIONS))
#: How long a read waits for rho at most: only a safety net (a loaded machine is slow).
WAIT = 90.0


#: How rho's line about the sandbox begins, said once at start (`sandbox_announcement`): an
#: info line where commands are confined, a warning where they are not.
SANDBOX_LINES = (
    "rho: commands run confined by ",
    "rho: warning: commands run unconfined",
    "rho: warning: commands would run unconfined",
    "rho: warning: commands will not run",
)


def stderr_lines(stderr: str) -> list[str]:
    """The lines of rho's `stderr` but its line about how commands run, which depends on the
    machine (bubblewrap, Landlock, or neither)."""
    return [line for line in stderr.splitlines() if not line.startswith(SANDBOX_LINES)]


def warnings(stderr: str) -> list[str]:
    """rho's warnings in `stderr`, less the one about commands running unconfined."""
    return [line for line in stderr_lines(stderr) if line.startswith("rho: warning:")]


def rho_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment for a `rho` a test starts: this one without rho's and providers'
    variables, with `home` as HOME, rho's own plugins only, and `extra`."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("RHO_", "OPENAI", "OPENROUTER"))
    }
    env.update({"HOME": str(home), "NO_COLOR": "1", "RHO_PLUGINS": OWN_PLUGINS})
    env.update(extra)
    return env


def plugin_env(site: Path, *plugins: str) -> dict[str, str]:
    """Variables that put `site` on PYTHONPATH and load rho's own plugins plus `plugins`
    (entry-point names) installed there."""
    return {"PYTHONPATH": str(site), "RHO_PLUGINS": ",".join([OWN_PLUGINS, *plugins])}


class RhoProcess:
    """A running `rho` with helpers to send requests and read protocol lines."""

    def __init__(
        self,
        args: list[str],
        *,
        cwd: Path,
        home: Path,
        env: dict[str, str] | None = None,
        prefix: list[str] | None = None,
    ) -> None:
        """`prefix`: what runs rho (e.g. `machines.without_landlock`)."""
        full_env = rho_env(home, PYTHONUNBUFFERED="1", **(env or {}))
        self.proc = subprocess.Popen(
            [*(prefix or []), RHO, *args],
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.sent: list[bytes] = []  # every byte written to rho (checked by openrpc_check)
        threading.Thread(target=self._pump, daemon=True).start()
        self._next_id = 1000
        self._stderr: str | None = None

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    # ── sending ────────────────────────────────────────────────────────────

    def send_raw(self, data: bytes | str) -> None:
        assert self.proc.stdin is not None
        data = data.encode() if isinstance(data, str) else data
        self.sent.append(data)
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any] | list[Any]) -> None:
        self.send_raw(json.dumps(message) + "\n")

    def request(self, method: str, params: dict[str, Any] | None = None, *, id: Any = None) -> Any:
        if id is None:
            self._next_id += 1
            id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": id}
        if params is not None:
            message["params"] = params
        self.send(message)
        return id

    def call(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = WAIT
    ) -> dict[str, Any]:
        """Send a request and return its response (notifications before it are kept in `seen`)."""
        request_id = self.request(method, params)
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    def answer_approval(
        self, request: dict[str, Any], approved: bool = True, message: str | None = None
    ) -> Any:
        """Answer an `approval/request` notification's params; returns the request id used."""
        params: dict[str, Any] = {"approvalId": request["approvalId"], "approved": approved}
        if message is not None:
            params["message"] = message
        return self.request("approvalResponse", params)

    def approve_remembering(
        self, scope: str, rule: str, request: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Approve the next `approval/request` (or `request`), remembering `rule`, one of the
        rules it offers, for `scope`; returns the request's params."""
        request = request or self.notification("approval/request")["params"]
        offered = {(s["scope"], s["rule"]) for s in request["suggestedRules"]}
        assert (scope, rule) in offered, offered
        remember = {"scope": scope, "rule": rule}
        answer = self.request(
            "approvalResponse",
            {"approvalId": request["approvalId"], "approved": True, "remember": remember},
        )
        assert self.wait_for(lambda m: m.get("id") == answer)["result"] == {}
        return request

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    # ── reading ────────────────────────────────────────────────────────────

    def read(self, timeout: float = WAIT) -> dict[str, Any] | list[Any]:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise EOFError("rho closed stdout; stderr:\n" + self.stderr_text())
        self.raw.append(line)
        message = json.loads(line)
        if isinstance(message, dict):
            self.seen.append(message)
        return message

    def wait_for(self, predicate: Any, timeout: float = WAIT) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching message; seen: {self.seen[-10:]}")
            message = self.read(remaining)
            if predicate(message):
                return message

    def notification(self, method: str, timeout: float = WAIT) -> dict[str, Any]:
        return self.wait_for(lambda m: isinstance(m, dict) and m.get("method") == method, timeout)

    def methods_seen(self) -> list[str]:
        return [m["method"] for m in self.seen if "method" in m]

    def finish(self, timeout: float = WAIT) -> int:
        """Close stdin, read everything left and wait for exit; returns the exit code."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.close_stdin()
        code = self.proc.wait(timeout=timeout)
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                break
            if line is None:
                break
            self.raw.append(line)
            message = json.loads(line)
            if isinstance(message, dict):
                self.seen.append(message)
        return code

    def stderr_text(self) -> str:
        """All rho wrote on stderr, once it has exited (the same text on every call)."""
        if self.proc.poll() is None:
            return "(still running)"
        if self._stderr is None:
            assert self.proc.stderr is not None
            self._stderr = self.proc.stderr.read().decode(errors="replace")
        return self._stderr

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def start_scripted(
    start_rho: Any,
    server: Any,
    *extra: str,
    env: dict[str, str] | None = None,
    prefix: list[str] | None = None,
) -> RhoProcess:
    """Start rho against `server` (model `scripted-model`) and read its `ready`."""
    process = start_rho(
        "--endpoint", server.chat_url, "-m", "scripted-model", *extra, env=env, prefix=prefix
    )
    assert process.read()["method"] == "ready"
    return process


def install_plugin(site: Path, module: str, entry: str, source: str) -> None:
    """Install `source` as module `module` into the directory `site` (put on PYTHONPATH), with
    a dist-info that declares it as the `rho` entry point `entry`, as a wheel would."""
    dist = site / f"{module}-0.1.dist-info"
    dist.mkdir(parents=True)
    name = module.replace("_", "-")
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[rho]\n{entry} = {module}\n")
    (site / f"{module}.py").write_text(source)
