"""Every hook a rho plugin can implement, read top to bottom.

Plugins implement hooks with `rho_kernel.hookimpl` and are found through the `rho` entry-point
group. An implementation may accept any subset of a hook's arguments (pluggy's rule), so new
arguments can be added without breaking old plugins. Registration hooks (`rho_register_*`)
return lists, except `rho_register_config_sections`, which returns a dict of section name to
model. The host calls every hook through pluggy, so `firstresult`, wrappers
(`wrapper=True`) and tracing mean what pluggy documents, except that an implementation that
raises is reported and left out, and every contribution is attributed to the plugin that
made it (see `rho_kernel.hookcall`).

Hooks are called synchronously and should be cheap: they contribute objects, and the objects
do their I/O asynchronously on rho's single asyncio loop. Two hooks may answer with an
awaitable (an `async def` implementation): `rho_before_tool_call` and `rho_after_tool_call`,
whose awaitable answers the agent loop awaits after the synchronous ones. Every other hook's
answer is used as returned (an awaitable there is not awaited).

Compatibility: within a major version of `rho_kernel.__version__` hooks and arguments are
only added ("Added in X.Y" says when); removing or renaming a hook or an argument, or
changing whether a hook is first-result, needs a new major version. A snapshot of these
signatures in rho's test suite enforces it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rho_kernel.commands import Command
    from rho_kernel.config.model import ApprovalMode, RhoConfig
    from rho_kernel.confinement.backend import ConfinementBackend
    from rho_kernel.loop.approval import ApprovalGate
    from rho_kernel.loop.compaction import CompactionStrategy
    from rho_kernel.loop.observer import Observer
    from rho_kernel.messages import ToolCall
    from rho_kernel.providers.service import ServiceFactory
    from rho_kernel.rpc import RpcMethod
    from rho_kernel.runtime import Runtime
    from rho_kernel.tools.base import Risk, Tool, ToolResult
    from rho_kernel.tools.intercept import Interception
    from rho_kernel.turn_hooks import PromptContext

hookspec = pluggy.HookspecMarker("rho")


# ── Configuration ────────────────────────────────────────────────────────────


@hookspec
def rho_register_config_sections() -> dict[str, type[BaseModel]]:
    """Declare the plugin's own top-level config tables: `{"greeter": GreeterConfig}`.

    Called once at startup, after plugins are loaded and before any other hook that receives
    the config (and by `rho trust`, to judge the project's settings). Return a dict of section
    name (a bare TOML key) to a pydantic `BaseModel` subclass (an empty dict, or None,
    declares nothing). rho validates `[name]` of each config file against the model (strict
    types; errors name the file and `name.key`), merges the user's and the project's tables
    by the fields' markers (`Additive`, `Replaced`), applies project trust (`NeedsTrust`,
    `UserOnly`) and warns about unknown keys inside it. Read the result with
    `config.section("greeter", GreeterConfig)`; a section no file sets holds the model's
    defaults.

    A name declared by two plugins, or one of the kernel's own tables (`agent`, `shell`, …),
    is a startup error naming both owners. A name that is not a bare TOML key, or a model
    that is not a `BaseModel` subclass, is reported and skipped.

    Added in 0.2.
    """


# ── Tools ────────────────────────────────────────────────────────────────────


@hookspec
def rho_register_tools(config: RhoConfig, root: Path) -> list[Tool]:
    """Contribute tools to the model.

    Called once at startup, after configuration is loaded. Return a list of `Tool` instances
    or `@tool`-decorated functions (an empty list, or None, contributes nothing). An item that
    is not a tool, has a name no model API takes, or whose parameters are not a JSON Schema
    object is reported (naming the plugin's distribution) and skipped. A name two plugins
    contribute stays with the plugin that loads first; the other's tool is skipped with a
    warning naming both.

    :param config: the merged configuration; `config.section(name, Model)` reads a plugin's
        section.
    :param root: the canonical project (sandbox) root.

    Added in 0.1.
    """


# ── Providers ────────────────────────────────────────────────────────────────


@hookspec
def rho_register_provider_services() -> list[ServiceFactory]:
    """Contribute wire-protocol services (e.g. "chat_completions", "responses").

    Return `ServiceFactory` objects; a provider's `api` setting selects the factory with the
    same `api`. Called once at startup. The kernel's own Chat Completions service is
    contributed through this hook.

    Added in 0.1.
    """


# ── Confinement ──────────────────────────────────────────────────────────────


@hookspec
def rho_register_confinement_backends() -> list[ConfinementBackend]:
    """Contribute OS sandboxes for the commands rho runs for the model (`ConfinementBackend`).

    Called once at startup. `[sandbox] backend` selects one by name; otherwise the first, in
    hook order (plugins before the built-in bubblewrap and Seatbelt), that supports the
    platform and passes its `probe` confines every command started through
    `ToolContext.run_process`. A backend wraps the argv (a container runtime, a remote
    runner…); it must honour the whole `ConfinementPolicy` and die with its parent.

    Added in 0.2.
    """


# ── Loop ─────────────────────────────────────────────────────────────────────


@hookspec
def rho_register_compaction_strategies() -> list[CompactionStrategy]:
    """Contribute compaction strategies, selected by name with `[agent] compaction_mode`.

    Called once at startup. Return a list of `CompactionStrategy` objects: a `name` (what
    `compaction_mode` and the `compact` RPC method's `strategy` select) and an
    `async summarize(request: CompactionRequest)` returning a `CompactionSummary` (or a
    mapping of its fields), or None to use the mechanical summary. The kernel's "mechanical"
    and "llm" come from the built-in plugin `rho.compaction`. An object without a string
    `name` or an async `summarize` is reported and skipped; a name registered twice is a
    startup error naming both plugins, and so is a `compaction_mode` no plugin registered.
    A strategy that raises, returns something unusable or a summary larger than what it
    replaces is reported on stderr and the mechanical summary is written instead.

    Added in 0.1 (the `CompactionRequest` argument of `summarize` in 0.2).
    """


@hookspec(firstresult=True)
def rho_approval_policy(tool_name: str, risk: Risk, config: RhoConfig) -> ApprovalMode | None:
    """Decide whether a tool call runs without asking ("auto"), asks ("ask") or is refused ("deny").

    Called before every tool call that was not blocked. The first non-None result wins;
    None means "no opinion". The kernel's built-in policy (registered as `rho.approval`)
    answers from `[approval.per_tool]`, then from the risk: read → auto, anything else → ask.

    Added in 0.1.
    """


@hookspec(firstresult=True)
def rho_approval_gate(config: RhoConfig, runtime: Runtime) -> ApprovalGate | None:
    """Provide the gate that asks a human when the policy says "ask".

    Called once per prompt; the first non-None result wins. With no gate at all, calls that
    need approval are denied. rho-rpc provides, through this hook, the gate that sends
    `approval/request` to its client and waits for `approvalResponse`.

    Added in 0.1; `runtime` (the running rho, e.g. to reach a connection kept in
    `runtime.stash`) added in 0.2.
    """


@hookspec
def rho_register_observers(config: RhoConfig, runtime: Runtime) -> list[Observer]:
    """Contribute observers that receive the loop's live events (see `Observer`).

    Called once per prompt. rho-rpc turns the events into its notifications through an
    observer it contributes here.

    Added in 0.1; `runtime` added in 0.2.
    """


@hookspec
def rho_before_tool_call(
    call: ToolCall, arguments: dict[str, Any], tool: Tool | None
) -> Interception | None:
    """Intercept a tool call before approval and execution.

    Called for every tool call the model makes, in plugin order. Return `Block(reason)` to
    refuse it (the first Block wins and no later implementation is asked), `Rewrite(arguments)`
    to replace the decoded arguments seen by later implementations and by the tool,
    `Permission("allow" | "ask", reason, arguments=None)` to settle whether the call is asked
    about (see `Permission`; "ask" wins over "allow"; since 0.3), or None to let it pass.
    `tool` is None when the model named a tool that does not exist.

    An implementation may be `async def` (or return any awaitable): the loop awaits such
    answers after every synchronous implementation has answered, in plugin order; a `Block`
    from one ends the call (no later awaitable is awaited), a `Rewrite` replaces the arguments
    (synchronous implementations never see it). An abort interrupts the wait. Added in 0.1;
    awaitable answers since 0.3.
    """


@hookspec
def rho_after_tool_call(call: ToolCall, result: ToolResult) -> ToolResult | None:
    """See, and optionally replace, a tool's result before it is redacted and stored.

    Called after every executed call. Return a `ToolResult` to replace the result (later
    implementations see the replacement) or None to keep it. An `async def` implementation's
    answer is awaited after the synchronous ones (not after an abort, when only synchronous
    answers are read). Added in 0.1; awaitable answers since 0.3.
    """


# ── Prompt ───────────────────────────────────────────────────────────────────


@hookspec
def rho_project_files_to_trust(root: Path) -> list[str]:
    """Name the project files a plugin uses only while the user trusts them (code it runs,
    text it adds to the prompt), as paths relative to `root` with `/` separators.

    Called by `rho trust`, which records each file's SHA-256 alongside the project's config
    and context files (a file that cannot be read as a regular file inside the project is
    reported and skipped). The plugin then checks `TrustStore.is_trusted(root, path, data)`
    before it uses a file: any change lapses the trust. Added in 0.3.
    """


@hookspec
def rho_system_prompt_fragments(config: RhoConfig, root: Path) -> list[str]:
    """Contribute text appended to the system prompt of new sessions.

    Called once when a session is created. Return a list of strings (each appended after a
    blank line), in plugin order. Added in 0.1.
    """


# ── Protocol ─────────────────────────────────────────────────────────────────


@hookspec
def rho_register_rpc_methods(runtime: Runtime) -> list[RpcMethod]:
    """Contribute JSON-RPC methods (see `RpcMethod`); handlers may keep `runtime`.

    Called once when the RPC server starts (and by `rho --plugins`). An item that is not a
    usable `RpcMethod` (see docs/plugins.md) is reported and skipped. A name two plugins
    contribute stays with the plugin that loads first (rho-rpc's core methods always do); the
    other's method is skipped with a warning naming both. Added in 0.1.
    """


@hookspec
def rho_register_commands(runtime: Runtime) -> list[Command]:
    """Contribute the commands a client lists (`listCommands`) and runs (`executeCommand`).

    Return the `Command` objects the plugin offers now (an empty list, or None, offers none).
    Called on every `listCommands` and `executeCommand`, once the work started at startup has
    settled (`runtime.startup_settled()`), so a plugin whose commands change (extensions
    reloaded, an MCP server's prompts) answers what is current. Keep it cheap: answer from
    what the plugin holds, and start nothing just to answer it.

    An item that is not a `Command`, whose `name` is not non-empty text, whose `description`
    or `source` is not text or whose `risk` is not a `Risk` (or its value, `"write"`), is
    reported (once) and skipped; so is a second command of the same name from the same
    source. An empty `source` stands for the
    plugin's registered name. Two sources may offer the same name: `executeCommand` then
    needs `source` to pick one.

    Added in 0.3.
    """


@hookspec
def rho_state(runtime: Runtime) -> dict[str, Any]:
    """Add keys to `getState`'s result, each a JSON value: rho-mcp adds `mcp`.

    Called on every `getState`, which clients poll: answer from what the plugin holds, without
    I/O. Return a dict of key to value (an empty dict, or None, adds nothing); the keys join
    the result's top level. A key that is one of `getState`'s own members (`model`,
    `sandbox`, …), or that a plugin loading earlier gives too, is reported (once) and skipped,
    and so is a key that is not text or a value that is not JSON (NaN, an object json cannot
    encode). A null value is left out, as `getState` leaves out its own null members. An
    implementation that raises is reported and adds nothing.

    Added in 0.3.
    """


# ── Lifecycle ────────────────────────────────────────────────────────────────


@hookspec
def rho_prompt_starting(runtime: Runtime, message: str) -> str | PromptContext | None:
    """Called at the start of every prompt, before its first model request, with the turn
    under way (`runtime.busy` is true until it ends) and after the work begun at startup has
    settled. `message` is the user's message (since 0.3; take it as a parameter only if
    you need it).

    It is the moment a plugin whose tools change while rho runs (servers that come and go,
    say) puts the change in `runtime.tools`: the registry must not change during a turn, so
    the model sees the same tools from the turn's first request to its last. Return a reason
    to refuse the prompt (it fails with it, as `agent/error`, before its message is added to
    the session or anything is sent to the model; the session records the failed turn as it
    does every failed prompt), or None to let it run. An implementation that raises is
    reported and refuses nothing. An implementation may be `async def` (or return any
    awaitable), e.g. to start again something the prompt needs: rho awaits each such answer
    in plugin order, with the turn under way, before the first model request. Return a
    `PromptContext(text)` instead to give the model `text` right after the user's message
    (rho-hooks gives a `UserPromptSubmit` hook's additional context so).

    Added in 0.3.
    """


@hookspec
def rho_turn_ending(runtime: Runtime, reply: str, continued: int) -> str | None:
    """Called when the model has answered without tool calls and the turn would end, with
    its `reply` and how many times a plugin's answer has already continued this turn.
    Return a message to continue instead: it is added as a user message and the model is
    asked again (the turn stays bounded by `[agent] max_iterations`; a plugin bounds its own
    continuations with `continued`). None lets the turn end. May be `async def`; an
    abort ends the wait. Added in 0.3.
    """


@hookspec
def rho_startup(runtime: Runtime) -> None:
    """Called once after the runtime is assembled and before the host accepts requests.

    Keep it quick: heavy work belongs in the background or on first use. Added in 0.1.
    """


@hookspec
def rho_shutdown(runtime: Runtime) -> None:
    """Called once when rho shuts down cleanly (end of input or a signal). Added in 0.1."""


__all__ = [
    "hookspec",
    "rho_after_tool_call",
    "rho_approval_gate",
    "rho_approval_policy",
    "rho_before_tool_call",
    "rho_project_files_to_trust",
    "rho_prompt_starting",
    "rho_register_commands",
    "rho_register_compaction_strategies",
    "rho_register_config_sections",
    "rho_register_confinement_backends",
    "rho_register_observers",
    "rho_register_provider_services",
    "rho_register_rpc_methods",
    "rho_register_tools",
    "rho_shutdown",
    "rho_startup",
    "rho_state",
    "rho_system_prompt_fragments",
    "rho_turn_ending",
]
