"""`deferred_methods`: methods sharing one module, built once on the first request."""

from __future__ import annotations

from typing import Any

from rho_kernel.rpc import DeferredMethod, RpcMethod, deferred_methods


async def test_every_method_is_completed_by_one_build_on_first_use() -> None:
    builds: list[int] = []

    def build() -> list[RpcMethod]:
        builds.append(1)

        async def echo(params: Any) -> Any:
            return {"echo": params}

        async def ping(params: Any) -> Any:
            return "pong"

        return [RpcMethod("acme/echo", echo), RpcMethod("acme/ping", ping)]

    methods = deferred_methods(
        [("acme/echo", "Echo back.", True), ("acme/ping", "Answer pong.", False)], build
    )
    assert builds == []  # nothing imported at start-up
    assert [(m.name, m.summary, m.concurrent) for m in methods] == [
        ("acme/echo", "Echo back.", True),
        ("acme/ping", "Answer pong.", False),
    ]
    assert all(isinstance(m, DeferredMethod) for m in methods)
    assert await methods[1].handler(None) == "pong"
    assert await methods[0].handler({"a": 1}) == {"echo": {"a": 1}}
    assert builds == [1]
