"""rho's plugin kernel: the hooks, the tool contract, sessions, the agent loop and providers.

A plugin imports everything it uses from here: `from rho_kernel import hookimpl, tool`.
rho's public API is the `__all__` of this module, of `rho_kernel.testing` (the test helpers)
and of eight public submodules, each a contract of its own:

- `rho_kernel.tools`: the tool contract in full (what `rho_kernel` exports for tools, plus
  declared tools, output sinks, continuations and the per-call risk).
- `rho_kernel.rpc`: what a plugin adds to the JSON-RPC surface (methods, their errors and the
  JSON-RPC error codes).
- `rho_kernel.security`: the security primitives several plugins share (the file sandbox, the
  command policy, the trust store, the redactor), kept in the kernel so each is written once.
- `rho_kernel.hookspecs`: every hook a plugin can implement, one documented function each
  (what a host passes to `PluginHost.collect` and friends for typed calls).
- `rho_kernel.process`: the process runner every process a tool starts goes through (confined,
  in its own process group, stopped on timeout or cancellation, output capped and streamed).
- `rho_kernel.diagnostics`: messages for the person running rho, on stderr with rho's prefix
  (`info`, `warn`, `error`).
- `rho_kernel.session`: the session a tool reads (`ToolContext.session`) and a front end
  shows: the tree of entries, their payloads and resolutions, the session files.
- `rho_kernel.frontend`: what a program that runs rho for someone builds on (the runtime and
  its options, the errors that stop a start, what the kernel reports, the project's trust).

Every other module under `rho_kernel`, including the submodules of these, is internal and may
change in any release; tests/rho_kernel/test_import_contract.py holds rho's own packs to this.

Each name is imported from its module on first use (see `rho_kernel.lazy`), so importing
this package costs next to nothing and a process loads only the parts of the kernel it uses.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

# httpx imports its command-line client (`httpx._main`) on import whenever click is installed
# (a dependency of several packs' dependencies), and with it rich and pygments: some 50 ms
# on the first model request, for a client rho never runs. Marked as unavailable, httpx
# falls back to a stub `httpx.main`.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

if TYPE_CHECKING:
    from rho_kernel.encoding import scrub_json, scrub_surrogates
    from rho_kernel.home import state_dir, user_home
    from rho_kernel.stash import Stash, StashKey

    __version__: str
    from rho_kernel.approvals.suggest import SuggestedRule
    from rho_kernel.cancel import Cancelled, CancelToken, run_to_completion
    from rho_kernel.commands import Command
    from rho_kernel.config.loader import load_config
    from rho_kernel.config.markers import (
        Additive,
        NeedsTrust,
        Replaced,
        UserOnly,
        adds_items,
        any_change,
        changes,
        disables,
        enables,
        less_strict,
        turns_off,
        turns_on,
    )
    from rho_kernel.config.model import ApprovalMode, ConfigSectionError, RhoConfig
    from rho_kernel.confinement.backend import ConfinementBackend, ConfinementProblem, Problem
    from rho_kernel.confinement.hints import sandbox_note
    from rho_kernel.confinement.policy import ConfinementPolicy
    from rho_kernel.confinement.state import Confinement, ConfinementRefused
    from rho_kernel.framing import escape_controls, escape_tags, unescape_tags
    from rho_kernel.images import ImageError, image_part
    from rho_kernel.loop.approval import ApprovalDecision, ApprovalGate, ApprovalRequest
    from rho_kernel.loop.compaction import CompactionRequest, CompactionStrategy
    from rho_kernel.loop.observer import Observer
    from rho_kernel.loop.result import (
        AgentResult,
        ContextCompacted,
        ProviderFailure,
        RequestUsage,
        UsageContext,
    )
    from rho_kernel.messages import ChatMessage, ImagePart, ToolCall
    from rho_kernel.plugins import PluginHost, hookimpl
    from rho_kernel.process.errors import ProcessStartError
    from rho_kernel.process.runner import ProcessResult
    from rho_kernel.providers.events import (
        ModelRequest,
        ModelResponse,
        ProviderError,
        ReasoningDelta,
        StreamEvent,
        TextDelta,
    )
    from rho_kernel.providers.service import LlmService, ServiceCreator, ServiceFactory
    from rho_kernel.rpc import DeferredMethod, RpcError, RpcMethod
    from rho_kernel.runtime import Runtime
    from rho_kernel.security.errors import (
        FileTypeError,
        PathNotFoundError,
        ProtectedPathError,
        SandboxError,
    )
    from rho_kernel.security.handles import SandboxDir, WriteTarget
    from rho_kernel.security.key_blocks import KeyBlockLines
    from rho_kernel.security.protected import PROTECTED_NAMES, protected_name
    from rho_kernel.security.regular_file import (
        FileTooLargeError,
        NotRegularFileError,
        check_regular,
        open_regular,
        read_regular_file,
    )
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.session.discovery import SessionNotFound
    from rho_kernel.session.entries import CompactionSummary
    from rho_kernel.tools.base import Phase, Risk, Tool, ToolContext, ToolError, ToolResult
    from rho_kernel.tools.decorator import tool
    from rho_kernel.tools.intercept import Block, Permission, Rewrite, apply_interception
    from rho_kernel.tools.registry import ToolRegistry
    from rho_kernel.turn_hooks import PromptContext

_ORIGIN = exports_of(
    {
        "rho_kernel.stash": ("Stash", "StashKey"),
        "rho_kernel.encoding": ("scrub_json", "scrub_surrogates"),
        "rho_kernel.home": ("state_dir", "user_home"),
        "rho_kernel.cancel": ("CancelToken", "Cancelled", "run_to_completion"),
        "rho_kernel.commands": ("Command",),
        "rho_kernel.config.loader": ("load_config",),
        "rho_kernel.config.markers": (
            "Additive",
            "NeedsTrust",
            "Replaced",
            "UserOnly",
            "adds_items",
            "any_change",
            "changes",
            "disables",
            "turns_off",
            "turns_on",
            "enables",
            "less_strict",
        ),
        "rho_kernel.config.model": ("ApprovalMode", "ConfigSectionError", "RhoConfig"),
        "rho_kernel.confinement.backend": ("ConfinementBackend", "ConfinementProblem", "Problem"),
        "rho_kernel.confinement.hints": ("sandbox_note",),
        "rho_kernel.confinement.policy": ("ConfinementPolicy",),
        "rho_kernel.confinement.state": ("Confinement", "ConfinementRefused"),
        "rho_kernel.framing": ("escape_controls", "escape_tags", "unescape_tags"),
        "rho_kernel.loop.approval": ("ApprovalDecision", "ApprovalGate", "ApprovalRequest"),
        "rho_kernel.approvals.suggest": ("SuggestedRule",),
        "rho_kernel.loop.compaction": ("CompactionRequest", "CompactionStrategy"),
        "rho_kernel.loop.observer": ("Observer",),
        "rho_kernel.loop.result": (
            "AgentResult",
            "ContextCompacted",
            "ProviderFailure",
            "RequestUsage",
            "UsageContext",
        ),
        "rho_kernel.images": ("ImageError", "image_part"),
        "rho_kernel.messages": ("ChatMessage", "ImagePart", "ToolCall"),
        "rho_kernel.plugins": ("PluginHost", "hookimpl"),
        "rho_kernel.process.errors": ("ProcessStartError",),
        "rho_kernel.process.runner": ("ProcessResult",),
        "rho_kernel.providers.events": (
            "ModelRequest",
            "ModelResponse",
            "ProviderError",
            "ReasoningDelta",
            "StreamEvent",
            "TextDelta",
        ),
        "rho_kernel.providers.service": ("LlmService", "ServiceCreator", "ServiceFactory"),
        "rho_kernel.rpc": ("DeferredMethod", "RpcError", "RpcMethod"),
        "rho_kernel.runtime": ("Runtime",),
        "rho_kernel.security.errors": (
            "FileTypeError",
            "PathNotFoundError",
            "ProtectedPathError",
            "SandboxError",
        ),
        "rho_kernel.security.handles": ("SandboxDir", "WriteTarget"),
        "rho_kernel.security.key_blocks": ("KeyBlockLines",),
        "rho_kernel.security.protected": ("PROTECTED_NAMES", "protected_name"),
        "rho_kernel.security.regular_file": (
            "FileTooLargeError",
            "NotRegularFileError",
            "check_regular",
            "open_regular",
            "read_regular_file",
        ),
        "rho_kernel.security.sandbox": ("SandboxRoot",),
        "rho_kernel.session.discovery": ("SessionNotFound",),
        "rho_kernel.session.entries": ("CompactionSummary",),
        "rho_kernel.tools.base": (
            "Phase",
            "Risk",
            "Tool",
            "ToolContext",
            "ToolError",
            "ToolResult",
        ),
        "rho_kernel.tools.decorator": ("tool",),
        "rho_kernel.tools.intercept": ("Block", "Permission", "Rewrite", "apply_interception"),
        "rho_kernel.tools.registry": ("ToolRegistry",),
        "rho_kernel.turn_hooks": ("PromptContext",),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN, distribution="rho-kernel")


__all__ = [
    "PROTECTED_NAMES",
    "Additive",
    "AgentResult",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalMode",
    "ApprovalRequest",
    "Block",
    "CancelToken",
    "Cancelled",
    "ChatMessage",
    "Command",
    "CompactionRequest",
    "CompactionStrategy",
    "CompactionSummary",
    "ConfigSectionError",
    "Confinement",
    "ConfinementBackend",
    "ConfinementPolicy",
    "ConfinementProblem",
    "ConfinementRefused",
    "ContextCompacted",
    "DeferredMethod",
    "FileTooLargeError",
    "FileTypeError",
    "ImageError",
    "ImagePart",
    "KeyBlockLines",
    "LlmService",
    "ModelRequest",
    "ModelResponse",
    "NeedsTrust",
    "NotRegularFileError",
    "Observer",
    "PathNotFoundError",
    "Permission",
    "Phase",
    "PluginHost",
    "Problem",
    "ProcessResult",
    "ProcessStartError",
    "PromptContext",
    "ProtectedPathError",
    "ProviderError",
    "ProviderFailure",
    "ReasoningDelta",
    "Replaced",
    "RequestUsage",
    "Rewrite",
    "RhoConfig",
    "Risk",
    "RpcError",
    "RpcMethod",
    "Runtime",
    "SandboxDir",
    "SandboxError",
    "SandboxRoot",
    "ServiceCreator",
    "ServiceFactory",
    "SessionNotFound",
    "Stash",
    "StashKey",
    "StreamEvent",
    "SuggestedRule",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "UsageContext",
    "UserOnly",
    "WriteTarget",
    "__version__",
    "adds_items",
    "any_change",
    "apply_interception",
    "changes",
    "check_regular",
    "disables",
    "enables",
    "escape_controls",
    "escape_tags",
    "hookimpl",
    "image_part",
    "lazy_exports",
    "less_strict",
    "load_config",
    "open_regular",
    "protected_name",
    "read_regular_file",
    "run_to_completion",
    "sandbox_note",
    "scrub_json",
    "scrub_surrogates",
    "state_dir",
    "tool",
    "turns_off",
    "turns_on",
    "unescape_tags",
    "user_home",
]
