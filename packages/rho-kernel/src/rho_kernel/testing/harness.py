"""Run the agent loop in-process against a scripted server: what a plugin author's test needs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.loop.agent import LoopParams, run_loop
from rho_kernel.loop.approval import ApprovalGate
from rho_kernel.loop.observer import Observer
from rho_kernel.loop.result import AgentResult
from rho_kernel.messages import ChatMessage
from rho_kernel.plugins import PluginHost
from rho_kernel.security.sandbox import SandboxRoot
from rho_kernel.session.store import Session
from rho_kernel.tools.base import Tool
from rho_kernel.tools.registry import ToolRegistry


def in_memory_session(root: Path, system: str = "You are a test assistant.") -> Session:
    """A session that writes nothing to disk, starting with a system message."""
    session = Session.in_memory(root)
    session.append_message(ChatMessage.system(system))
    return session


class RecordingObserver(Observer):
    """Records every event as a `(method, args)` tuple in `events`; the keyword arguments of
    each event (such as `call_id`) go, in the same order, to `keywords`."""

    def __init__(self) -> None:
        self.events: list[tuple[str, tuple[Any, ...]]] = []
        self.keywords: list[dict[str, Any]] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):

            async def record(*args: Any, **keywords: Any) -> None:
                object.__getattribute__(self, "events").append((name, args))
                object.__getattribute__(self, "keywords").append(keywords)

            return record
        return object.__getattribute__(self, name)

    def names(self) -> list[str]:
        """The event method names, in order."""
        return [name for name, _ in self.events]

    def call_ids(self, method: str) -> list[Any]:
        """The `call_id` of every `method` event, in order (None where none was given)."""
        return [
            keywords.get("call_id")
            for (name, _), keywords in zip(self.events, self.keywords, strict=True)
            if name == method
        ]


async def run_prompt(
    message: str,
    *,
    endpoint: str,
    root: Path,
    tools: Iterable[Tool] = (),
    plugins: Sequence[object] = (),
    config: RhoConfig | None = None,
    gate: ApprovalGate | None = None,
    session: Session | None = None,
    observers: Sequence[Observer] = (),
    model: str = "test-model",
    cancel: CancelToken | None = None,
) -> AgentResult:
    """Run one prompt through the real loop and the real Chat Completions client.

    `plugins` are registered (with the kernel's built-ins, no entry points) so their hooks
    take part; `tools` are added to the registry directly.
    """
    from rho_kernel.providers.chat_completions import ChatCompletionsService

    host = PluginHost(autoload=False)
    host.load_defaults()
    for index, plugin in enumerate(plugins):
        host.register(plugin, f"test-plugin-{index}")
    registry = ToolRegistry()
    for tool in tools:
        registry.register(tool, "test")
    for plugin_name, item in host.collect(
        "rho_register_tools", config=config or RhoConfig(), root=root
    ):
        registry.register(item, plugin_name)
    service = ChatCompletionsService(endpoint, None, "scripted")
    params = LoopParams(
        service=service,
        model=model,
        tools=registry,
        plugins=host,
        config=config or RhoConfig(),
        root=SandboxRoot(root),
        cancel=cancel or CancelToken(),
        observers=observers,
        gate=gate,
        provider_name="scripted",
    )
    try:
        return await run_loop(session or in_memory_session(root), message, params)
    finally:
        await service.aclose()


__all__ = ["RecordingObserver", "in_memory_session", "run_prompt"]
