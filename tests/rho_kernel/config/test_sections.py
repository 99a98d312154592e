"""Declaring plugin sections (`collect_sections`) and reading them (`RhoConfig.section`)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from rho_kernel.config import (
    AgentConfig,
    ConfigSectionError,
    RhoConfig,
    SectionConflict,
    collect_sections,
)


class GreeterConfig(BaseModel):
    name: str = "world"


class OtherConfig(BaseModel):
    name: str = "other"


# ── collect_sections ────────────────────────────────────────────────────────


def test_sections_are_attributed_to_the_plugin_that_declares_them() -> None:
    reports: list[str] = []
    specs = collect_sections(
        [("greeter", {"greeter": GreeterConfig}), ("other", {"other-pack": OtherConfig})],
        reports.append,
    )
    assert {name: (spec.model, spec.owner) for name, spec in specs.items()} == {
        "greeter": (GreeterConfig, "greeter"),
        "other-pack": (OtherConfig, "other"),
    }
    assert reports == []


def test_a_section_declared_by_two_plugins_names_both() -> None:
    with pytest.raises(SectionConflict) as info:
        collect_sections(
            [("first", {"greeter": GreeterConfig}), ("second", {"greeter": OtherConfig})],
            lambda _: None,
        )
    assert str(info.value) == (
        "config section [greeter] is declared by both plugin 'first' and plugin 'second'; "
        "disable one of them in [plugins] disabled"
    )


def test_a_plugin_claiming_a_kernel_section_names_the_kernel() -> None:
    with pytest.raises(SectionConflict) as info:
        collect_sections([("sneaky", {"approval": GreeterConfig})], lambda _: None)
    assert str(info.value) == (
        "config section [approval] is declared by both rho-kernel and plugin 'sneaky'; "
        "disable plugin 'sneaky' in [plugins] disabled"
    )


class NotAModel:
    name = "x"


def test_malformed_declarations_are_reported_and_skipped() -> None:
    reports: list[str] = []
    specs = collect_sections(
        [
            ("listy", [GreeterConfig]),
            (
                "mixed",
                {
                    "dotted.name": GreeterConfig,
                    "": GreeterConfig,
                    "new\nline": GreeterConfig,
                    3: GreeterConfig,
                    "instance": GreeterConfig(),
                    "plain": NotAModel,
                    "fine": GreeterConfig,
                },
            ),
        ],
        reports.append,
    )
    assert list(specs) == ["fine"]
    assert len(reports) == 7
    assert reports[0] == (
        "plugin 'listy' returned list from rho_register_config_sections; expected a dict "
        "of section name to model (ignored)"
    )
    assert "'dotted.name', which is not a bare TOML key" in reports[1]
    assert "\n" not in reports[3] and "'new\\nline'" in reports[3]
    assert "section <int>, which is not a bare TOML key" in reports[4]
    assert reports[5] == (
        "plugin 'mixed' declared the config section [instance] with a GreeterConfig, not a "
        "pydantic BaseModel subclass; ignored"
    )
    assert "[plain] with a type" in reports[6]


# ── RhoConfig.section ───────────────────────────────────────────────────────


def test_a_registered_section_is_read_with_its_model() -> None:
    config = RhoConfig().with_sections({"greeter": GreeterConfig(name="ann")})
    greeter = config.section("greeter", GreeterConfig)
    assert isinstance(greeter, GreeterConfig) and greeter.name == "ann"


def test_an_unregistered_section_is_a_clear_error() -> None:
    config = RhoConfig().with_sections({"greeter": GreeterConfig()})
    with pytest.raises(ConfigSectionError) as info:
        config.section("memory", GreeterConfig)
    assert str(info.value) == (
        "no config section [memory] is registered (plugin sections: [greeter]); a plugin "
        "declares its sections with the rho_register_config_sections hook"
    )


def test_a_section_read_with_another_model_is_a_clear_error() -> None:
    config = RhoConfig().with_sections({"greeter": GreeterConfig()})
    with pytest.raises(ConfigSectionError, match=r"registered with the model .*GreeterConfig, not"):
        config.section("greeter", OtherConfig)


def test_kernel_sections_read_the_same_way() -> None:
    config = RhoConfig()
    assert config.section("agent", AgentConfig) is config.agent
    with pytest.raises(ConfigSectionError):
        config.section("agent", GreeterConfig)
    with pytest.raises(ConfigSectionError):
        config.section("models", GreeterConfig)  # an array of tables, not a section


def test_with_sections_copies_and_refuses_kernel_names_and_non_models() -> None:
    base = RhoConfig()
    extended = base.with_sections({"greeter": GreeterConfig()})
    with pytest.raises(ConfigSectionError):
        base.section("greeter", GreeterConfig)
    assert extended.section("greeter", GreeterConfig).name == "world"
    with pytest.raises(ValueError, match="kernel's own"):
        base.with_sections({"agent": GreeterConfig()})
    with pytest.raises(ValueError, match="model instance"):
        base.with_sections({"greeter": {"name": "x"}})  # type: ignore[dict-item]
