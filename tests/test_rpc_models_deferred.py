"""The packs' RPC methods' models are built on first use: importing them at start-up builds
none (rho-ext-js's and rho-memory's method modules are imported before `ready`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Prints, for every model class of the module named by argv[1], whether pydantic built it.
PROBE = """
import importlib, json, sys, pydantic
module = importlib.import_module(sys.argv[1])
print(json.dumps({
    name: value.__pydantic_complete__
    for name, value in vars(module).items()
    if isinstance(value, type) and issubclass(value, pydantic.BaseModel)
}))
"""


@pytest.mark.parametrize("module", ["rho_ext_js.rpc", "rho_memory.rpc"])
def test_importing_the_methods_builds_no_model(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, module],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    built = json.loads(done.stdout)
    assert len(built) >= 3
    assert [name for name, complete in built.items() if complete] == []
