"""The example plugin's README builds a plugin that works as written."""

from __future__ import annotations

import re
import sys
import tomllib
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_kernel.testing import ScriptedServer

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "examples" / "rho-plugin-example" / "README.md").read_text()


def _block_after(marker: str, language: str) -> str:
    section = README.split(marker, 1)[1]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


@pytest.fixture
def rho_shout() -> Iterator[types.ModuleType]:
    """The README's `src/rho_shout/__init__.py`, importable as `rho_shout`."""
    module = types.ModuleType("rho_shout")
    source = _block_after("`src/rho_shout/__init__.py`:", "python")
    exec(compile(source, "README.md", "exec"), module.__dict__)
    sys.modules["rho_shout"] = module
    yield module
    del sys.modules["rho_shout"]


async def test_the_readme_test_passes_against_the_readme_plugin(
    rho_shout: types.ModuleType, scripted_server: ScriptedServer, rho_root: Path
) -> None:
    namespace: dict[str, object] = {}
    source = _block_after("`tests/test_shout.py`:", "python")
    exec(compile(source, "README.md", "exec"), namespace)
    await namespace["test_shout"](scripted_server, rho_root)  # type: ignore[operator]
    assert len(scripted_server.requests) == 2


def test_the_readme_entry_point_names_the_readme_module() -> None:
    table = tomllib.loads(_block_after("### 4. Declare the entry point", "toml"))
    assert table["project"]["entry-points"]["rho"] == {"rho-shout": "rho_shout"}


def test_the_readme_dependency_bounds_are_the_example_s() -> None:
    example = tomllib.loads(
        (ROOT / "examples" / "rho-plugin-example" / "pyproject.toml").read_text()
    )
    assert example["project"]["dependencies"] == ["rho-kernel>=0.2,<1"]
    assert 'uv add "rho-kernel>=0.2,<1"' in README
