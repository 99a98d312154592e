"""`[rust] tools`: the Rust tools (and the prompt block naming them) are offered where they
apply — by default in a project with a Cargo.toml at its root."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.config import ConfigError, load_config, project_config_path, user_config_path
from rho_kernel.config.model import RhoConfig
from rho_tools_rust.config import RustConfig
from rho_tools_rust.plugin import (
    rho_register_config_sections,
    rho_register_tools,
    rho_system_prompt_fragments,
)

RUST_TOOLS = 7


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _config(root: Path, home: Path, warnings: list[str] | None = None) -> RhoConfig:
    sink = warnings if warnings is not None else []
    return load_config(root, home=home, warn=sink.append, sections=rho_register_config_sections())


def _offered(root: Path, home: Path) -> tuple[int, bool]:
    """How many Rust tools are offered, and whether the prompt block is."""
    config = _config(root, home)
    tools = rho_register_tools(config=config, root=root)
    return len(tools), bool(rho_system_prompt_fragments(config=config, root=root))


def test_by_default_only_a_project_with_a_cargo_toml_gets_them(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    assert _offered(project, home) == (0, False)
    (project / "Cargo.toml").write_text('[package]\nname = "demo"\n')
    assert _offered(project, home) == (RUST_TOOLS, True)


def test_a_cargo_toml_that_is_a_link_or_a_folder_does_not_count(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / "Cargo.toml").mkdir(parents=True)
    assert _offered(project, home) == (0, False)
    other = tmp_path / "other"
    other.mkdir()
    (project / "Cargo.toml").rmdir()
    (project / "Cargo.toml").symlink_to(_write(other / "Cargo.toml", "[package]\n"))
    assert _offered(project, home) == (0, False)


def test_always_offers_the_tools_without_claiming_a_rust_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(user_config_path(home), '[rust]\ntools = "always"\n')
    project.mkdir()
    assert _offered(project, home) == (RUST_TOOLS, False)  # a crate in a subfolder: path=


def test_never_offers_neither_tools_nor_the_block_even_to_a_crate(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(project / "Cargo.toml", "[package]\n")
    warnings: list[str] = []
    _write(project_config_path(project), '[rust]\ntools = "never"\n')
    assert _config(project, home, warnings).section("rust", RustConfig).tools == "never"
    assert warnings == []  # a project may set it without trust: it grants nothing
    assert _offered(project, home) == (0, False)


def test_a_value_outside_the_three_is_a_clear_error(tmp_path: Path) -> None:
    path = _write(project_config_path(tmp_path), '[rust]\ntools = "sometimes"\n')
    with pytest.raises(ConfigError) as info:
        _config(tmp_path, tmp_path / "home")
    assert (info.value.file, info.value.key) == (path, "rust.tools")
