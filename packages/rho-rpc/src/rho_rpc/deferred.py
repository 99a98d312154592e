"""Methods whose handler and wire models are imported when their first request arrives.

rho-rpc contributes its core methods at startup, through the same hook as any plugin, but a
method's handler module and pydantic models cost more to import than everything else rho-rpc
does before `ready`. So rho-rpc's methods, like a
plugin's, are `rho_kernel.DeferredMethod`s: they know only what startup needs (name, summary,
concurrency) and `load()` gives the complete method on first use. The server and the OpenRPC
document always work with the complete one (`loaded`), checked as any contributed method is;
a method that cannot be loaded is an internal error of that request only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from rho_kernel.rpc import INTERNAL_ERROR, DeferredMethod, RpcError, RpcMethod


class CoreDeferredMethod(DeferredMethod):
    """One of rho-rpc's own deferred methods: what it loads is rho-rpc's, so it is not checked
    as a contribution (`rpc.discover` has a name JSON-RPC reserves)."""

    __slots__ = ()


def loaded(method: RpcMethod) -> RpcMethod:
    """`method` with its handler and models: a deferred method's complete form (a plugin's
    that cannot be loaded raises `RpcError`, an internal error)."""
    if isinstance(method, CoreDeferredMethod):
        return method.load()
    load = getattr(method, "load", None)
    if not callable(load):
        return method
    return _plugin_loaded(method.name, load)


def _plugin_loaded(name: str, load: Callable[[], Any]) -> RpcMethod:
    """What the deferred method `name` loads, checked like a contributed method."""
    from rho_rpc.method_registry import method_problem

    try:
        complete = load()
        problem = method_problem(complete)
        if problem is None and (complete.name != name or callable(getattr(complete, "load", 0))):
            problem = f"a method other than a complete '{name}'"
    except Exception as exc:
        problem = f"an error: {' '.join(str(exc).split())[:300]}"
    if problem is not None:
        raise RpcError(INTERNAL_ERROR, f"method '{name}' could not be loaded: it gave {problem}")
    return cast(RpcMethod, complete)


__all__ = ["CoreDeferredMethod", "loaded"]
