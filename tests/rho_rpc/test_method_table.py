"""The core methods are deferred: what startup knows of each matches its complete form."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from rho_kernel.rpc import DeferredMethod
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_rpc.app import add_discover, collect_methods
from rho_rpc.deferred import loaded
from rho_rpc.method_registry import method_problem
from rho_rpc.method_table import CORE_TABLE
from rho_rpc.plugin import PEER_KEY


def _methods(tmp_path: Path) -> dict[str, object]:
    options = RuntimeOptions(
        cwd=tmp_path, root=tmp_path, ephemeral=True, plugin_modules=(("rho-rpc", "rho_rpc.plugin"),)
    )
    methods = collect_methods(Runtime.build(options))
    add_discover(methods)
    return dict(methods)


def test_every_deferred_method_loads_into_the_method_it_announced(tmp_path: Path) -> None:
    methods = _methods(tmp_path)
    names = [row[0] for row in CORE_TABLE] + ["rpc.discover"]
    assert set(names) <= set(methods)
    for name in names:
        deferred = methods[name]
        assert isinstance(deferred, DeferredMethod), name
        complete = loaded(deferred)
        assert not isinstance(complete, DeferredMethod)
        assert loaded(deferred) is complete  # made once
        if name != "rpc.discover":  # a name only rho-rpc itself may serve
            assert method_problem(complete) is None, name
        assert (complete.name, complete.summary, complete.concurrent) == (
            name,
            deferred.summary,
            deferred.concurrent,
        )
        assert isinstance(complete.params_model, type)
        assert issubclass(complete.params_model, BaseModel)
        if name != "rpc.discover":
            assert isinstance(complete.result_model, type), name


async def test_calling_a_deferred_handler_runs_the_complete_one(tmp_path: Path) -> None:
    from rho_rpc.peer import RpcPeer
    from rho_rpc.protocol.base import NoParams

    options = RuntimeOptions(
        cwd=tmp_path, root=tmp_path, ephemeral=True, plugin_modules=(("rho-rpc", "rho_rpc.plugin"),)
    )
    runtime = Runtime.build(options)
    runtime.stash[PEER_KEY] = RpcPeer(lambda method, params: None)
    methods = collect_methods(runtime)
    result = await methods["getState"].handler(NoParams())
    assert isinstance(result, dict)
    assert result["cwd"] == str(runtime.root.path)
