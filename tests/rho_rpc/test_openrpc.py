"""The OpenRPC document generated from the wire models."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_rpc import __version__
from rho_rpc.app import add_discover, collect_methods
from rho_rpc.openrpc import build_openrpc


def _document(tmp_path: Path) -> dict:
    options = RuntimeOptions(
        cwd=tmp_path, root=tmp_path, ephemeral=True, plugin_modules=(("rho-rpc", "rho_rpc.plugin"),)
    )
    methods = collect_methods(Runtime.build(options))
    add_discover(methods)
    return build_openrpc(methods, __version__)


def test_methods_params_and_results_come_from_the_wire_models(tmp_path: Path) -> None:
    document = _document(tmp_path)
    assert document["openrpc"].startswith("1.")
    methods = {m["name"]: m for m in document["methods"]}
    prompt = methods["prompt"]
    assert [(p["name"], p["required"]) for p in prompt["params"]] == [
        ("message", True),
        ("images", False),
        ("steer", False),
        ("queue", False),
    ]
    assert prompt["params"][0]["schema"]["minLength"] == 1
    assert set(prompt["result"]["schema"]["properties"]) == {
        "reply",
        "reasoning",
        "error",
        "failure",
        "turnId",
        "queued",
    }
    approval = {p["name"]: p for p in methods["approvalResponse"]["params"]}
    assert approval["approvalId"]["required"] is True
    assert approval["approved"]["schema"] == {
        "description": "True runs the tool call; false denies it.",
        "title": "Approved",
        "type": "boolean",
    }
    refs = str(methods["listTools"]["result"]["schema"])
    assert "#/components/schemas/ToolInfo" in refs
    assert "ToolInfo" in document["components"]["schemas"]
    notifications = {n["name"] for n in document["x-notifications"]}
    assert {"ready", "agent/end", "approval/request", "tool/result", "agent/retry"} <= notifications


def test_a_duplicate_method_is_skipped_and_rho_rpc_keeps_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rho_kernel import hookimpl
    from rho_kernel.rpc import RpcMethod

    async def handler(_: object) -> dict:
        return {}

    class Clash:
        @hookimpl
        def rho_register_rpc_methods(self) -> list[RpcMethod]:
            return [RpcMethod("getState", handler), RpcMethod("clash/own", handler)]

    options = RuntimeOptions(
        cwd=tmp_path,
        root=tmp_path,
        ephemeral=True,
        plugin_modules=(("rho-rpc", "rho_rpc.plugin"),),
        plugin_objects=(("clash", Clash()),),
    )
    runtime = Runtime.build(options)
    methods = collect_methods(runtime)
    assert methods["getState"].handler is not handler
    assert methods["clash/own"].handler is handler
    infos = {info.name: info for info in runtime.plugins.plugins()}
    assert infos["clash"].rpc_methods == ["clash/own"]
    assert "getState" in infos["rho-rpc"].rpc_methods
    stderr = capsys.readouterr().err
    assert "RPC method 'getState' of plugin 'clash' skipped: plugin 'rho-rpc'" in stderr


def test_the_document_declares_what_rho_sends_and_nothing_more(tmp_path: Path) -> None:
    document = _document(tmp_path)
    schemas = document["components"]["schemas"]
    notifications = {n["name"]: n["params"] for n in document["x-notifications"]}
    approval = notifications["approval/request"]
    assert "sandbox" in approval["properties"] and "sandbox" not in approval["required"]
    methods = {m["name"]: m for m in document["methods"]}
    messages = methods["getMessages"]["result"]["schema"]["properties"]["messages"]
    assert messages["items"] == {"$ref": "#/components/schemas/ChatMessage"}
    assert set(schemas["ChatMessage"]["properties"]) >= {"role", "content", "tool_calls"}
    assert notifications["agent/start"]["type"] == "object"
    assert approval["additionalProperties"] is False
    from rho_rpc import wire

    own = {
        name
        for name, value in vars(wire).items()
        if isinstance(value, type) and issubclass(value, wire.Wire)
    }
    for name in own & set(schemas):
        assert schemas[name].get("additionalProperties") is False, name
    params = {p["name"] for p in methods["listSessions"]["params"]}
    assert params == {"limit", "offset"}
    assert {p["name"] for p in methods["resumeSession"]["params"]} == {"path", "id"}
