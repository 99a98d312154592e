"""`listHooks`, added through `rho_register_rpc_methods`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rho_hooks.plugin import METHODS
from rho_kernel import RpcMethod, Runtime
from rho_kernel.rpc import NoParams, declared_methods


class _Model(BaseModel):
    """Base of this method's models: their schemas are built on first use."""

    model_config = ConfigDict(defer_build=True)


class HookInfo(_Model):
    """One configured hook."""

    event: str = Field(description="PreToolUse, PostToolUse, UserPromptSubmit, Stop, …")
    matcher: str = Field(description='What it matches ("" or "*": everything).')
    command: str = Field(description="The command line it runs.")
    timeout: float = Field(description="Seconds it may take before it is stopped.")
    onFailure: str = Field(description='"block" (the default) or "allow".')
    source: str = Field(description="The file that configures it.")
    origin: str = Field(
        description="user, project (.rho/config.toml), claude-user, claude-project or "
        "claude-local (Claude Code's settings files)."
    )
    trusted: bool = Field(
        description="Whether it runs: a repository's hooks run only once `rho trust` "
        "vouches for the file that names them."
    )


class ListHooksResult(_Model):
    """Every configured hook, in the order they run."""

    hooks: list[HookInfo]


def _listed(runtime: Runtime) -> list[HookInfo]:
    from rho_hooks.current import state_of
    from rho_hooks.sources import read_hooks

    state = state_of(runtime)
    configured = (
        state.configured
        if state is not None
        else read_hooks(runtime.root.path, runtime.options.home, lambda _: None)
    )
    return [
        HookInfo(
            event=c.event,
            matcher=c.hook.matcher,
            command=c.hook.command,
            timeout=c.hook.timeout,
            onFailure=c.hook.on_failure,
            source=str(c.path),
            origin=c.origin,
            trusted=c.trusted,
        )
        for c in configured
    ]


def hook_methods(runtime: Runtime) -> list[RpcMethod]:
    """The methods, bound to `runtime` (as `rho_hooks.plugin.METHODS` declares them)."""

    async def list_hooks(_: NoParams) -> ListHooksResult:
        return ListHooksResult(hooks=_listed(runtime))

    parts: dict[str, tuple[Any, type[BaseModel], type[BaseModel]]] = {
        "listHooks": (list_hooks, NoParams, ListHooksResult),
    }
    return declared_methods(METHODS, parts)


__all__ = ["hook_methods"]
