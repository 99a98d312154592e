"""The RPC methods' models are built on first use: importing them at start-up builds none."""

from __future__ import annotations

import json
import subprocess
import sys

#: Prints, for every model class of the module, whether pydantic has built it.
PROBE = """
import json, pydantic, rho_memory.rpc as rpc
print(json.dumps({
    name: value.__pydantic_complete__
    for name, value in vars(rpc).items()
    if isinstance(value, type) and issubclass(value, pydantic.BaseModel)
}))
"""


def test_importing_the_methods_builds_no_model() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    built = json.loads(done.stdout)
    assert len(built) >= 3
    assert [name for name, complete in built.items() if complete] == []
