"""Plugin sections through the loader: two phases, validation, merging, trust, unknown keys."""

from __future__ import annotations

import datetime
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import pytest
from pydantic import BaseModel, Field

from rho_kernel.config import (
    Additive,
    ConfigError,
    ConfigSectionError,
    NeedsTrust,
    Replaced,
    RhoConfig,
    UserOnly,
    loosening_settings,
    merge_section,
    read_config,
    turns_on,
)

if TYPE_CHECKING:
    from conftest import Env  # the fixture's type, from this folder's conftest.py


class Limits(BaseModel):
    allow: Annotated[list[str], Additive()] = Field(default_factory=list)
    level: int = 1


class GreeterConfig(BaseModel):
    greeting: str = "hello"
    name: str = "world"
    times: int = Field(1, ge=1)
    loud: Annotated[bool, NeedsTrust(turns_on)] = False
    token_env: Annotated[str | None, UserOnly()] = None
    blocked: Annotated[list[str], Additive()] = Field(default_factory=list)
    rules: Annotated[dict[str, str], Replaced()] = Field(default_factory=dict)
    limits: Annotated[Limits, Replaced()] = Field(default_factory=Limits)
    per_user: dict[str, Limits] = Field(default_factory=dict)


SECTIONS: dict[str, type[BaseModel]] = {"greeter": GreeterConfig}


def _greeter(env: Env) -> GreeterConfig:
    return env.load(SECTIONS).section("greeter", GreeterConfig)


# ── validating, merging, reading ────────────────────────────────────────────


def test_a_plugin_section_is_merged_user_then_project_and_read_typed(env: Env) -> None:
    env.user('[greeter]\ngreeting = "hi"\nname = "ann"\ntimes = 2\n')
    env.project('[greeter]\nname = "bob"\n')
    greeter = _greeter(env)
    assert (greeter.greeting, greeter.name, greeter.times) == ("hi", "bob", 2)
    assert env.warnings == []


def test_a_section_no_file_sets_holds_the_models_defaults(env: Env) -> None:
    env.user('[agent]\nmodel = "m"\n')
    assert _greeter(env) == GreeterConfig()


def test_a_wrong_type_in_a_plugin_section_names_the_file_and_dotted_key(env: Env) -> None:
    env.user('[greeter]\nname = "ann"\n')
    path = env.project('[greeter]\ntimes = "2"\n')
    with pytest.raises(ConfigError) as info:
        env.load(SECTIONS)
    assert (info.value.file, info.value.key) == (path, "greeter.times")
    assert info.value.problem == "expected an integer, got '2'"


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[greeter]\ntimes = 0\n", "greeter.times", "must be at least 1, got 0"),
        ("[greeter.limits]\nlevel = true\n", "greeter.limits.level", "expected an integer"),
        ('[greeter.per_user."a b"]\nallow = [1]\n', 'greeter.per_user."a b".allow[0]', "string"),
        ('greeter = "loud"\n', "greeter", "expected a table, got 'loud'"),
    ],
)
def test_plugin_section_errors_read_like_the_kernels(
    env: Env, text: str, key: str, problem: str
) -> None:
    path = env.user(text)
    with pytest.raises(ConfigError) as info:
        env.load(SECTIONS)
    assert (info.value.file, info.value.key) == (path, key)
    assert problem in info.value.problem


def test_each_files_plugin_section_is_validated_on_its_own(env: Env) -> None:
    path = env.user('[greeter]\ntimes = "many"\n')
    env.project("[greeter]\ntimes = 3\n")
    with pytest.raises(ConfigError) as info:
        env.load(SECTIONS)
    assert info.value.file == path


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class RichConfig(BaseModel):
    cache: Path = Path("cache")
    colour: Colour = Colour.RED
    size: tuple[int, int] = (1, 1)
    since: datetime.date | None = None


def test_a_plugin_model_reads_paths_enums_tuples_and_dates_as_toml_spells_them(
    env: Env,
) -> None:
    env.user('[rich]\ncache = "/var/cache/x"\ncolour = "blue"\nsize = [3, 4]\nsince = 2024-05-01\n')
    rich = env.load({"rich": RichConfig}).section("rich", RichConfig)
    assert rich == RichConfig(
        cache=Path("/var/cache/x"),
        colour=Colour.BLUE,
        size=(3, 4),
        since=datetime.date(2024, 5, 1),
    )


def test_a_plugin_model_is_still_strict_about_scalars(env: Env) -> None:
    env.user('[rich]\ncolour = "green"\n[greeter]\ntimes = 1.5\n')
    with pytest.raises(ConfigError) as info:
        env.load({"rich": RichConfig})
    assert info.value.key == "rich.colour"
    with pytest.raises(ConfigError, match=r"greeter\.times: expected an integer, got 1\.5"):
        env.load(SECTIONS)


class NeedyConfig(BaseModel):
    owner: str
    level: int = 1


def test_a_required_field_may_come_from_either_file(env: Env) -> None:
    env.user('[needy]\nowner = "me"\n')
    env.project("[needy]\nlevel = 2\n")
    needy = env.load({"needy": NeedyConfig}).section("needy", NeedyConfig)
    assert (needy.owner, needy.level) == ("me", 2)


def test_a_required_field_no_file_sets_is_an_error(env: Env) -> None:
    env.project("[needy]\nlevel = 2\n")
    with pytest.raises(ConfigError) as info:
        env.load({"needy": NeedyConfig})
    assert (info.value.file, info.value.key, info.value.problem) == (
        None,
        "needy.owner",
        "is required",
    )


def test_additive_lists_of_a_plugin_section_extend_the_users(env: Env) -> None:
    env.user('[greeter]\nblocked = ["a"]\n[greeter.per_user.x]\nallow = ["u"]\n')
    env.project('[greeter]\nblocked = ["b"]\n[greeter.per_user.x]\nallow = []\n')
    greeter = _greeter(env)
    assert greeter.blocked == ["a", "b"]
    assert greeter.per_user["x"].allow == ["u"]


# ── the Replaced marker ─────────────────────────────────────────────────────


def test_a_trusted_project_replaces_a_replaced_table_wholesale(env: Env) -> None:
    env.user('[greeter.rules]\na = "x"\nb = "y"\n[greeter.limits]\nlevel = 2\nallow = ["u"]\n')
    env.project('[greeter.rules]\nc = "z"\n[greeter.limits]\nlevel = 3\n')
    env.trust()
    greeter = _greeter(env)
    assert greeter.rules == {"c": "z"}
    # The table is the project's, but an Additive list in it never loses the user's items.
    assert (greeter.limits.level, greeter.limits.allow) == (3, ["u"])


def test_an_untrusted_project_merges_a_replaced_table_entry_by_entry(env: Env) -> None:
    env.user('[greeter.rules]\na = "x"\nb = "y"\n')
    env.project('[greeter.rules]\nb = "w"\nc = "z"\n')
    assert _greeter(env).rules == {"a": "x", "b": "w", "c": "z"}


def test_merge_section_applies_the_markers_directly() -> None:
    user = {"rules": {"a": "x"}, "blocked": ["a"], "name": "ann"}
    project = {"rules": {"b": "y"}, "blocked": ["b"]}
    assert merge_section(GreeterConfig, user, project) == {
        "rules": {"b": "y"},
        "blocked": ["a", "b"],
        "name": "ann",
    }
    assert merge_section(GreeterConfig, user, project, trusted=False)["rules"] == {
        "a": "x",
        "b": "y",
    }
    assert user == {"rules": {"a": "x"}, "blocked": ["a"], "name": "ann"}


# ── trust ───────────────────────────────────────────────────────────────────


def test_an_untrusted_project_cannot_loosen_a_plugin_section(env: Env) -> None:
    path = env.project('[greeter]\nloud = true\nname = "bob"\n[agent]\nprovider = "x"\n')
    greeter = _greeter(env)
    assert (greeter.loud, greeter.name) == (False, "bob")
    assert env.warnings == [
        f"{path}: ignored settings that need trust (greeter.loud = true, "
        "agent.provider = \"x\"): this project is not trusted; run 'rho trust' in it to "
        "apply them"
    ]


def test_a_trusted_project_loosens_a_plugin_section(env: Env) -> None:
    env.project("[greeter]\nloud = true\n")
    env.trust()
    assert _greeter(env).loud is True
    assert env.warnings == []


@pytest.mark.parametrize("trusted", [False, True])
def test_user_only_fields_are_never_read_from_a_project(env: Env, trusted: bool) -> None:
    user = env.user('[greeter]\ntoken_env = "MY_TOKEN"\n')
    project = env.project('[greeter]\ntoken_env = "AWS_SECRET_ACCESS_KEY"\ntimes = 2\n')
    if trusted:
        env.trust()
    greeter = _greeter(env)
    assert (greeter.token_env, greeter.times) == ("MY_TOKEN", 2)
    assert env.warnings == [
        f"{project}: ignored settings that only your own config may set "
        f'(greeter.token_env = "AWS_SECRET_ACCESS_KEY"): set them in {user} to apply them'
    ]


def test_loosening_settings_judges_plugin_sections(env: Env) -> None:
    data = b'[greeter]\nloud = true\ntoken_env = "X"\nname = "bob"\n'
    settings = loosening_settings(env.root, data, home=env.home, sections=SECTIONS)
    assert settings == ["greeter.loud = true"]
    assert loosening_settings(env.root, data, home=env.home) == []
    with pytest.raises(ConfigError, match=r"greeter\.times"):
        loosening_settings(env.root, b"[greeter]\ntimes = 0\n", home=env.home, sections=SECTIONS)


# ── two phases ──────────────────────────────────────────────────────────────


def test_phase_one_reads_the_kernel_and_reports_nothing_yet(env: Env) -> None:
    env.user('[plugins]\ndisabled = ["noisy"]\n[greeter]\nname = "ann"\nnmae = "typo"\n')
    env.project('[plugins]\ndisabled = ["guard"]\n[greeter]\nloud = true\n')
    files = read_config(env.root, home=env.home, warn=env.warnings.append)
    # An untrusted project may not disable plugins: the kernel says which to load.
    assert files.kernel.plugins.disabled == ["noisy"]
    assert env.warnings == []
    with pytest.raises(ConfigSectionError):
        files.kernel.section("greeter", GreeterConfig)
    config = files.complete(SECTIONS)
    assert config.section("greeter", GreeterConfig).name == "ann"
    assert config.plugins.disabled == ["noisy"]
    assert len(env.warnings) == 2
    assert "unknown key 'greeter.nmae' ignored; did you mean 'greeter.name'?" in env.warnings[0]
    assert "plugins.disabled" in env.warnings[1] and "greeter.loud" in env.warnings[1]


def test_phase_two_errors_name_the_file_after_phase_one_passed(env: Env) -> None:
    path = env.user('[agent]\nmodel = "m"\n[greeter]\ntimes = -1\n')
    files = read_config(env.root, home=env.home, warn=env.warnings.append)
    assert files.kernel.agent.model == "m"
    with pytest.raises(ConfigError) as info:
        files.complete(SECTIONS)
    assert (info.value.file, info.value.key) == (path, "greeter.times")


# ── unknown keys and unclaimed sections ─────────────────────────────────────


def test_unknown_keys_inside_a_plugin_section_are_reported(env: Env) -> None:
    path = env.project('[greeter]\nnmae = "x"\n[greeter.limits]\nlevle = 2\n')
    _greeter(env)
    assert env.warnings == [
        f"{path}: unknown key 'greeter.nmae' ignored; did you mean 'greeter.name'?",
        f"{path}: unknown key 'greeter.limits.levle' ignored; did you mean 'greeter.limits.level'?",
    ]


def test_a_plugin_field_written_at_the_top_level_points_to_its_table(env: Env) -> None:
    path = env.user('greeting = "hi"\n')
    _greeter(env)
    assert env.warnings == [
        f"{path}: unknown key 'greeting' ignored; did you mean 'greeter.greeting' "
        "(in the [greeter] table)?"
    ]


def test_an_unclaimed_first_party_section_warns_once_naming_its_pack(env: Env) -> None:
    path = env.user(
        "[memory]\nenabled = true\nsize = 3\n[extensions]\nenabled = []\n"
        "[extensions.defaults]\nnetwork = true\n"
    )
    env.load()
    assert env.warnings == [
        f"{path}: no installed plugin reads [memory]; install rho-memory",
        f"{path}: no installed plugin reads [extensions]; install rho-ext-js",
    ]


def test_with_installed_plugins_not_loading_the_hint_says_why_not_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rho_kernel.plugins
    from rho_kernel.config.unknown import unknown_key_warnings

    path = tmp_path / "config.toml"
    table = {"memory": {"enabled": True}}
    why = "RHO_DISABLE_PLUGIN_AUTOLOAD is set; unset it to load installed plugins"
    assert unknown_key_warnings(table, path, {}, (), why) == [
        f"{path}: no loaded plugin reads [memory]; rho-memory is installed but not loaded: {why}"
    ]
    # Disabled by name in config: that is the reason given, whatever else holds.
    assert unknown_key_warnings(table, path, {}, ("rho-memory",), why) == [
        f"{path}: no loaded plugin reads [memory]; rho-memory is disabled in [plugins] disabled"
    ]
    monkeypatch.setattr(rho_kernel.plugins, "installed_distribution", lambda name: False)
    assert unknown_key_warnings(table, path, {}, (), why) == [
        f"{path}: no installed plugin reads [memory]; install rho-memory ({why})"
    ]


def test_installed_distributions_are_found_by_normalized_name() -> None:
    from rho_kernel.plugins import installed_distribution

    assert installed_distribution("rho-memory") and installed_distribution("RHO_Memory")
    assert not installed_distribution("rho-memory-not-a-real-pack")


def test_an_unclaimed_section_of_a_disabled_pack_says_so(env: Env) -> None:
    path = env.user('[plugins]\ndisabled = ["rho-memory"]\n[memory]\nenabled = true\n')
    env.load()
    assert env.warnings == [
        f"{path}: no loaded plugin reads [memory]; rho-memory is disabled in [plugins] disabled"
    ]


def test_an_unclaimed_table_close_to_a_registered_section_gets_a_suggestion(env: Env) -> None:
    path = env.project('[greter]\nname = "x"\n[agnet]\nmodel = "m"\n[egress]\nallow = []\n')
    _greeter(env)
    assert env.warnings == [
        f"{path}: no installed plugin reads [greter]; did you mean [greeter]?",
        f"{path}: no installed plugin reads [agnet]; did you mean [agent]?",
        f"{path}: no installed plugin reads [egress]",
    ]


def test_a_hostile_table_name_cannot_forge_a_line(env: Env) -> None:
    env.user('["evil\\nrho: error: forged"]\nx = 1\n')
    env.load()
    (warning,) = env.warnings
    assert "\n" not in warning
    assert '["evil\\nrho: error: forged"]' in warning


def test_a_claimed_section_is_not_reported(env: Env) -> None:
    env.user('[greeter]\nname = "ann"\n')
    env.project("[greeter]\ntimes = 2\n")
    _greeter(env)
    assert env.warnings == []


# ── the kernel's own schema ─────────────────────────────────────────────────


def test_memory_and_extensions_are_no_longer_kernel_sections() -> None:
    import rho_kernel.config as config

    assert "memory" not in RhoConfig.model_fields
    assert "extensions" not in RhoConfig.model_fields
    for name in ("MemoryConfig", "ExtensionsConfig", "ExtensionPermissions"):
        assert not hasattr(config, name)
