"""Methods whose handler and wire models are imported when their first request arrives.

rho-rpc contributes its core methods at startup, through the same hook as any plugin, but a
method's handler module and pydantic models cost more to import than everything else rho-rpc
does before `ready`. A `DeferredMethod` is an `RpcMethod` that knows only what startup needs
(its name, summary and concurrency) and builds the complete method on first use; the server
and the OpenRPC document always work with the complete one (`loaded`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rho_kernel.rpc import RpcMethod, RpcResult


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
    """`method` with its handler and models: a deferred method's complete form."""
    return method.load() if isinstance(method, DeferredMethod) else method


__all__ = ["DeferredMethod", "loaded"]
