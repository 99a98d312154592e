"""Runtime assembly: root detection, sessions, system prompt, plugin contributions."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel import hookimpl, tool
from rho_kernel.runtime import Runtime, RuntimeOptions, StartupError


def _options(cwd: Path, home: Path, **kwargs: object) -> RuntimeOptions:
    return RuntimeOptions(cwd=cwd, home=home, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg" / "deep").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname='x'\n")
    return root.resolve()


def test_root_is_detected_from_a_subdirectory(project: Path, tmp_path: Path) -> None:
    runtime = Runtime.build(_options(project / "pkg" / "deep", tmp_path, ephemeral=True))
    assert runtime.root.path == project
    assert runtime.session.path is None


def test_root_flag_overrides_and_must_exist(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert (
        Runtime.build(_options(project, tmp_path, root=other, ephemeral=True)).root.path
        == other.resolve()
    )
    with pytest.raises(StartupError, match="not a directory"):
        Runtime.build(_options(project, tmp_path, root=tmp_path / "missing"))


def test_persisted_session_lives_under_home_and_resumes(project: Path, tmp_path: Path) -> None:
    first = Runtime.build(_options(project, tmp_path))
    path = first.session.path
    assert path is not None and path.is_relative_to(tmp_path / ".rho" / "sessions")
    first.session.close()
    again = Runtime.build(_options(project, tmp_path, continue_latest=True))
    assert again.session.path == path
    assert [m.role for m in again.session.path_messages()] == ["system"]


def test_system_prompt_has_base_environment_and_fragments(project: Path, tmp_path: Path) -> None:
    class Fragments:
        @hookimpl
        def rho_system_prompt_fragments(self) -> list[str]:
            return ["Fragment from a plugin."]

    (tmp_path / ".rho").mkdir()  # home is tmp_path; prompt text from a project needs trust
    (tmp_path / ".rho" / "config.toml").write_text(
        '[system_prompt]\nextensions = ["From config."]\n'
    )
    runtime = Runtime.build(
        _options(project, tmp_path, ephemeral=True, plugin_objects=(("frag", Fragments()),))
    )
    prompt = runtime.session.path_messages()[0].text
    assert prompt.startswith("You are rho")
    assert str(project) in prompt
    assert prompt.index("Fragment from a plugin.") < prompt.index("From config.")
    custom = Runtime.build(_options(project, tmp_path, ephemeral=True, system_prompt="Be terse."))
    assert custom.session.path_messages()[0].text.startswith("Be terse.")


def test_duplicate_tools_across_plugins_are_a_startup_error(project: Path, tmp_path: Path) -> None:
    @tool
    def read_file(path: str) -> str:
        """Clash with rho-tools-fs."""
        return path

    class Clash:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            return [read_file]

    with pytest.raises(StartupError, match=r"read_file.*both"):
        Runtime.build(
            _options(project, tmp_path, ephemeral=True, plugin_objects=(("clash", Clash()),))
        )


def test_disabled_plugin_contributes_nothing(project: Path, tmp_path: Path) -> None:
    (tmp_path / ".rho").mkdir()  # home is tmp_path; a project disables plugins only if trusted
    (tmp_path / ".rho" / "config.toml").write_text('[plugins]\ndisabled = ["rho-tools-fs"]\n')
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True))
    assert "read_file" not in runtime.tools


def test_unknown_api_is_reported_at_first_use(project: Path, tmp_path: Path) -> None:
    (tmp_path / ".rho").mkdir()  # home is tmp_path; a project's providers need trust
    (tmp_path / ".rho" / "config.toml").write_text(
        '[[providers]]\nname = "r"\napi = "bogus"\nendpoint = "http://localhost:9/v1/bogus"\n'
    )
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True))
    with pytest.raises(StartupError, match='api "bogus"'):
        runtime.service()
