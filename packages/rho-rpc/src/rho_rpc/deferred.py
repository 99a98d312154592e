"""Methods whose handler and wire models are imported when their first request arrives.

rho-rpc contributes its core methods at startup, through the same hook as any plugin, but a
method's handler module and pydantic models cost more to import than everything else rho-rpc
does before `ready`. A `DeferredMethod` is an `RpcMethod` that knows only what startup needs
(its name, summary and concurrency) and builds the complete method on first use; the server
and the OpenRPC document always work with the complete one (`loaded`).

A plugin may defer its own methods the same way, without depending on rho-rpc: an
`RpcMethod` subclass with a `load()` method answering the complete `RpcMethod` of the same
name is loaded like a `DeferredMethod` (`loaded`); what `load()` gives is checked as any
contributed method is, and a failure is an internal error of that request only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rho_kernel.rpc import INTERNAL_ERROR, RpcError, RpcMethod, RpcResult


class DeferredMethod(RpcMethod):
    """An `RpcMethod` whose `load()` gives the complete method (handler, params and result
    models), made once on first use. Its own `params_model` and `result_model` are None:
    read them from `loaded(method)`."""

    __slots__ = ("_complete", "_load")
    _complete: RpcMethod | None
    _load: Callable[[], RpcMethod]

    def __init__(
        self,
        name: str,
        load: Callable[[], RpcMethod],
        *,
        summary: str,
        concurrent: bool | Callable[[dict[str, Any]], bool],
    ) -> None:
        async def handler(params: Any) -> RpcResult:
            return await self.load().handler(params)

        super().__init__(name, handler, summary=summary, concurrent=concurrent)
        object.__setattr__(self, "_load", load)
        object.__setattr__(self, "_complete", None)

    def load(self) -> RpcMethod:
        """The complete method (its modules are imported on the first call)."""
        complete: RpcMethod | None = self._complete
        if complete is None:
            complete = self._load()
            object.__setattr__(self, "_complete", complete)
        return complete


def loaded(method: RpcMethod) -> RpcMethod:
    """`method` with its handler and models: a deferred method's complete form (a
    plugin's deferred method that cannot be loaded raises `RpcError`, an internal error)."""
    if isinstance(method, DeferredMethod):
        return method.load()
    load = getattr(method, "load", None)
    if not callable(load):
        return method
    return _plugin_loaded(method.name, load)


def _plugin_loaded(name: str, load: Callable[[], Any]) -> RpcMethod:
    """What a plugin's deferred method `name` loads, checked like a contributed method."""
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
    return complete


__all__ = ["DeferredMethod", "loaded"]
