"""JsonRpcServer in-process: dispatch lanes, ordering, errors, output that is always JSON."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from rho_kernel.frontend import Winding
from rho_kernel.rpc import INVALID_PARAMS, RpcError, RpcMethod
from rho_rpc.decode import MAX_BATCH
from rho_rpc.server import SHUTTING_DOWN, JsonRpcServer
from rho_rpc.transport import Oversize


class NameParams(BaseModel):
    model_config = ConfigDict(strict=True)
    name: str


async def _lines(
    items: list[bytes | Oversize],
    gate: asyncio.Event | None = None,
    drained: asyncio.Event | None = None,
) -> AsyncIterator[bytes | Oversize]:
    """Yield `items`; then set `drained` (the server has handled them all) and, before the
    end of input, wait for `gate`."""
    for item in items:
        yield item
        await asyncio.sleep(0)
    if drained is not None:
        drained.set()
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
    drained = asyncio.Event()

    async def work(_: dict[str, Any]) -> dict[str, Any]:
        await drained.wait()  # still working when the input ends
        return {"done": True}

    server, out = _server([RpcMethod("work", work)])
    await server.serve(_lines([_req("work", 1), _req("work", 2)], drained=drained))
    assert out == [
        {"jsonrpc": "2.0", "result": {"done": True}, "id": 1},
        {"jsonrpc": "2.0", "result": {"done": True}, "id": 2},
    ]


async def test_params_model_errors_and_rpc_errors() -> None:
    async def hello(params: NameParams) -> dict[str, Any]:
        if params.name == "nobody":
            raise RpcError(INVALID_PARAMS, "nobody is not a name", {"hint": "try alice"})
        return {"hi": params.name}

    server, out = _server([RpcMethod("hello", hello, params_model=NameParams)])
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
    release, started, drained = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def slow(_: dict[str, Any]) -> dict[str, Any]:
        started.set()
        await release.wait()
        return {"ran": True}

    server, out = _server([RpcMethod("slow", slow)])
    gate = asyncio.Event()
    lines = _lines([_req("slow", 1), _req("slow", 2), _req("slow", 3)], gate, drained)
    serving = asyncio.create_task(server.serve(lines))
    # Request 1 is running; 2 and 3 were read, so they wait in the serial lane.
    await asyncio.wait_for(asyncio.gather(started.wait(), drained.wait()), 60)
    server.cancel_queued("shutting down")
    release.set()
    gate.set()
    await serving
    by_id = {m["id"]: m for m in out}
    assert by_id[1]["result"] == {"ran": True}
    assert by_id[2]["error"] == {"code": -32603, "message": "shutting down"}
    assert by_id[3]["error"] == {"code": -32603, "message": "shutting down"}


async def test_work_still_running_after_the_grace_is_answered_with_an_error() -> None:
    """A serial request that ignores cancellation, one queued behind it and a concurrent
    one stuck: once the grace is over, every one is answered and `serve` returns."""
    started = asyncio.Event()
    never = asyncio.Event()

    async def stubborn(_: dict[str, Any]) -> dict[str, Any]:
        started.set()
        while not never.is_set():  # (set at the end of the test, to let its loop close)
            try:
                await never.wait()
            except asyncio.CancelledError:
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
        return {}

    async def stuck(_: dict[str, Any]) -> dict[str, Any]:
        await never.wait()
        return {}

    methods = [RpcMethod("stubborn", stubborn), RpcMethod("stuck", stuck, concurrent=True)]
    server, out = _server(methods)
    lines = [_req("stubborn", 1), _req("stubborn", 2), _req("stuck", 3)]
    await asyncio.wait_for(server.serve(_lines(lines), Winding(0.2)), 60)
    assert started.is_set()
    assert sorted(m["id"] for m in out) == [1, 2, 3]
    assert all(m["error"] == {"code": -32603, "message": SHUTTING_DOWN} for m in out)
    never.set()


async def test_work_that_ends_within_the_grace_is_answered_as_usual() -> None:
    drained = asyncio.Event()

    async def work(_: dict[str, Any]) -> dict[str, Any]:
        await drained.wait()
        return {"done": True}

    server, out = _server([RpcMethod("work", work)])
    lines = _lines([_req("work", 1), _req("work", 2)], drained=drained)
    await server.serve(lines, Winding(60.0))
    assert [m["result"] for m in out] == [{"done": True}, {"done": True}]


async def test_a_handler_that_raises_cancelled_error_does_not_stop_the_serial_lane() -> None:
    async def cancelled(_: dict[str, Any]) -> dict[str, Any]:
        raise asyncio.CancelledError()

    async def fine(_: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True}

    server, out = _server([RpcMethod("cancelled", cancelled), RpcMethod("fine", fine)])
    await asyncio.wait_for(server.serve(_lines([_req("cancelled", 1), _req("fine", 2)])), 60)
    assert out == [
        {
            "jsonrpc": "2.0",
            "error": {"code": -32603, "message": "Internal error: cancelled"},
            "id": 1,
        },
        {"jsonrpc": "2.0", "result": {"ok": True}, "id": 2},
    ]


# ── hostile input and values that are not JSON ─────────────────────────────


def _strict(data: bytes) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} written")

    return json.loads(data.decode("utf-8", "strict"), parse_constant=refuse)


def _raw_server(methods: list[RpcMethod]) -> tuple[JsonRpcServer, list[bytes]]:
    raw: list[bytes] = []
    return JsonRpcServer({m.name: m for m in methods}, raw.append), raw


async def test_results_that_are_not_json_become_internal_errors(capsys) -> None:  # type: ignore[no-untyped-def]
    results: dict[str, Any] = {"nan": {"x": math.nan}, "inf": [math.inf], "set": {"s": {1}}}

    async def give(params: dict[str, Any]) -> Any:
        return results[params["kind"]]

    server, raw = _raw_server([RpcMethod("give", give)])
    await server.serve(_lines([_req("give", kind, {"kind": kind}) for kind in results]))
    responses = {m["id"]: m for m in map(_strict, raw)}
    assert set(responses) == set(results)
    for response in responses.values():
        assert response["error"]["code"] == -32603
        assert "could not be encoded as JSON" in response["error"]["message"]
    err = capsys.readouterr().err
    assert "rho: error: a response could not be encoded as JSON" in err
    assert "Traceback" not in err


async def test_one_unencodable_member_of_a_batch_leaves_the_others_intact() -> None:
    async def give(params: dict[str, Any]) -> Any:
        return {"v": params["v"] if params["v"] != "nan" else math.nan}

    server, raw = _raw_server([RpcMethod("give", give)])
    batch = json.dumps([json.loads(_req("give", i, {"v": v})) for i, v in enumerate(["a", "nan"])])
    await server.serve(_lines([batch.encode()]))
    [answer] = map(_strict, raw)
    assert answer[0] == {"jsonrpc": "2.0", "result": {"v": "a"}, "id": 0}
    assert answer[1]["id"] == 1 and answer[1]["error"]["code"] == -32603


async def test_surrogates_in_results_and_notifications_are_replaced_not_dropped() -> None:
    async def give(_: dict[str, Any]) -> Any:
        return {"text\udc00": "a\ud800b"}

    server, raw = _raw_server([RpcMethod("give", give)])
    server.notify("note", {"delta": "\udfff"})
    await server.serve(_lines([_req("give", 1)]))
    assert [_strict(line) for line in raw] == [
        {"jsonrpc": "2.0", "method": "note", "params": {"delta": "\ufffd"}},
        {"jsonrpc": "2.0", "result": {"text\ufffd": "a\ufffdb"}, "id": 1},
    ]


async def test_a_notification_with_non_json_values_is_sent_with_them_replaced(capsys) -> None:  # type: ignore[no-untyped-def]
    server, raw = _raw_server([])
    server.notify("usage", {"percent": math.nan, "tags": {"x"}})
    loop: list[Any] = []
    loop.append(loop)
    server.notify("cyclic", {"loop": loop})
    assert [_strict(line) for line in raw] == [
        {"jsonrpc": "2.0", "method": "usage", "params": {"percent": None, "tags": "{'x'}"}}
    ]
    err = capsys.readouterr().err
    assert "notification 'usage' is not valid JSON" in err and "replaced" in err
    assert "notification 'cyclic' is not valid JSON" in err and "not sent" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("prefix", "expected_id"),
    [
        (b'{"jsonrpc":"2.0","id":"p-1","method":"prompt","params":{"message":"xx', "p-1"),
        (b'{"jsonrpc":"2.0","method":"prompt","params":{"id":2,"message":"xx', None),
        (b'{"jsonrpc":"2.0","id":true,"method":"prompt","params":{"message":"xx', None),
        (b'{"jsonrpc":"2.0","id":[1],"method":"prompt","params":{"message":"xx', None),
        # Ids that could not be echoed as written, or that are ambiguous, are not echoed.
        (b'{"jsonrpc":"2.0","id":1.5,"method":"prompt","params":{"message":"xx', None),
        (b'{"jsonrpc":"2.0","id":1e-400,"method":"prompt","params":{"message":"xx', None),
        (b'{"jsonrpc":"2.0","id":-0,"method":"prompt","params":{"message":"xx', None),
        (b'{"jsonrpc":"2.0","id":1,"id":2,"method":"prompt","params":{"message":"xx', None),
        (
            b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"params":{"message":"x',
            123456789012345678901234567890,
        ),
    ],
)
async def test_an_oversize_line_is_answered_with_its_leading_id(
    prefix: bytes, expected_id: object
) -> None:
    server, out = _server([])
    await server.serve(_lines([Oversize(20_000_000, prefix)]))
    assert out == [
        {
            "jsonrpc": "2.0",
            "error": {
                "code": -32600,
                "message": "Invalid Request: message of 20000000 bytes is too large",
            },
            "id": expected_id,
        }
    ]


async def test_a_batch_over_the_limit_is_refused_before_anything_runs() -> None:
    calls: list[int] = []

    async def count(_: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        return {}

    server, out = _server([RpcMethod("count", count, concurrent=True)])
    member = json.loads(_req("count", 1))
    await server.serve(_lines([json.dumps([member] * (MAX_BATCH + 1)).encode()]))
    assert out == [
        {
            "jsonrpc": "2.0",
            "error": {
                "code": -32600,
                "message": f"Invalid Request: a batch holds at most {MAX_BATCH} requests",
            },
            "id": None,
        }
    ]
    assert calls == []


async def test_a_plugin_hook_raising_during_dispatch_is_an_internal_error(capsys) -> None:  # type: ignore[no-untyped-def]
    async def echo(params: dict[str, Any]) -> dict[str, Any]:
        return params

    def broken_concurrent(_: dict[str, Any]) -> bool:
        raise RuntimeError("cannot decide")

    server, out = _server(
        [RpcMethod("odd", echo, concurrent=broken_concurrent), RpcMethod("echo", echo)]
    )
    odd_notification = json.dumps({"jsonrpc": "2.0", "method": "odd"}).encode()
    await server.serve(_lines([_req("odd", 1), odd_notification, _req("echo", 2, {"a": 1})]))
    assert out == [
        {
            "jsonrpc": "2.0",
            "error": {"code": -32603, "message": "Internal error: cannot decide"},
            "id": 1,
        },
        {"jsonrpc": "2.0", "result": {"a": 1}, "id": 2},
    ]
    err = capsys.readouterr().err
    assert "rho: error: internal error in odd: RuntimeError: cannot decide" in err
    assert "Traceback" not in err


class Inner(BaseModel):
    depth: int = 0


class PluginParams(BaseModel):
    """A plugin's model: pydantic defaults (lax types, unknown members ignored)."""

    count: int = 1
    flag: bool = False
    where: Path = Path(".")
    inner: Inner | None = None
    items: list[Inner] = []
    by_key: dict[str, Inner] = {}
    camel_name: str = Field("", alias="camelName")


class OpenParams(BaseModel):
    model_config = ConfigDict(extra="allow")
    known: int = 0


async def _answers(methods: list[RpcMethod], *calls: tuple[str, Any]) -> dict[int, Any]:
    server, out = _server(methods)
    await server.serve(_lines([_req(name, i, params) for i, (name, params) in enumerate(calls)]))
    return {m["id"]: m for m in out}


async def test_an_unknown_param_is_refused_naming_it_with_a_close_match() -> None:
    seen: list[Any] = []

    async def handle(params: Any) -> dict[str, Any]:
        seen.append(params)
        return {}

    by_id = await _answers(
        [RpcMethod("plugin/do", handle, params_model=PluginParams)],
        ("plugin/do", {"count": 2, "cuont": 3}),
        ("plugin/do", {"zzz": 1}),
        ("plugin/do", {"inner": {"depht": 2}}),
        ("plugin/do", {"items": [{"depth": 1}, {"detph": 2}]}),
        ("plugin/do", {"by_key": {"a": {"dept": 1}}}),
        ("plugin/do", {"camel_name": "x"}),
        ("plugin/do", {"camelName": "x", "inner": {"depth": 3}, "items": [{}]}),
    )
    error = by_id[0]["error"]
    assert error["code"] == -32602
    assert error["message"] == "Invalid params: cuont: unknown param (did you mean 'count'?)"
    assert error["data"] == [{"param": "cuont", "problem": "unknown param (did you mean 'count'?)"}]
    assert "'zzz'" not in by_id[1]["error"]["message"]
    assert "zzz: unknown param (known: 'count', 'flag'" in by_id[1]["error"]["message"]
    assert by_id[2]["error"]["data"][0]["param"] == "inner.depht"
    assert "did you mean 'depth'" in by_id[2]["error"]["message"]
    assert by_id[3]["error"]["data"][0]["param"] == "items.1.detph"
    assert by_id[4]["error"]["data"][0]["param"] == "by_key.a.dept"
    assert "did you mean 'camelName'" in by_id[5]["error"]["message"]
    assert by_id[6]["result"] == {}
    assert len(seen) == 1  # only the last request reached the handler


async def test_thousands_of_unknown_params_name_the_first_few_and_count_the_rest() -> None:
    async def handle(params: Any) -> dict[str, Any]:
        return {}

    hostile = {f"p{i}": i for i in range(5000)}
    by_id = await _answers(
        [RpcMethod("plugin/do", handle, params_model=PluginParams)], ("plugin/do", hostile)
    )
    error = by_id[0]["error"]
    assert error["code"] == -32602
    assert [d["param"] for d in error["data"]] == [f"p{i}" for i in range(10)]
    assert error["message"].endswith("; and 4990 more unknown params")


async def test_a_method_without_params_refuses_any_and_open_models_accept_any() -> None:
    async def handle(params: Any) -> dict[str, Any]:
        return {"got": params if isinstance(params, dict) else params.model_dump()}

    class NoParams(BaseModel):
        pass

    by_id = await _answers(
        [
            RpcMethod("none", handle, params_model=NoParams),
            RpcMethod("open", handle, params_model=OpenParams),
            RpcMethod("raw", handle),
        ],
        ("none", {"limit": 5}),
        ("open", {"known": 1, "other": 2}),
        ("raw", {"anything": True}),
    )
    assert by_id[0]["error"]["message"] == (
        "Invalid params: limit: unknown param: the method takes no params"
    )
    assert by_id[1]["result"] == {"got": {"known": 1, "other": 2}}
    assert by_id[2]["result"] == {"got": {"anything": True}}


@pytest.mark.parametrize(
    ("params", "param"),
    [({"count": "5"}, "count"), ({"flag": "true"}, "flag"), ({"flag": 1}, "flag"),
     ({"count": 5.0}, "count"), ({"inner": {"depth": "2"}}, "inner.depth")],
)  # fmt: skip
async def test_a_plugin_model_gets_json_types_strictly(params: dict[str, Any], param: str) -> None:
    async def handle(params: PluginParams) -> dict[str, Any]:
        return {"where": str(params.where)}

    method = RpcMethod("plugin/do", handle, params_model=PluginParams)
    by_id = await _answers([method], ("plugin/do", params), ("plugin/do", {"where": "src"}))
    assert by_id[0]["error"]["code"] == -32602
    assert by_id[0]["error"]["data"][0]["param"] == param
    assert by_id[1]["result"] == {"where": "src"}  # a string still makes a Path


class PluginDeferred(RpcMethod):
    """A plugin's own deferred method: an `RpcMethod` with `load()` (no rho-rpc import)."""

    __slots__ = ("_load",)

    def __init__(self, name: str, load: Any) -> None:
        async def unused(params: Any) -> None:
            raise AssertionError("the server calls the loaded method's handler")

        super().__init__(name, unused, concurrent=True)
        object.__setattr__(self, "_load", load)

    def load(self) -> RpcMethod:
        return self._load()  # type: ignore[no-any-return]


async def test_a_plugins_deferred_method_is_loaded_on_its_first_request(capsys) -> None:  # type: ignore[no-untyped-def]
    loads: list[str] = []

    async def hello(params: NameParams) -> dict[str, Any]:
        return {"hi": params.name}

    def load_hello() -> RpcMethod:
        loads.append("hello")
        return RpcMethod("hello", hello, params_model=NameParams)

    def load_other() -> RpcMethod:
        return RpcMethod("other", hello, params_model=NameParams)

    def load_broken() -> RpcMethod:
        raise ImportError("no module named 'gone'")

    def load_garbage() -> Any:
        return "not a method"

    server, out = _server(
        [
            PluginDeferred("hello", load_hello),
            PluginDeferred("wrong", load_other),
            PluginDeferred("broken", load_broken),
            PluginDeferred("garbage", load_garbage),
        ]
    )
    assert loads == []
    await server.serve(
        _lines(
            [
                _req("hello", 1, {"name": 3}),
                _req("hello", 2, {"name": "al"}),
                _req("wrong", 3, {"name": "al"}),
                _req("broken", 4, {}),
                _req("garbage", 5, {}),
            ]
        )
    )
    by_id = {m["id"]: m for m in out}
    assert by_id[1]["error"]["code"] == -32602  # validated strictly, with the loaded model
    assert by_id[2]["result"] == {"hi": "al"}
    for id_, said in ((3, "a method other than"), (4, "no module named"), (5, "not an RpcMethod")):
        error = by_id[id_]["error"]
        assert error["code"] == -32603 and said in error["message"], error
    assert "Traceback" not in capsys.readouterr().err


class LazyParams(BaseModel):
    model_config = ConfigDict(strict=True, defer_build=True)
    name: str = Field(min_length=1)
    loud: bool = False


async def test_plainly_valid_params_are_made_without_building_a_validator() -> None:
    seen: list[LazyParams] = []

    async def hello(params: LazyParams) -> dict[str, Any]:
        seen.append(params)
        return {"hi": params.name}

    server, out = _server([RpcMethod("hello", hello, params_model=LazyParams)])
    await server.serve(_lines([_req("hello", 1, {"name": "al", "loud": True})]))
    assert out == [{"jsonrpc": "2.0", "id": 1, "result": {"hi": "al"}}]
    assert (seen[0].name, seen[0].loud, seen[0].model_fields_set) == ("al", True, {"name", "loud"})
    assert not LazyParams.__pydantic_complete__  # no validator was built for them
    await server.serve(_lines([_req("hello", 2, {"name": ""})]))  # refused: pydantic decides
    assert out[-1]["error"]["data"] == [
        {"param": "name", "problem": "String should have at least 1 character"}
    ]
    assert LazyParams.__pydantic_complete__
