"""JsonRpcServer in-process: dispatch lanes, ordering, errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from rho_kernel.rpc import INVALID_PARAMS, RpcError, RpcMethod
from rho_rpc.server import JsonRpcServer
from rho_rpc.transport import Oversize


class NameParams(BaseModel):
    model_config = ConfigDict(strict=True)
    name: str


async def _lines(
    items: list[bytes | Oversize], gate: asyncio.Event | None = None
) -> AsyncIterator[bytes | Oversize]:
    for item in items:
        yield item
        await asyncio.sleep(0)
    if gate is not None:
        await gate.wait()


def _server(methods: list[RpcMethod]) -> tuple[JsonRpcServer, list[Any]]:
    out: list[Any] = []
    server = JsonRpcServer({m.name: m for m in methods}, lambda data: out.append(json.loads(data)))
    return server, out


def _req(method: str, id: Any, params: Any = None) -> bytes:
    message = {"jsonrpc": "2.0", "method": method, "id": id}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


async def test_serial_methods_run_in_arrival_order_and_concurrent_ones_overtake() -> None:
    release = asyncio.Event()
    order: list[str] = []

    async def slow(_: dict[str, Any]) -> dict[str, Any]:
        order.append("slow-start")
        await release.wait()
        order.append("slow-end")
        return {"slow": True}

    async def after(_: dict[str, Any]) -> dict[str, Any]:
        order.append("after")
        return {}

    async def poke(_: dict[str, Any]) -> dict[str, Any]:
        order.append("poke")
        release.set()
        return {}

    server, out = _server(
        [
            RpcMethod("slow", slow),
            RpcMethod("after", after),
            RpcMethod("poke", poke, concurrent=True),
        ]
    )
    await server.serve(_lines([_req("slow", 1), _req("after", 2), _req("poke", 3)]))
    assert order == ["slow-start", "poke", "slow-end", "after"]
    assert [m["id"] for m in out] == [3, 1, 2]


async def test_end_of_input_waits_for_queued_work() -> None:
    async def work(_: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0.05)
        return {"done": True}

    server, out = _server([RpcMethod("work", work)])
    await server.serve(_lines([_req("work", 1), _req("work", 2)]))
    assert out == [
        {"jsonrpc": "2.0", "result": {"done": True}, "id": 1},
        {"jsonrpc": "2.0", "result": {"done": True}, "id": 2},
    ]


async def test_params_model_errors_and_rpc_errors() -> None:
    async def hello(params: NameParams) -> dict[str, Any]:
        if params.name == "nobody":
            raise RpcError(INVALID_PARAMS, "nobody is not a name", {"hint": "try alice"})
        return {"hi": params.name}

    server, out = _server([RpcMethod("hello", hello, NameParams)])
    await server.serve(
        _lines(
            [
                _req("hello", 1, {"name": 3}),
                _req("hello", 2, {"name": "nobody"}),
                _req("hello", 3, {"name": "al"}),
            ]
        )
    )
    by_id = {m["id"]: m for m in out}
    assert by_id[1]["error"]["code"] == -32602
    assert by_id[1]["error"]["data"] == [
        {"param": "name", "problem": "Input should be a valid string"}
    ]
    assert by_id[2]["error"] == {
        "code": -32602,
        "message": "nobody is not a name",
        "data": {"hint": "try alice"},
    }
    assert by_id[3]["result"] == {"hi": "al"}


async def test_an_unexpected_exception_is_an_internal_error_without_traceback(capsys) -> None:  # type: ignore[no-untyped-def]
    async def broken(_: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("boom")

    server, out = _server([RpcMethod("broken", broken)])
    await server.serve(_lines([_req("broken", 9)]))
    assert out[0]["error"]["code"] == -32603 and "boom" in out[0]["error"]["message"]
    err = capsys.readouterr().err
    assert "internal error in broken" in err and "Traceback" not in err


async def test_oversize_and_blank_lines() -> None:
    server, out = _server([])
    await server.serve(_lines([b"   ", Oversize(20_000_000)]))
    assert out == [
        {
            "jsonrpc": "2.0",
            "error": {
                "code": -32600,
                "message": "Invalid Request: message of 20000000 bytes is too large",
            },
            "id": None,
        }
    ]


async def test_batch_answers_concurrent_and_serial_members_together() -> None:
    async def echo(params: dict[str, Any]) -> dict[str, Any]:
        return params

    server, out = _server([RpcMethod("serial", echo), RpcMethod("now", echo, concurrent=True)])
    batch = json.dumps(
        [
            {"jsonrpc": "2.0", "method": "serial", "params": {"a": 1}, "id": "s"},
            {"jsonrpc": "2.0", "method": "now", "params": {"b": 2}, "id": "n"},
            {"jsonrpc": "2.0", "method": "now", "params": {"c": 3}},
        ]
    ).encode()
    await server.serve(_lines([batch]))
    assert out == [
        [
            {"jsonrpc": "2.0", "result": {"a": 1}, "id": "s"},
            {"jsonrpc": "2.0", "result": {"b": 2}, "id": "n"},
        ]
    ]


async def test_concurrency_can_depend_on_params() -> None:
    release = asyncio.Event()

    async def prompt(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("steer"):
            release.set()
            return {"steered": True}
        await release.wait()
        return {"ran": True}

    server, out = _server(
        [RpcMethod("prompt", prompt, concurrent=lambda raw: raw.get("steer") is True)]
    )
    await server.serve(_lines([_req("prompt", 1, {}), _req("prompt", 2, {"steer": True})]))
    assert [m["id"] for m in out] == [2, 1]


async def test_cancel_queued_answers_waiting_requests_with_an_error() -> None:
    release = asyncio.Event()

    async def slow(_: dict[str, Any]) -> dict[str, Any]:
        await release.wait()
        return {"ran": True}

    server, out = _server([RpcMethod("slow", slow)])
    gate = asyncio.Event()
    serving = asyncio.create_task(
        server.serve(_lines([_req("slow", 1), _req("slow", 2), _req("slow", 3)], gate))
    )
    await asyncio.sleep(0.05)  # request 1 is running, 2 and 3 wait in the serial lane
    server.cancel_queued("shutting down")
    release.set()
    gate.set()
    await serving
    by_id = {m["id"]: m for m in out}
    assert by_id[1]["result"] == {"ran": True}
    assert by_id[2]["error"] == {"code": -32603, "message": "shutting down"}
    assert by_id[3]["error"] == {"code": -32603, "message": "shutting down"}
