"""`ExtensionManager`: finds, loads, reloads and runs the extensions of one rho.

Each extension runs in its own isolate on rho's event loop. Loading one: bundle its modules
(TypeScript stripped), check that the user trusts a project extension's files as they are,
start the isolate with the extension's limits, read its manifest, register its tools. A
failure at any step is reported (stderr and `listExtensions`) and the others load anyway.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rho_ext_js.calls import CallContext
from rho_ext_js.config import ExtensionsConfig
from rho_ext_js.discovery import ExtensionSource, discover_all, stamp
from rho_ext_js.host import ExtensionError, ExtensionMemoryError, ExtensionTimeout, HostError
from rho_ext_js.naming import Naming
from rho_ext_js.restarts import MAX_RESTARTS, restart_note, restart_outlook
from rho_ext_js.stacks import error_text, own_frames, syntax_error_place
from rho_kernel import ToolError, diagnostics

if TYPE_CHECKING:
    from rho_ext_js.isolate import Isolate
    from rho_ext_js.manifest import CommandSpec, Manifest
    from rho_kernel import Runtime

#: The plugin name extension tools are registered under.
PLUGIN = "rho-ext-js"

State = Literal["loaded", "failed", "untrusted", "disabled", "stopped"]


@dataclass
class Extension:
    """One extension rho knows: where it is, whether it runs, and why not."""

    source: ExtensionSource
    state: State
    error: str | None = None
    manifest: Manifest | None = None
    isolate: Isolate | None = None
    files: tuple[Path, ...] = ()
    stamp: tuple[tuple[str, int, int], ...] = ()
    model: str | None = None
    #: The `sourceURL` of each of its modules (with its first-line column shift): the frames
    #: an error shows.
    modules: dict[str, int] = field(default_factory=dict)
    #: The script it runs (a restart runs it again, as it was checked).
    script: str = ""
    #: Whether its tools are in the registry: while loaded, and while stopped with restarts
    #: left (the next call restarts it).
    registered: bool = False
    #: How many times it was restarted since it was (re)loaded.
    restarts: int = 0
    #: Why it was stopped last (without what happens next).
    stopped_because: str = ""
    restart_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def usable(self) -> bool:
        """Whether it runs, or restarts on its next call."""
        return self.state == "loaded" or (self.state == "stopped" and self.registered)


@dataclass
class ReloadReport:
    """What a (re)load changed, by extension name."""

    added: list[str] = field(default_factory=list)
    reloaded: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


class LoadError(Exception):
    """An extension could not be loaded; the message says why."""

    def __init__(self, message: str, state: State = "failed") -> None:
        super().__init__(message)
        self.state: State = state


class ExtensionManager:
    """The extensions of `runtime`'s project and of the user (`home`)."""

    def __init__(self, runtime: Runtime, home: Path | None = None) -> None:
        self.runtime = runtime
        self.home = home
        self.extensions: dict[str, Extension] = {}
        #: What the names in `[extensions]` mean (read from the sources at each reload).
        self.naming = Naming()
        self._lock = asyncio.Lock()

    @property
    def config(self) -> ExtensionsConfig:
        """`[extensions]` as configured now."""
        return self.runtime.config.section("extensions", ExtensionsConfig)

    def report(self, message: str) -> None:
        """A warning on stderr."""
        diagnostics.warn(message)

    def loaded(self) -> list[Extension]:
        """The running extensions, and the stopped ones their next call restarts, by name."""
        return [self.extensions[n] for n in sorted(self.extensions) if self.extensions[n].usable]

    # ── loading ──────────────────────────────────────────────────────────────

    async def reload(self) -> ReloadReport:
        """Bring the running extensions in line with the files: load new ones, re-run
        changed ones (any of their files), shut down removed or now disabled ones; then fire
        `onLoad` of each one (re)started."""
        async with self._lock:
            report = ReloadReport()
            found = self._found()
            sources = [source for listed in found.values() for source in listed]
            self.naming = await asyncio.to_thread(Naming.read, sources)
            for message in self.naming.ambiguities(self.config):
                diagnostics.warn(message)
            for name in sorted(set(self.extensions) - set(found)):
                if self.extensions[name].state == "loaded":
                    report.removed.append(name)
                await self._shut_down(name)
                del self.extensions[name]
            for name, sources in sorted(found.items()):
                await self._refresh(name, sources, report)
            for name in report.added + report.reloaded:
                await self._on_load(name)
            return report

    def _found(self) -> dict[str, list[ExtensionSource]]:
        """Each discovered name with its sources, the project's first."""
        found: dict[str, list[ExtensionSource]] = {}
        for source in discover_all(self.runtime.root.path, self.home):
            found.setdefault(source.name, []).insert(0, source)
        return found

    async def _refresh(
        self, name: str, sources: list[ExtensionSource], report: ReloadReport
    ) -> None:
        disabled = sources[0]
        old = self.extensions.get(name)
        sources = [source for source in sources if self.naming.selected(source, self.config)]
        if not sources:
            if old is not None and old.state == "loaded":
                report.removed.append(name)
            await self._shut_down(name)
            self.extensions[name] = Extension(
                disabled, "disabled", "left out by [extensions] enabled/disabled"
            )
            return
        if (
            old is not None
            and old.state in ("loaded", "failed", "untrusted")
            and self._unchanged(old, sources)
        ):
            return
        was_running = old is not None and old.state in ("loaded", "stopped")
        if old is not None:
            await self._shut_down(name)
        extension = await self._load_first(sources)
        self.extensions[name] = extension
        if extension.state == "loaded":
            (report.reloaded if was_running else report.added).append(name)
        else:
            report.failed.append((name, extension.error or extension.state))
            diagnostics.warn(f"extension {name} not loaded: {extension.error}")

    @staticmethod
    def _unchanged(old: Extension, sources: list[ExtensionSource]) -> bool:
        return old.source == sources[0] and bool(old.stamp) and stamp(list(old.files)) == old.stamp

    async def _load_first(self, sources: list[ExtensionSource]) -> Extension:
        """The project's extension, or the user's of the same name when the project's is not
        trusted."""
        untrusted: Extension | None = None
        for source in sources:
            extension = await self._load(source)
            if extension.state != "untrusted":
                return extension
            untrusted = untrusted or extension
        assert untrusted is not None
        return untrusted

    async def _load(self, source: ExtensionSource) -> Extension:
        from rho_ext_js.building import build

        extension = Extension(source, "failed")
        built = None
        try:
            built = await asyncio.to_thread(build, source, self.runtime.root.path, self.home)
            extension.files = tuple(built.files)
            extension.stamp = stamp(list(built.files))
            extension.modules = built.modules
            if built.untrusted:
                raise LoadError(built.untrusted, "untrusted")
            await self._start(extension, built.script)
        except LoadError as exc:
            extension.state, extension.error = exc.state, str(exc)
        except (ExtensionError, HostError) as exc:
            extension.error = error_text(exc, extension.modules)
            self._stop_isolate(extension)
            if built is not None and _unplaced_syntax_error(exc, extension.modules):
                place = await syntax_error_place(built.codes)
                extension.error += f" (at {place})" if place else ""
        except Exception as exc:  # one extension's failure must not stop the others loading
            extension.error = f"internal error while loading: {type(exc).__name__}: {exc}"
            self._stop_isolate(extension)
        return extension

    async def _start(self, extension: Extension, script: str) -> None:
        from rho_ext_js.isolate import Isolate
        from rho_ext_js.manifest import ManifestError, parse_manifest

        name = extension.source.name
        isolate = await Isolate.start(
            name, self._host(extension.source), self._limits(extension.source)
        )
        extension.isolate, extension.model = isolate, None
        await self._sync_model(extension)
        extension.script = script
        descriptor = await isolate.load(script, CallContext("load", "the extension's script"))
        try:
            manifest = parse_manifest(name, descriptor)
        except ManifestError as exc:
            raise LoadError(str(exc)) from None
        if extension.registered:  # a restart: the tools in the registry must stay true
            assert extension.manifest is not None
            if manifest.tools != extension.manifest.tools:
                raise LoadError("its tools are not the same as before the restart")
            extension.manifest = manifest
        else:
            extension.manifest = manifest
            self._register_tools(extension)
        extension.state = "loaded"

    def _host(self, source: ExtensionSource) -> Any:
        from rho_ext_js.project_host import ProjectHost

        return ProjectHost(
            name=source.name,
            root=self.runtime.root,
            config=self.runtime.config,
            permissions=self.naming.permissions(source, self.config),
            confinement=self.runtime.confinement,
            extension_root=source.root,
        )

    def _limits(self, source: ExtensionSource) -> Any:
        from rho_ext_js.host import Limits

        permissions = self.naming.permissions(source, self.config)
        defaults = Limits()
        return Limits(
            max_memory_mb=permissions.max_memory_mb or defaults.max_memory_mb,
            max_execution_time_s=permissions.max_execution_time_s or defaults.max_execution_time_s,
        )

    def _register_tools(self, extension: Extension) -> None:
        from rho_ext_js.tool import ExtensionTool
        from rho_kernel.tools import DuplicateToolError

        assert extension.manifest is not None
        added: list[str] = []
        for spec in extension.manifest.tools:
            try:
                self.runtime.tools.register(
                    ExtensionTool(self, extension.source.name, spec), PLUGIN
                )
            except DuplicateToolError as exc:
                for name in added:
                    self.runtime.tools.unregister(name)
                raise LoadError(str(exc)) from None
            added.append(spec.name)
        extension.registered = True

    def _unregister_tools(self, extension: Extension) -> None:
        if extension.registered and extension.manifest is not None:
            for spec in extension.manifest.tools:
                self.runtime.tools.unregister(spec.name)
        extension.registered = False

    async def _shut_down(self, name: str) -> None:
        extension = self.extensions.get(name)
        if extension is None:
            return
        self._unregister_tools(extension)
        self._stop_isolate(extension)

    @staticmethod
    def _stop_isolate(extension: Extension) -> None:
        if extension.isolate is not None:
            extension.isolate.close()
            extension.isolate = None

    def close(self) -> None:
        """Stop every isolate (rho is shutting down)."""
        for extension in self.extensions.values():
            self._stop_isolate(extension)

    # ── calls ────────────────────────────────────────────────────────────────

    async def _sync_model(self, extension: Extension) -> None:
        if extension.isolate is not None and extension.model != self.runtime.model:
            await extension.isolate.set_model(self.runtime.model)
            extension.model = self.runtime.model

    async def _ready(self, name: str) -> tuple[Extension, str | None]:
        """The extension `name`, running: one stopped with restarts left is restarted first
        (the note says so). A `ToolError` says why it cannot run."""
        extension = self.extensions.get(name)
        note = None
        if extension is not None and extension.state == "stopped" and extension.registered:
            note = await self._restart(extension)
        if extension is None or extension.state != "loaded" or extension.isolate is None:
            why = (
                extension.error if extension is not None and extension.error else "it is not loaded"
            )
            raise ToolError(
                f"extension '{name}' is not running: {why} (reloadExtensions restarts it)"
            )
        return extension, note

    async def run_tool(
        self, name: str, tool: str, args_json: str, context: CallContext
    ) -> tuple[Any, str | None]:
        """Run tool `tool` of extension `name`: what it returned, and a note when the
        extension had to be restarted for it. Failures are `ToolError`s naming the cause."""
        extension, note = await self._ready(name)
        try:
            await self._sync_model(extension)
            assert extension.isolate is not None
            return await extension.isolate.call_tool(tool, args_json, context), note
        except ExtensionError as exc:
            failure = self._failure(extension, exc)
            raise ToolError(
                f"{note}\n{tool}: {failure}" if note else f"{tool}: {failure}"
            ) from None

    async def call_tool(self, name: str, tool: str, args_json: str, context: CallContext) -> Any:
        """Run tool `tool` of extension `name` (see `run_tool`): what it returned."""
        return (await self.run_tool(name, tool, args_json, context))[0]

    async def call_command(self, command: CommandSpec, name: str, args: str) -> str:
        """Run command `command` of extension `name` for the client (with its risk); a
        restart it needed is noted on the output's first line."""
        extension, note = await self._ready(name)
        context = CallContext("command", f"command {command.name}", allowed=command.risk)
        try:
            await self._sync_model(extension)
            assert extension.isolate is not None
            output = await extension.isolate.call_command(command.name, args, context)
        except ExtensionError as exc:
            failure = f"{command.name}: {self._failure(extension, exc)}"
            raise ToolError(f"{note}\n{failure}" if note else failure) from None
        return f"{note}\n{output}" if note else output

    async def call_hook(self, extension: Extension, hook: str, payload: str) -> Any:
        """Run `hook` of a running extension (one stopped with restarts left is restarted
        first) with read-only host access; a failure is reported and answers None."""
        if extension.state == "stopped" and extension.registered:
            try:
                await self._ready(extension.source.name)
            except ToolError as exc:
                diagnostics.warn(f"extension {extension.source.name}: {hook}: {exc}")
                return None
        if extension.isolate is None:
            return None
        try:
            await self._sync_model(extension)
            return await extension.isolate.call_hook(
                hook, payload, CallContext("hook", f"hook {hook}")
            )
        except ExtensionError as exc:
            diagnostics.warn(
                f"extension {extension.source.name}: {hook}: {self._failure(extension, exc)}"
            )
            return None

    async def _on_load(self, name: str) -> None:
        extension = self.extensions[name]
        if extension.manifest is not None and "onLoad" in extension.manifest.hooks:
            await self.call_hook(extension, "onLoad", "")

    # ── stops and restarts ───────────────────────────────────────────────────

    def _failure(self, extension: Extension, exc: ExtensionError) -> str:
        """The message of a failed call; an isolate that had to be stopped is marked so,
        and the message says whether its next call restarts it."""
        name = extension.source.name
        limits = self._limits(extension.source)
        if isinstance(exc, ExtensionMemoryError):
            text = (
                f"extension '{name}' went over its memory limit ({limits.max_memory_mb} MB, "
                f"max_memory_mb) and was stopped"
            )
        elif isinstance(exc, ExtensionTimeout):
            text = (
                f"extension '{name}' ran longer than {limits.max_execution_time_s:g} s "
                "(max_execution_time_s) and was stopped"
            )
        else:
            text = error_text(exc, extension.modules)
            if extension.isolate is None or not extension.isolate.closed:
                return text
            text = f"extension '{name}' stopped: {text}"
        if extension.isolate is not None and extension.isolate.closed:
            left = self._max_restarts(extension.source) - extension.restarts
            self._mark_stopped(extension, text, restart_outlook(left, extension.restarts), left > 0)
            text += restart_outlook(left, extension.restarts)
        return text

    def _max_restarts(self, source: ExtensionSource) -> int:
        configured = self.naming.permissions(source, self.config).max_restarts
        return MAX_RESTARTS if configured is None else configured

    def _mark_stopped(
        self, extension: Extension, why: str, outlook: str, restartable: bool
    ) -> None:
        """Stop the extension; its tools stay registered only if its next call restarts it."""
        if not restartable:
            self._unregister_tools(extension)
        extension.state, extension.error = "stopped", why + outlook
        extension.stopped_because = why
        extension.stamp = ()  # so that the next reload starts it again
        self._stop_isolate(extension)

    async def _restart(self, extension: Extension) -> str | None:
        """Start a stopped extension again with a fresh isolate (once, however many calls
        wait); the note for the result, or None if another call restarted it."""
        async with extension.restart_lock:
            if extension.state != "stopped" or not extension.registered:
                return None
            why, name = extension.stopped_because or "it was stopped", extension.source.name
            extension.restarts += 1
            try:
                await self._start(extension, extension.script)
            except Exception as exc:  # a failed restart must not fail rho: it is reported
                text = (
                    error_text(exc, extension.modules)
                    if isinstance(exc, (ExtensionError, HostError))
                    else str(exc)
                )
                self._unregister_tools(extension)
                self._stop_isolate(extension)
                extension.state, extension.error = "failed", f"restart failed: {text}"
                extension.stamp = ()
                diagnostics.warn(f"extension {name}: {extension.error}")
                return None
            note = restart_note(name, why, extension.restarts, self._max_restarts(extension.source))
            diagnostics.warn(note)
        await self._on_load(name)
        return note


def _unplaced_syntax_error(exc: Exception, modules: dict[str, int]) -> bool:
    """Whether `exc` is a syntax error V8 gave no place in the extension's modules for."""
    stack = getattr(exc, "stack", "") or ""
    return stack.startswith("SyntaxError") and not own_frames(stack, modules)


__all__ = ["PLUGIN", "Extension", "ExtensionManager", "LoadError", "ReloadReport"]
