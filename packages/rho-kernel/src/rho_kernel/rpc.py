"""What a plugin contributes to the JSON-RPC surface: methods and their errors."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict

# JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# rho's own errors (the range JSON-RPC leaves to the server).
APPROVAL_NOT_PENDING = -32001
"""An `approvalResponse` named an approval that is not waiting for an answer."""
NO_RUNNING_PROMPT = -32002
"""A steering message arrived while no prompt was running."""


class RpcError(Exception):
    """Raised by a method handler to answer with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


RpcResult: TypeAlias = BaseModel | Mapping[str, Any] | None
"""What a handler returns: a pydantic model (sent as its JSON), a JSON object, or None (`{}`)."""

RpcHandler: TypeAlias = Callable[[Any], Awaitable[RpcResult]]
"""`async def handler(params) -> RpcResult`: `params` is an instance of the method's
`params_model`, or the raw params object when it has none."""


@dataclass(frozen=True, slots=True)
class RpcMethod:
    """One JSON-RPC method:
    `RpcMethod(name, handler, *, params_model=None, result_model=None, summary="",
    concurrent=False)`.

    `handler(params)` receives an instance of `params_model` (a pydantic model validated from
    the request's params; -32602 when they do not fit), or the raw params dict when there is
    no model, and returns an instance of `result_model`, a plain dict or None.
    `concurrent=True` methods (or those for whose raw params a `concurrent` callable answers
    True) are handled the moment they are read, even while a prompt runs; the others run one
    at a time in arrival order. `summary` becomes the method's description in the OpenRPC
    document, `result_model` its result schema. Everything after the handler is passed by
    keyword, so fields can be added without breaking callers.
    """

    name: str
    handler: RpcHandler
    _: KW_ONLY
    params_model: type[BaseModel] | None = None
    result_model: type[BaseModel] | None = None
    summary: str = ""
    concurrent: bool | Callable[[dict[str, Any]], bool] = False


class DeferredMethod(RpcMethod):
    """An `RpcMethod` whose handler and models are imported on its first request:
    `DeferredMethod(name, load, *, summary, concurrent=False)`.

    It knows only what start-up needs (name, summary, concurrency); `load()` gives the
    complete `RpcMethod` of the same name (handler, params and result models), made once.
    rho serves and describes a deferred method through what `load()` gives, checked like any
    contributed method: a `load()` that fails, or gives something else, is an internal error
    of that request only. Its own `params_model` and `result_model` are None.
    """

    __slots__ = ("_complete", "_load")
    _complete: RpcMethod | None
    _load: Callable[[], RpcMethod]

    def __init__(
        self,
        name: str,
        load: Callable[[], RpcMethod],
        *,
        summary: str,
        concurrent: bool | Callable[[dict[str, Any]], bool] = False,
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


def deferred_methods(
    declared: Iterable[tuple[str, str, bool]], build: Callable[[], Iterable[RpcMethod]]
) -> list[RpcMethod]:
    """`DeferredMethod`s for `declared` (each `(name, summary, concurrent)`), all completed by
    one call of `build()` — which imports the handlers and models and gives the complete
    method of each name — on the first request of any of them. For a plugin whose methods
    share one module (added in 0.3)."""
    complete: dict[str, RpcMethod] = {}

    def load(name: str) -> RpcMethod:
        if not complete:
            complete.update((method.name, method) for method in build())
        return complete[name]

    return [
        DeferredMethod(name, functools.partial(load, name), summary=summary, concurrent=concurrent)
        for name, summary, concurrent in declared
    ]


class NoParams(BaseModel):
    """The params model of a method that takes none: a param sent to it is refused. Added
    in 0.3."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


def declared_methods(
    declared: Iterable[tuple[str, str, bool]],
    parts: Mapping[str, tuple[RpcHandler, type[BaseModel] | None, type[BaseModel] | None]],
) -> list[RpcMethod]:
    """The `RpcMethod` of each of `declared` (`(name, summary, concurrent)`), made from its
    `(handler, params_model, result_model)` in `parts`: what a `deferred_methods` build
    returns when a plugin declares its methods in a table (added in 0.3)."""
    return [
        RpcMethod(
            name,
            parts[name][0],
            params_model=parts[name][1],
            result_model=parts[name][2],
            summary=summary,
            concurrent=concurrent,
        )
        for name, summary, concurrent in declared
    ]


__all__ = [
    "APPROVAL_NOT_PENDING",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "NO_RUNNING_PROMPT",
    "PARSE_ERROR",
    "DeferredMethod",
    "NoParams",
    "RpcError",
    "RpcHandler",
    "RpcMethod",
    "RpcResult",
    "declared_methods",
    "deferred_methods",
]
