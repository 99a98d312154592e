"""The core JSON-RPC methods as a table, contributed through `rho_register_rpc_methods` like
any plugin's.

Each row names its handler and its wire models by where they live instead of importing them:
a method's modules are imported when its first request arrives (`rho_rpc.deferred`), so that
startup imports none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias

from rho_kernel.rpc import RpcMethod
from rho_rpc.deferred import CoreDeferredMethod

if TYPE_CHECKING:
    from pydantic import BaseModel

    from rho_kernel import Runtime

MethodRow: TypeAlias = tuple[str, str, str, str, str, bool | Callable[[dict[str, Any]], bool]]
"""(name, handler, params model, result model, summary, concurrent) of a method.

The handler is `module.Class.method` under `rho_rpc` (the class is made with the runtime);
a model is `module.Model` under `rho_rpc.protocol`."""


def _answered_at_once(raw: dict[str, object]) -> bool:
    """A steering prompt, or one queued as a follow-up: answered the moment it is read."""
    return raw.get("steer") is True or raw.get("queue") is True


CORE_TABLE: tuple[MethodRow, ...] = (
    ("prompt", "methods.CoreMethods.prompt", "prompt.PromptParams", "prompt.PromptResult",
     "Run a user message through the agent (or steer the running prompt, or queue it to "
     "follow).", _answered_at_once),
    ("abort", "methods.CoreMethods.abort", "prompt.AbortParams", "base.EmptyResult",
     "Cancel the running prompt, including a model request in flight (or a queued one, by "
     "its turnId).", True),
    ("approvalResponse", "methods.CoreMethods.approval_response",
     "prompt.ApprovalResponseParams", "base.EmptyResult",
     "Answer the approval/request named by approvalId.", True),
    ("clear", "methods.CoreMethods.clear", "base.NoParams", "base.EmptyResult",
     "Branch back to the system message; the old branch stays on disk.", False),
    ("newSession", "methods.CoreMethods.new_session", "base.NoParams",
     "sessions.NewSessionResult", "Start a new session.", False),
    ("compact", "methods.CoreMethods.compact", "sessions.CompactParams",
     "sessions.CompactResult",
     "Summarize all but the last turn onto a new branch; the old branch stays.", False),
    ("getState", "methods.CoreMethods.get_state", "base.NoParams", "state.GetStateResult",
     "Model, provider, project root, message count and how commands are confined.", True),
    ("getMessages", "methods.CoreMethods.get_messages", "base.NoParams",
     "messages.GetMessagesResult", "The messages on the current branch.", True),
    ("listTools", "methods.CoreMethods.list_tools", "base.NoParams", "tools.ListToolsResult",
     "The tools the model can call.", True),
    ("listCommands", "command_methods.CommandMethods.list_commands", "base.NoParams",
     "commands.ListCommandsResult",
     "The commands plugins offer (extensions' commands, MCP servers' prompts, …).", True),
    ("executeCommand", "command_methods.CommandMethods.execute_command",
     "commands.ExecuteCommandParams", "commands.ExecuteCommandResult",
     "Run a command listCommands names; it may do what its declared risk allows.", False),
    ("runUserCommand", "user_command_methods.UserCommandMethods.run_user_command",
     "user_command.RunUserCommandParams", "user_command.RunUserCommandResult",
     "Run a shell command of the user's own (no approval: they asked); its redacted output "
     "joins the conversation as their message.", False),
    ("listPlugins", "methods.CoreMethods.list_plugins", "base.NoParams",
     "plugins.ListPluginsResult",
     "Loaded plugins with versions and hooks, and the ones that failed.", True),
    ("listSessions", "methods.CoreMethods.list_sessions", "sessions.ListSessionsParams",
     "sessions.ListSessionsResult",
     "A page of this project's sessions, most recently used first (10 by default).", True),
    ("setApprovalMode", "approval_methods.ApprovalMethods.set_approval_mode",
     "approvals.SetApprovalModeParams", "approvals.SetApprovalModeResult",
     "Set how much runs without asking (also for the running prompt's next calls).", True),
    ("listApprovalRules", "approval_methods.ApprovalMethods.list_rules", "base.NoParams",
     "approvals.ListApprovalRulesResult",
     "The approval rules in force: deny rules, then allow rules, with where each comes from.",
     True),
    ("revokeApprovalRule", "approval_methods.ApprovalMethods.revoke_rule",
     "approvals.RevokeApprovalRuleParams", "base.EmptyResult",
     "Forget a rule remembered from an approval (for the session or the project).", False),
    ("setModel", "methods.CoreMethods.set_model", "models.SetModelParams",
     "models.SetModelResult",
     "Switch model (bare id, found on the provider that lists it, or provider:id).", False),
    ("setReasoningEffort", "methods.CoreMethods.set_reasoning_effort",
     "models.SetReasoningEffortParams", "models.SetReasoningEffortResult",
     "Set the reasoning effort sent from the next model request on (also the running "
     "prompt's): low, medium, high, or null for none.", True),
    ("listModels", "methods.CoreMethods.list_models", "base.NoParams",
     "models.ListModelsResult", "Every model of every configured provider.", True),
    ("listProviders", "methods.CoreMethods.list_providers", "base.NoParams",
     "models.ListProvidersResult", "Configured providers: active, external, reachable.", True),
    ("getSessionStats", "methods.CoreMethods.get_session_stats", "base.NoParams",
     "stats.GetSessionStatsResult",
     "Context usage estimates by role, resolution and phase, API usage and the prompt "
     "cache's hit rate.", True),
    ("resumeSession", "methods.CoreMethods.resume_session", "sessions.ResumeSessionParams",
     "sessions.ResumeSessionResult",
     "Continue a saved session, named by its file (path) or its id (id, or a unique prefix).",
     False),
    ("getTree", "tree_methods.TreeMethods.get_tree", "tree.GetTreeParams", "tree.GetTreeResult",
     "A page of the session tree: every entry with its parent, kind, preview, resolution "
     "and label.", True),
    ("branchTo", "tree_methods.TreeMethods.branch_to", "tree.BranchToParams",
     "tree.BranchToResult",
     "Continue from an earlier entry (recorded as LeafMoved), optionally summarizing the "
     "branch left behind.", False),
    ("forkSession", "tree_methods.TreeMethods.fork_session", "tree.ForkSessionParams",
     "tree.ForkSessionResult",
     "Continue in a new session copied from the path to an entry; its header names this "
     "session as its parent.", False),
    ("setLabel", "tree_methods.TreeMethods.set_label", "tree.SetLabelParams",
     "tree.SetLabelResult", "Label an entry of the tree, or remove its label.", False),
)  # fmt: skip
"""Every core method, in the order rho-rpc contributes them."""


def _model(where: str) -> type[BaseModel]:
    module, name = where.rsplit(".", 1)
    model: type[BaseModel] = getattr(importlib.import_module(f"rho_rpc.protocol.{module}"), name)
    return model


def complete_method(runtime: Runtime, row: MethodRow) -> RpcMethod:
    """The method `row` describes, with its handler bound to `runtime` and its models
    (imports the modules they live in)."""
    name, handler, params, result, summary, concurrent = row
    module, owner, attribute = handler.rsplit(".", 2)
    handlers = getattr(importlib.import_module(f"rho_rpc.{module}"), owner)(runtime)
    return RpcMethod(
        name,
        getattr(handlers, attribute),
        params_model=_model(params),
        result_model=_model(result),
        summary=summary,
        concurrent=concurrent,
    )


def core_methods(runtime: Runtime) -> list[RpcMethod]:
    """The core methods (prompt, approvals, sessions and their tree, state, models, tools,
    commands, plugins), each imported on its first request."""
    return [
        CoreDeferredMethod(
            row[0], partial(complete_method, runtime, row), summary=row[4], concurrent=row[5]
        )
        for row in CORE_TABLE
    ]


__all__ = ["CORE_TABLE", "MethodRow", "complete_method", "core_methods"]
