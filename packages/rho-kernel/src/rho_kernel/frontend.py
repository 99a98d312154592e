"""What a front end builds on: a program that runs rho for someone (rho's JSON-RPC server, an
editor's agent, a one-shot run) and shows them what it does.

A front end builds a `Runtime` from `RuntimeOptions` (the errors that stop a start are
`StartupError`, `ConfigError` and `ConsentRequired`), drives its prompts, and renders what the
kernel reports: the loop's results (`AgentResult` and the types `rho_kernel` exports, plus
`AgentError`, `ToolCallRecord`, `RunUsage`), the context (`FitResult`, `ToolShare`), the
sandbox (`SandboxStatus`), the API use (`ApiUsage`, and the prompt cache's hits: `CacheHits`,
`SessionCacheHits`) and the session (`rho_kernel.session`).
It also finds the project (`find_project_root`), reviews what trusting a project's files
turns on (`read_config`, `loosening_settings`, `plugin_sections`, `scan_context_files`), shows
endpoints without their secrets (`mask_url`, `endpoint_problem`), reads JSON whose objects
must not repeat a key (`unique_keys`, `RepeatedKeyError`, `quoted_key`), makes plainly
valid request params into their model without building a validator (`constructed`), says
the version rho reports of itself (`rho_version`), what a shell command the user runs
into the conversation gives (`Runtime.run_user_command`: `UserCommandResult`,
`UserCommandError`), and what a start can announce before its runtime loads (`early_start`,
`EarlyStart`; its new session then goes to `RuntimeOptions.new_session`).

Each name is imported from its module on first use. Public since rho-kernel 0.3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.cache_hits import CacheHits, SessionCacheHits
    from rho_kernel.compaction.compactor import UnknownStrategy
    from rho_kernel.config.errors import ConfigError
    from rho_kernel.config.fast_path import constructed
    from rho_kernel.config.loader import (
        MAX_CONFIG_BYTES,
        PROJECT_CONFIG,
        loosening_settings,
        project_config_path,
        read_config,
    )
    from rho_kernel.config.model import AgentConfig
    from rho_kernel.config.sections import plugin_sections
    from rho_kernel.confinement.state import Confinement, SandboxStatus, sandbox_summary
    from rho_kernel.context.fitting import FitResult
    from rho_kernel.context.tool_share import ToolShare
    from rho_kernel.context_files import ContextFile, scan_context_files
    from rho_kernel.early_start import EarlyStart, early_start
    from rho_kernel.encoding import RepeatedKeyError, quoted_key, unique_keys
    from rho_kernel.loop.result import AgentError, RunUsage, ToolCallRecord
    from rho_kernel.project import ProjectRootError, find_project_root
    from rho_kernel.providers.consent import ConsentRequired
    from rho_kernel.providers.urls import endpoint_problem, mask_url
    from rho_kernel.runtime import ApiUsage, Runtime, RuntimeOptions, StartupError
    from rho_kernel.shutdown import (
        INTERRUPTED,
        SHUTDOWN_GRACE,
        Winding,
        leave_now,
        run_to_end,
        stop_children,
    )
    from rho_kernel.user_command import UserCommandError, UserCommandResult
    from rho_kernel.version import rho_version

_ORIGIN = exports_of(
    {
        "rho_kernel.cache_hits": ("CacheHits", "SessionCacheHits"),
        "rho_kernel.compaction.compactor": ("UnknownStrategy",),
        "rho_kernel.config.errors": ("ConfigError",),
        "rho_kernel.config.fast_path": ("constructed",),
        "rho_kernel.config.loader": (
            "MAX_CONFIG_BYTES",
            "PROJECT_CONFIG",
            "loosening_settings",
            "project_config_path",
            "read_config",
        ),
        "rho_kernel.config.model": ("AgentConfig",),
        "rho_kernel.config.sections": ("plugin_sections",),
        "rho_kernel.confinement.state": ("Confinement", "SandboxStatus", "sandbox_summary"),
        "rho_kernel.context.fitting": ("FitResult",),
        "rho_kernel.context.tool_share": ("ToolShare",),
        "rho_kernel.context_files": ("ContextFile", "scan_context_files"),
        "rho_kernel.early_start": ("EarlyStart", "early_start"),
        "rho_kernel.encoding": ("RepeatedKeyError", "quoted_key", "unique_keys"),
        "rho_kernel.loop.result": ("AgentError", "RunUsage", "ToolCallRecord"),
        "rho_kernel.project": ("ProjectRootError", "find_project_root"),
        "rho_kernel.providers.consent": ("ConsentRequired",),
        "rho_kernel.providers.urls": ("endpoint_problem", "mask_url"),
        "rho_kernel.runtime": ("ApiUsage", "Runtime", "RuntimeOptions", "StartupError"),
        "rho_kernel.shutdown": (
            "INTERRUPTED",
            "SHUTDOWN_GRACE",
            "Winding",
            "leave_now",
            "run_to_end",
            "stop_children",
        ),
        "rho_kernel.user_command": ("UserCommandError", "UserCommandResult"),
        "rho_kernel.version": ("rho_version",),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "INTERRUPTED",
    "MAX_CONFIG_BYTES",
    "PROJECT_CONFIG",
    "SHUTDOWN_GRACE",
    "AgentConfig",
    "AgentError",
    "ApiUsage",
    "CacheHits",
    "ConfigError",
    "Confinement",
    "ConsentRequired",
    "ContextFile",
    "EarlyStart",
    "FitResult",
    "ProjectRootError",
    "RepeatedKeyError",
    "RunUsage",
    "Runtime",
    "RuntimeOptions",
    "SandboxStatus",
    "SessionCacheHits",
    "StartupError",
    "ToolCallRecord",
    "ToolShare",
    "UnknownStrategy",
    "UserCommandError",
    "UserCommandResult",
    "Winding",
    "constructed",
    "early_start",
    "endpoint_problem",
    "find_project_root",
    "leave_now",
    "loosening_settings",
    "mask_url",
    "plugin_sections",
    "project_config_path",
    "quoted_key",
    "read_config",
    "rho_version",
    "run_to_end",
    "sandbox_summary",
    "scan_context_files",
    "stop_children",
    "unique_keys",
]
