"""Run the agent loop in-process against a scripted server: what a plugin author's test needs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rho_kernel import (
    AgentResult,
    ApprovalGate,
    CancelToken,
    ChatMessage,
    Observer,
    RhoConfig,
    Tool,
    hookimpl,
)
from rho_kernel.frontend import Runtime, RuntimeOptions
from rho_kernel.session import Session


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


class _GivenTools:
    """The plugin that contributes the tools a test hands to `run_prompt` directly."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools = list(tools)

    @hookimpl
    def rho_register_tools(self) -> list[Tool]:
        return self.tools


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
    """Run one prompt the way `rho` does, against the scripted server at `endpoint`.

    The runtime is assembled as `rho` assembles it (`Runtime.build`: the kernel's built-ins,
    tools collected and checked through the plugins, the project's command sandbox, context
    fitting, compaction strategies, the plugins' observers and approval gate), with three
    differences a test needs: `config` (default: an empty one) is used instead of reading
    config files, installed entry points are not loaded (only the built-ins, `plugins` and
    a plugin contributing `tools`), and the prompt runs on `session` (default: an in-memory
    session with a short system message). A `gate` or `observers` given here are used besides
    the plugins' own.
    """
    options = RuntimeOptions(
        cwd=root,
        root=root,
        model=model,
        endpoint=endpoint,
        ephemeral=True,
        config=config or RhoConfig(),
        entry_points=False,
        plugin_objects=[
            ("test", _GivenTools(tools)),
            *((f"test-plugin-{index}", plugin) for index, plugin in enumerate(plugins)),
        ],
    )
    runtime = Runtime.build(options)
    runtime.session.close()
    runtime.session = session or in_memory_session(root)
    try:
        return await runtime.prompt(message, observers=observers, gate=gate, cancel=cancel)
    finally:
        await runtime.close_connections()


__all__ = ["RecordingObserver", "in_memory_session", "run_prompt"]
