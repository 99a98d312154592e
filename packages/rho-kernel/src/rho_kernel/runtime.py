"""The assembled agent: config, plugins, tools, provider, model and the current session.

A host (the RPC server, a test, another front end) builds one `Runtime` and drives it; the
runtime holds no I/O of its own besides the session file and the model connection.
"""

from __future__ import annotations

import asyncio
import platform
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel.cancel import CancelToken
from rho_kernel.config.loader import load_config
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.agent import LoopParams, run_loop
from rho_kernel.loop.result import AgentResult
from rho_kernel.messages import ChatMessage
from rho_kernel.plugins import PluginHost
from rho_kernel.project import find_project_root
from rho_kernel.providers.resolve import ResolvedProvider, resolve_model, resolve_provider
from rho_kernel.security.sandbox import SandboxRoot
from rho_kernel.session.discovery import SessionInfo, find_latest_session, list_sessions
from rho_kernel.session.store import Session
from rho_kernel.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from rho_kernel.loop.approval import ApprovalGate
    from rho_kernel.loop.observer import Observer
    from rho_kernel.providers.service import LlmService


class StartupError(Exception):
    """rho cannot start as asked (bad config, unknown session, duplicate tools …)."""


@dataclass(slots=True)
class RuntimeOptions:
    """What the command line (or a test) asks for; None means "from config or default"."""

    cwd: Path = field(default_factory=Path.cwd)
    root: Path | None = None
    home: Path | None = None
    model: str | None = None
    endpoint: str | None = None
    api_key_env: str | None = None
    ephemeral: bool = False
    continue_latest: bool = False
    session_path: Path | None = None
    max_iterations: int | None = None
    token_budget: int | None = None
    system_prompt: str | None = None
    plugin_modules: Sequence[tuple[str, str]] = ()
    plugin_objects: Sequence[tuple[str, object]] = ()


def base_prompt() -> str:
    """The built-in system prompt."""
    return files("rho_kernel").joinpath("prompts/base.md").read_text(encoding="utf-8").strip()


class Runtime:
    """One running rho: build it with `Runtime.build(options)`."""

    def __init__(
        self,
        *,
        options: RuntimeOptions,
        root: SandboxRoot,
        config: RhoConfig,
        plugins: PluginHost,
        tools: ToolRegistry,
        provider: ResolvedProvider,
        model: str,
    ) -> None:
        self.options = options
        self.root = root
        self.config = config
        self.plugins = plugins
        self.tools = tools
        self.provider = provider
        self.model = model
        self.session: Session = Session.in_memory(root.path)
        self.steering: deque[str] = deque()
        #: Per-plugin state, keyed by something the plugin owns (a class or a module name).
        self.stash: dict[object, object] = {}
        self.cancel: CancelToken | None = None
        self._services: dict[tuple[str, str, str | None], LlmService] = {}
        self._turn_lock = asyncio.Lock()

    # ── assembly ────────────────────────────────────────────────────────────

    @classmethod
    def build(cls, options: RuntimeOptions) -> Runtime:
        """Detect the root, load config and plugins, collect tools, resolve provider and model."""
        start = options.root if options.root is not None else options.cwd
        if options.root is not None and not options.root.is_dir():
            raise StartupError(f"--root {options.root}: not a directory")
        root_path = options.root.resolve() if options.root else find_project_root(start)
        root = SandboxRoot(root_path)
        config = load_config(root.path, home=options.home)
        if options.max_iterations is not None:
            config.agent.max_iterations = options.max_iterations
        if options.token_budget is not None:
            config.agent.token_budget = options.token_budget

        plugins = PluginHost(disabled=config.plugins.disabled)
        plugins.load_defaults(options.plugin_modules)
        for name, plugin in options.plugin_objects:
            plugins.register(plugin, name)
        plugins.load_entrypoints()

        tools = ToolRegistry()
        for plugin_name, item in plugins.collect(
            "rho_register_tools", config=config, root=root.path
        ):
            try:
                tools.register(item, plugin_name)
            except TypeError as exc:
                plugins.report(f"rho: {exc} (ignored)")
            except Exception as exc:
                raise StartupError(str(exc)) from None

        try:
            provider = resolve_provider(
                config, endpoint=options.endpoint, api_key_env=options.api_key_env
            )
        except ValueError as exc:
            raise StartupError(str(exc)) from None
        model = resolve_model(config, provider, cli_model=options.model)
        runtime = cls(
            options=options,
            root=root,
            config=config,
            plugins=plugins,
            tools=tools,
            provider=provider,
            model=model,
        )
        runtime.session = runtime._initial_session()
        return runtime

    def _initial_session(self) -> Session:
        options = self.options
        if options.session_path is not None:
            return self._open(options.session_path)
        if options.continue_latest:
            latest = find_latest_session(self.root.path, home=options.home)
            if latest is None:
                raise StartupError(
                    f"no previous session for this project ({self.root.path}); start without -c"
                )
            return self._open(latest)
        return self._fresh_session()

    def _open(self, path: Path) -> Session:
        try:
            return Session.open(path)
        except FileNotFoundError:
            raise StartupError(f"session file not found: {path}") from None
        except Exception as exc:
            raise StartupError(f"cannot open session {path}: {exc}") from None

    def _fresh_session(self) -> Session:
        if self.options.ephemeral:
            session = Session.in_memory(self.root.path)
        else:
            session = Session.create(self.root.path, home=self.options.home)
        session.append_message(ChatMessage.system(self.system_prompt()))
        return session

    def system_prompt(self) -> str:
        """Base prompt (or `--system`), environment, then fragments from plugins and config."""
        parts = [
            self.options.system_prompt.strip() if self.options.system_prompt else base_prompt()
        ]
        parts.append(
            "# Environment\n"
            f"Project root (working directory): {self.root.path}\n"
            f"Platform: {platform.system()} {platform.machine()}\n"
            "Every tool path is relative to the project root."
        )
        fragments: list[str] = []
        for _, fragment in self.plugins.collect(
            "rho_system_prompt_fragments", config=self.config, root=self.root.path
        ):
            if isinstance(fragment, str) and fragment.strip():
                fragments.append(fragment.strip())
        fragments.extend(f.strip() for f in self.config.system_prompt.extensions if f.strip())
        return "\n\n".join(parts + fragments)

    # ── the model ───────────────────────────────────────────────────────────

    def service(self) -> LlmService:
        """The protocol service for the active provider (created on first use)."""
        provider = self.provider
        key = (provider.api, provider.endpoint, provider.api_key)
        service = self._services.get(key)
        if service is None:
            factories = {
                factory.api: factory
                for _, factory in self.plugins.collect("rho_register_provider_services")
            }
            factory = factories.get(provider.api)
            if factory is None:
                known = ", ".join(sorted(factories)) or "none"
                raise StartupError(
                    f"provider '{provider.name}' uses api \"{provider.api}\", which no installed "
                    f"plugin provides (available: {known})"
                )
            service = factory.create(
                provider.endpoint,
                provider.api_key,
                provider.name,
                first_token_timeout=self.config.agent.first_token_timeout_secs,
                idle_timeout=self.config.agent.stream_idle_timeout_secs,
            )
            self._services[key] = service
        return service

    # ── prompts ─────────────────────────────────────────────────────────────

    @property
    def busy(self) -> bool:
        """Whether a prompt is running."""
        return self._turn_lock.locked()

    async def prompt(
        self,
        message: str,
        *,
        observers: Iterable[Observer] = (),
        gate: ApprovalGate | None = None,
        cancel: CancelToken | None = None,
    ) -> AgentResult:
        """Run one prompt to its end (raises `AgentError` when it fails)."""
        async with self._turn_lock:
            self.cancel = cancel or CancelToken()
            plugin_observers = [
                obs for _, obs in self.plugins.collect("rho_register_observers", config=self.config)
            ]
            if gate is None:
                gate = self.plugins.first("rho_approval_gate", config=self.config)
            params = LoopParams(
                service=self.service(),
                model=self.model,
                tools=self.tools,
                plugins=self.plugins,
                config=self.config,
                root=self.root,
                cancel=self.cancel,
                observers=[*observers, *plugin_observers],
                gate=gate,
                steering=self.steering,
                provider_name=self.provider.name,
                endpoint=self.provider.endpoint,
            )
            try:
                return await run_loop(self.session, message, params)
            finally:
                self.cancel = None

    def abort(self) -> bool:
        """Cancel the running prompt; False when none runs."""
        if self.cancel is None:
            return False
        self.cancel.cancel()
        return True

    # ── sessions ────────────────────────────────────────────────────────────

    def new_session(self) -> Session:
        """Close the current session and start a fresh one."""
        self.session.close()
        self.session = self._fresh_session()
        return self.session

    def resume(self, path: Path) -> Session:
        """Close the current session and continue the one at `path`."""
        session = self._open(path)
        self.session.close()
        self.session = session
        return session

    def sessions(self, limit: int | None = 10) -> list[SessionInfo]:
        """Saved sessions of this project, most recent first."""
        return list_sessions(self.root.path, home=self.options.home, limit=limit)

    async def aclose(self, reason: str = "transport EOF") -> None:
        """End the session and close model connections."""
        self.session.end(reason)
        for service in self._services.values():
            try:
                await service.aclose()
            except Exception as exc:  # closing must not hide the shutdown
                self.plugins.report(f"rho: closing the model connection failed: {exc}")
        self._services.clear()


__all__ = ["Runtime", "RuntimeOptions", "StartupError", "base_prompt"]
