"""rho's plugin kernel: the hooks, the tool contract, sessions, the agent loop and providers.

A plugin imports everything it uses from here: `from rho_kernel import hookimpl, tool`.
The names exported by this module (and the test helpers of `rho_kernel.testing`) are rho's
public API; every other module under `rho_kernel` is internal and may change in any release.
"""

from importlib import metadata as _metadata

# Defined before the imports below: kernel modules read it while this package initialises.
try:  # one version per package: its pyproject's, as installed
    __version__: str = _metadata.version("rho-kernel")
except _metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

from rho_kernel.cancel import Cancelled, CancelToken, run_to_completion
from rho_kernel.compaction import CompactionRequest, CompactionStrategy
from rho_kernel.config import (
    Additive,
    ApprovalMode,
    ConfigSectionError,
    NeedsTrust,
    Replaced,
    RhoConfig,
    UserOnly,
    adds_items,
    changes,
    disables,
    enables,
    less_strict,
    load_config,
)
from rho_kernel.confinement import (
    ConfinementBackend,
    ConfinementPolicy,
    ConfinementRefused,
    Problem,
    sandbox_note,
)
from rho_kernel.framing import escape_controls, escape_tags, unescape_tags
from rho_kernel.loop import ApprovalDecision, ApprovalGate, ApprovalRequest, Observer
from rho_kernel.loop.result import (
    AgentResult,
    ContextCompacted,
    ProviderFailure,
    RequestUsage,
    UsageContext,
)
from rho_kernel.messages import ChatMessage, ToolCall
from rho_kernel.plugins import PluginHost, hookimpl
from rho_kernel.process import ProcessResult, ProcessStartError
from rho_kernel.providers import (
    LlmService,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ReasoningDelta,
    ServiceFactory,
    StreamEvent,
    TextDelta,
)
from rho_kernel.providers.service import ServiceCreator
from rho_kernel.rpc import RpcError, RpcMethod
from rho_kernel.runtime import Runtime
from rho_kernel.security import (
    PROTECTED_NAMES,
    FileTooLargeError,
    FileTypeError,
    KeyBlockLines,
    NotRegularFileError,
    PathNotFoundError,
    ProtectedPathError,
    SandboxDir,
    SandboxError,
    SandboxRoot,
    WriteTarget,
    check_regular,
    open_regular,
    protected_name,
    read_regular_file,
)
from rho_kernel.session import CompactionSummary, SessionNotFound
from rho_kernel.tools import (
    Block,
    Phase,
    Rewrite,
    Risk,
    Tool,
    ToolContext,
    ToolError,
    ToolRegistry,
    ToolResult,
    tool,
)

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
    "CompactionRequest",
    "CompactionStrategy",
    "CompactionSummary",
    "ConfigSectionError",
    "ConfinementBackend",
    "ConfinementPolicy",
    "ConfinementRefused",
    "ContextCompacted",
    "FileTooLargeError",
    "FileTypeError",
    "KeyBlockLines",
    "LlmService",
    "ModelRequest",
    "ModelResponse",
    "NeedsTrust",
    "NotRegularFileError",
    "Observer",
    "PathNotFoundError",
    "Phase",
    "PluginHost",
    "Problem",
    "ProcessResult",
    "ProcessStartError",
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
    "StreamEvent",
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
    "changes",
    "check_regular",
    "disables",
    "enables",
    "escape_controls",
    "escape_tags",
    "hookimpl",
    "less_strict",
    "load_config",
    "open_regular",
    "protected_name",
    "read_regular_file",
    "run_to_completion",
    "sandbox_note",
    "tool",
    "unescape_tags",
]
