"""RPC methods whose handlers and wire models are imported on their first request.

A `DeferredMethod` knows what start-up needs (name, summary, concurrency); `load()` gives
the complete `RpcMethod`, made once. rho's RPC server loads such a method (any `RpcMethod`
with a `load()` method) before validating a request's params; a host that does not, still
gets working methods: the handler validates the params with the complete method's model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rho_kernel import RpcMethod


class DeferredMethod(RpcMethod):
    """An `RpcMethod` whose complete form (handler, params and result models) `load()`
    makes on first use."""

    __slots__ = ("_complete", "_load")
    _complete: RpcMethod | None
    _load: Callable[[], RpcMethod]

    def __init__(
        self,
        name: str,
        load: Callable[[], RpcMethod],
        *,
        summary: str,
        concurrent: bool = False,
    ) -> None:
        async def handler(params: Any) -> Any:
            complete = self.load()
            model = complete.params_model
            if model is not None and not isinstance(params, model):
                params = model.model_validate(params if params is not None else {})
            return await complete.handler(params)

        super().__init__(name, handler, summary=summary, concurrent=concurrent)
        object.__setattr__(self, "_load", load)
        object.__setattr__(self, "_complete", None)

    def load(self) -> RpcMethod:
        """The complete method (its module is imported on the first call)."""
        complete: RpcMethod | None = self._complete
        if complete is None:
            complete = self._load()
            object.__setattr__(self, "_complete", complete)
        return complete


__all__ = ["DeferredMethod"]
