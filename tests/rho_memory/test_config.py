"""`[memory]` belongs to rho-memory: declared by its plugin, read from the merged config."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from rho_kernel.config import ConfigError, load_config, project_config_path, user_config_path
from rho_memory import MemoryConfig
from rho_memory.plugin import rho_register_config_sections


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _memory(root: Path, home: Path, warnings: list[str]) -> MemoryConfig:
    config = load_config(
        root, home=home, warn=warnings.append, sections=rho_register_config_sections()
    )
    return config.section("memory", MemoryConfig)


def test_the_entry_point_is_the_plugin_declaring_memory() -> None:
    (point,) = [ep for ep in entry_points(group="rho") if ep.name == "rho-memory"]
    assert point.value == "rho_memory.plugin"
    assert point.load().rho_register_config_sections() == {"memory": MemoryConfig}


def test_memory_is_off_unless_a_file_enables_it(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert _memory(tmp_path, tmp_path / "home", warnings).enabled is False
    assert warnings == []


def test_an_untrusted_project_may_switch_memory_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(user_config_path(home), "[memory]\nenabled = false\n")
    _write(project_config_path(tmp_path), "[memory]\nenabled = true\n")
    warnings: list[str] = []
    assert _memory(tmp_path, home, warnings).enabled is True
    assert warnings == []  # not security relevant: no trust needed


def test_memory_enabled_must_be_a_boolean(tmp_path: Path) -> None:
    path = _write(project_config_path(tmp_path), '[memory]\nenabled = "yes"\n')
    with pytest.raises(ConfigError) as info:
        _memory(tmp_path, tmp_path / "home", [])
    assert (info.value.file, info.value.key) == (path, "memory.enabled")
    assert info.value.problem == "expected true or false, got 'yes'"
