"""`[extensions]` belongs to rho-ext-js: declared by its plugin, merged and trusted by markers."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from rho_ext_js import ExtensionPermissions, ExtensionsConfig
from rho_ext_js.plugin import rho_register_config_sections
from rho_kernel.config import (
    PROJECT_CONFIG,
    ConfigError,
    load_config,
    project_config_path,
    user_config_path,
)
from rho_kernel.security import TrustStore


class Files:
    """A home and a project with config files, loaded with the pack's declared sections."""

    def __init__(self, tmp_path: Path) -> None:
        self.home, self.root = tmp_path / "home", tmp_path / "project"
        self.root.mkdir()
        self.warnings: list[str] = []

    def user(self, text: str) -> Path:
        return _write(user_config_path(self.home), text)

    def project(self, text: str) -> Path:
        return _write(project_config_path(self.root), text)

    def trust(self) -> None:
        data = project_config_path(self.root).read_bytes()
        TrustStore.load(self.home).trust(self.root, PROJECT_CONFIG, data)

    def extensions(self) -> ExtensionsConfig:
        config = load_config(
            self.root,
            home=self.home,
            warn=self.warnings.append,
            sections=rho_register_config_sections(),
        )
        return config.section("extensions", ExtensionsConfig)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> Files:
    return Files(tmp_path)


def test_the_entry_point_is_the_plugin_declaring_extensions() -> None:
    (point,) = [ep for ep in entry_points(group="rho") if ep.name == "rho-ext-js"]
    assert point.value == "rho_ext_js.plugin"
    assert point.load().rho_register_config_sections() == {"extensions": ExtensionsConfig}


def test_extensions_are_type_checked_naming_file_and_key(files: Files) -> None:
    path = files.user('[extensions.per_extension."rust-docs"]\nmax_memory_mb = "big"\n')
    with pytest.raises(ConfigError) as info:
        files.extensions()
    assert info.value.file == path
    assert info.value.key == "extensions.per_extension.rust-docs.max_memory_mb"


def test_a_trusted_project_replaces_enabled_and_per_extension_and_merges_defaults(
    files: Files,
) -> None:
    files.user(
        '[extensions]\nenabled = ["a", "b"]\ndisabled = ["z"]\n'
        "[extensions.defaults]\nnetwork = true\nmax_memory_mb = 64\n"
        '[extensions.per_extension."a"]\ncommands = true\n'
    )
    files.project(
        '[extensions]\nenabled = ["c"]\n'
        "[extensions.defaults]\nmax_memory_mb = 128\n"
        '[extensions.per_extension."c"]\nnetwork = false\n'
    )
    files.trust()
    extensions = files.extensions()
    assert extensions.enabled == ["c"]
    assert extensions.disabled == ["z"]
    assert extensions.defaults.network is True
    assert extensions.defaults.max_memory_mb == 128
    assert list(extensions.per_extension) == ["c"]
    assert extensions.per_extension["c"].network is False


@pytest.mark.parametrize("trusted", [False, True])
def test_disabled_extensions_only_ever_add_to_the_users(files: Files, trusted: bool) -> None:
    files.user('[extensions]\ndisabled = ["e1"]\n')
    files.project('[extensions]\ndisabled = ["e2"]\n')
    if trusted:
        files.trust()
    assert files.extensions().disabled == ["e1", "e2"]


def test_an_untrusted_project_may_restrict_but_not_grant(files: Files) -> None:
    files.user(
        '[extensions]\nenabled = ["a", "b"]\n'
        '[extensions.per_extension."a"]\nnetwork = true\nallow_paths = ["data"]\n'
    )
    files.project(
        '[extensions]\nenabled = ["a"]\n'
        "[extensions.defaults]\nnetwork = true\ncommands = false\nmax_memory_mb = 32\n"
        '[extensions.per_extension."a"]\ncommands = true\nallow_paths = ["/", "data"]\n'
        '[extensions.per_extension."b"]\nnetwork = false\n'
    )
    extensions = files.extensions()
    assert extensions.enabled == ["a"]  # a subset of the user's: tightening
    assert extensions.defaults.network is None
    assert extensions.defaults.commands is False
    assert extensions.defaults.max_memory_mb == 32
    a = extensions.per_extension["a"]
    assert (a.network, a.commands, a.allow_paths) == (True, None, ["data"])
    assert extensions.per_extension["b"].network is False
    (warning,) = files.warnings
    assert warning.count("extensions.") == 3
    for setting in (
        "extensions.defaults.network = true",
        "extensions.per_extension.a.commands = true",
        'extensions.per_extension.a.allow_paths = ["/", "data"]',
    ):
        assert setting in warning


def test_an_untrusted_project_cannot_enable_new_extensions(files: Files) -> None:
    files.user('[extensions]\nenabled = ["a"]\n')
    files.project('[extensions]\nenabled = ["a", "evil"]\n')
    assert files.extensions().enabled == ["a"]
    assert 'extensions.enabled = ["a", "evil"]' in files.warnings[0]


def test_unknown_keys_inside_extensions_are_reported(files: Files) -> None:
    path = files.project('[extensions.per_extension."e"]\nnetwrk = true\n')
    files.extensions()
    assert files.warnings == [
        f"{path}: unknown key 'extensions.per_extension.e.netwrk' ignored; "
        "did you mean 'extensions.per_extension.e.network'?"
    ]


def test_an_extensions_permissions_override_the_defaults_field_by_field() -> None:
    config = ExtensionsConfig(
        defaults=ExtensionPermissions(network=True, max_memory_mb=64),
        per_extension={"a": ExtensionPermissions(network=False, allow_paths=["data"])},
    )
    assert config.permissions("a") == ExtensionPermissions(
        network=False, max_memory_mb=64, allow_paths=["data"]
    )
    assert config.permissions("other") == config.defaults
    assert config.permissions("other") is not config.defaults
