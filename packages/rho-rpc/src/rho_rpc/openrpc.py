"""The OpenRPC document, generated from the registered methods' pydantic wire models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rho_kernel.rpc import RpcMethod
from rho_rpc.deferred import loaded
from rho_rpc.protocol.notifications import NOTIFICATIONS

OPENRPC_VERSION = "1.3.2"
_REF = "#/components/schemas/{model}"


def _schema(model: type[BaseModel], defs: dict[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template=_REF, mode="serialization")
    defs.update(schema.pop("$defs", {}))
    return schema


def _params(model: type[BaseModel] | None, defs: dict[str, Any]) -> list[dict[str, Any]]:
    if model is None:
        return []
    schema = model.model_json_schema(ref_template=_REF, mode="validation")
    defs.update(schema.pop("$defs", {}))
    required = set(schema.get("required", []))
    params = []
    for name, prop in schema.get("properties", {}).items():
        param: dict[str, Any] = {"name": name, "required": name in required, "schema": prop}
        if "description" in prop:
            param["description"] = prop["description"]
        params.append(param)
    return params


def build_openrpc(methods: dict[str, RpcMethod], version: str) -> dict[str, Any]:
    """An OpenRPC document describing `methods` and rho's notifications (`x-notifications`)."""
    defs: dict[str, Any] = {}
    described: list[dict[str, Any]] = []
    for name in sorted(methods):
        method = loaded(methods[name])
        entry: dict[str, Any] = {
            "name": name,
            "summary": method.summary,
            "paramStructure": "by-name",
            "params": _params(method.params_model, defs),
        }
        if method.result_model is not None:
            entry["result"] = {
                "name": f"{name}Result",
                "schema": _schema(method.result_model, defs),
            }
        else:
            entry["result"] = {"name": f"{name}Result", "schema": {"type": "object"}}
        described.append(entry)
    notifications = [
        {"name": name, "params": _schema(model, defs)} for name, model in NOTIFICATIONS.items()
    ]
    return {
        "openrpc": OPENRPC_VERSION,
        "info": {
            "title": "rho",
            "version": version,
            "description": "rho's JSON-RPC 2.0 protocol over stdio (newline-delimited). "
            "Notifications are listed under x-notifications.",
        },
        "methods": described,
        "components": {"schemas": dict(sorted(defs.items()))},
        "x-notifications": notifications,
    }


__all__ = ["build_openrpc"]


def main() -> None:
    """Print the OpenRPC document of an ephemeral rho with rho's own plugins: a third-party
    plugin installed next to them is disabled, its methods are not rho's protocol."""
    import json
    import tempfile
    from pathlib import Path

    from rho_kernel.frontend import Runtime, RuntimeOptions
    from rho_rpc import __version__
    from rho_rpc.app import add_discover, collect_methods
    from rho_rpc.distributions import disabling_config, foreign_plugins

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".rho").mkdir()
        (Path(tmp) / ".rho" / "config.toml").write_text(disabling_config(foreign_plugins()))
        options = RuntimeOptions(
            cwd=Path(tmp),
            root=Path(tmp),
            home=Path(tmp),  # the document must not depend on this user's config
            model="openrpc",  # named, so no model server is asked at build time
            ephemeral=True,
            plugin_modules=(("rho-rpc", "rho_rpc.plugin"),),
        )
        methods = collect_methods(Runtime.build(options))
        add_discover(methods)
        print(json.dumps(build_openrpc(methods, __version__), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
