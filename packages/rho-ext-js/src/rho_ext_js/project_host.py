"""`ProjectHost`: the host functions of one extension, confined like a tool.

Every call goes through what a tool would go through: files through the project's
`SandboxRoot` (`.git` and `.rho` are never written), commands through the command policy
and the OS sandbox (`ToolContext.run_process`), network only with `network = true`, and
the redactor: a file's text, a command's output and a log line reach the extension (or
stderr) with secrets replaced, as a tool's result reaches the model. What a
call may do depends on its context (see `rho_ext_js.calls`); a refusal is a `HostError`,
which the extension sees as a JS `Error` naming the config key or risk that would allow it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rho_ext_js.calls import IDLE, CallContext
from rho_ext_js.config import ExtensionPermissions
from rho_ext_js.host import HostApi, HostError
from rho_kernel import Risk, diagnostics

if TYPE_CHECKING:
    from rho_kernel import Confinement, RhoConfig, SandboxRoot

#: The largest file `rho.readFile` returns, and the largest response body `fetch` reads.
MAX_READ_BYTES = 1024 * 1024
MAX_FETCH_BYTES = 10 * 1024 * 1024
FETCH_TIMEOUT_S = 30.0
MAX_LOG_CHARS = 4000
COMMAND_TIMEOUT_S = 120.0

_LEVELS = {"trace": "debug", "debug": "debug", "info": "info", "warn": "warn", "error": "error"}


@dataclass
class ProjectHost(HostApi):
    """The host of extension `name` in the project at `root`."""

    name: str
    root: SandboxRoot
    config: RhoConfig
    permissions: ExtensionPermissions
    confinement: Confinement | None = None
    extension_root: Path | None = None

    def __post_init__(self) -> None:
        from rho_kernel.security import Redactor

        self._redactor = Redactor.from_config(self.config.redaction)

    def _key(self, field: str) -> str:
        return f'[extensions.per_extension."{self.name}"] {field} = true'

    # ── logging ──────────────────────────────────────────────────────────────

    async def log(self, level: str, message: str, context: Any) -> None:
        text = self._redactor.redact(" ".join(str(message).split("\n"))[:MAX_LOG_CHARS])
        line = f"extension {self.name}: {text}"
        kind = _LEVELS.get(str(level), "info")
        if kind == "error":
            diagnostics.error(line)
        elif kind == "warn":
            diagnostics.warn(line)
        else:
            diagnostics.info(f"[{level}] {line}" if kind == "debug" else line)

    def cwd(self) -> str:
        return str(self.root.path)

    # ── files ────────────────────────────────────────────────────────────────

    async def read_file(self, path: str, context: Any) -> str:
        from rho_kernel import run_to_completion

        return await run_to_completion(self._read, path)

    def _read(self, path: str) -> str:
        from rho_kernel.security import SandboxError

        try:
            with self._reader(path).open_read(path) as handle:
                data = handle.read(MAX_READ_BYTES + 1)
        except SandboxError as exc:
            raise HostError(f"rho.readFile: {exc}") from None
        except OSError as exc:
            raise HostError(f"rho.readFile: {path}: {exc.strerror or exc}") from None
        if len(data) > MAX_READ_BYTES:
            raise HostError(f"rho.readFile: {path}: larger than {MAX_READ_BYTES} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise HostError(f"rho.readFile: {path}: not UTF-8 text") from None
        return self._redactor.redact(text)

    def _reader(self, path: str) -> SandboxRoot:
        """The root an absolute `path` lies in (the project, the extension's own folder or
        an `allow_paths` folder); relative paths are the project's."""
        from rho_kernel import SandboxRoot

        candidate = Path(path)
        if not candidate.is_absolute():
            return self.root
        own = self.extension_root.resolve() if self.extension_root is not None else None
        for extra in self._read_roots():
            if candidate.resolve().is_relative_to(extra):
                # A user extension's folder lies in ~/.rho, where no other root may be.
                return SandboxRoot(extra, own_folder=extra == own)
        return self.root  # refuses it, naming the project

    def _read_roots(self) -> list[Path]:
        roots = [self.root.path]
        if self.extension_root is not None:
            roots.append(self.extension_root.resolve())
        for extra in self.permissions.allow_paths or []:
            folder = (self.root.path / extra).resolve()
            if folder.is_dir():
                roots.append(folder)
        return roots

    async def write_file(self, path: str, content: str, context: Any) -> None:
        call = _context(context)
        if not call.permits(Risk.WRITE):
            raise HostError(
                f"rho.writeFile: not allowed in {call.label}: {_only_reads(call, 'write')}"
            )
        from rho_kernel import run_to_completion

        await run_to_completion(self._write, path, str(content))

    def _write(self, path: str, content: str) -> None:
        from rho_kernel.security import SandboxError, WriteFailed, replace_atomically

        try:
            with self.root.write_parent(path, make_parents=True) as target:
                replace_atomically(target, content.encode("utf-8"))
        except SandboxError as exc:
            raise HostError(f"rho.writeFile: {exc}") from None
        except (OSError, WriteFailed) as exc:
            raise HostError(f"rho.writeFile: {path}: {exc}") from None

    # ── commands ─────────────────────────────────────────────────────────────

    async def run_command(self, cmd: str, args: list[str], context: Any) -> dict[str, Any]:
        call = _context(context)
        if not self.permissions.commands:
            raise HostError(
                f"rho.runCommand: commands are off for extension '{self.name}' (set "
                f"{self._key('commands')} in ~/.rho/config.toml)"
            )
        if not call.permits(Risk.DESTRUCTIVE):
            raise HostError(
                f"rho.runCommand: not allowed in {call.label}: {_only_reads(call, 'destructive')}"
            )
        argv = [str(cmd), *(str(arg) for arg in args)]
        self._check_policy(argv)
        return await self._run(argv, call)

    def _check_policy(self, argv: list[str]) -> None:
        from rho_kernel.security import CommandPolicy

        denial = CommandPolicy.from_config(self.config.shell).check(shlex.join(argv))
        if denial is not None:
            raise HostError(f"rho.runCommand: refused by the command policy: {denial}")

    async def _run(self, argv: list[str], call: CallContext) -> dict[str, Any]:
        from rho_kernel import CancelToken, ProcessStartError, ToolContext

        ctx = call.tool or ToolContext(
            root=self.root, config=self.config, cancel=CancelToken(), confinement=self.confinement
        )
        try:
            result = await ctx.run_process(argv, timeout=COMMAND_TIMEOUT_S, live=False)
        except ProcessStartError as exc:
            raise HostError(f"rho.runCommand: {exc}") from None
        code = result.exit_code if result.exit_code is not None else -1
        redact = self._redactor.redact
        return {"stdout": redact(result.stdout), "stderr": redact(result.stderr), "exitCode": code}

    # ── network ──────────────────────────────────────────────────────────────

    async def fetch(self, request: dict[str, Any], context: Any) -> dict[str, Any]:
        if not self.permissions.network:
            raise HostError(
                f"fetch: network is off for extension '{self.name}' (set "
                f"{self._key('network')} in ~/.rho/config.toml)"
            )
        from rho_ext_js.fetching import fetch

        return await fetch(request, MAX_FETCH_BYTES, FETCH_TIMEOUT_S)


def _context(context: Any) -> CallContext:
    return context if isinstance(context, CallContext) else IDLE


def _only_reads(call: CallContext, needed: str) -> str:
    """Why `call` may not act, and what would allow it."""
    if call is IDLE:
        return (
            "it runs for no running call (it was scheduled in onLoad, a hook or a call "
            "that has ended) and may only read; act from the approved call's own code "
            "before it returns"
        )
    if needed == "write":
        return "it may only read (declare the tool's risk 'write' or higher to write files)"
    return "running a program needs the risk 'destructive'"


__all__ = ["MAX_FETCH_BYTES", "MAX_READ_BYTES", "ProjectHost"]
