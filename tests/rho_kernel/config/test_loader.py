"""The two-file config loader: locations, errors, merging, legacy provider, unknown keys."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rho_kernel.config import (
    ConfigError,
    ProviderConfig,
    RhoConfig,
    load_config,
    merge_config_dicts,
    project_config_path,
    user_config_path,
)

if TYPE_CHECKING:
    from conftest import Env  # the fixture's type, from this folder's conftest.py

# ── locations ───────────────────────────────────────────────────────────────


def test_user_config_path_explicit_home(tmp_path: Path) -> None:
    assert user_config_path(tmp_path) == tmp_path / ".rho" / "config.toml"


def test_user_config_path_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "u"))
    assert user_config_path() == tmp_path / "h" / ".rho" / "config.toml"
    monkeypatch.delenv("HOME")
    assert user_config_path() == tmp_path / "u" / ".rho" / "config.toml"
    monkeypatch.delenv("USERPROFILE")
    assert user_config_path() == Path("/tmp/.rho/config.toml")


def test_project_config_path(tmp_path: Path) -> None:
    assert project_config_path(tmp_path) == tmp_path / ".rho" / "config.toml"


# ── reading ─────────────────────────────────────────────────────────────────


def test_missing_files_give_defaults(env: Env) -> None:
    config = env.load()
    assert config == RhoConfig()
    assert config.agent.max_iterations == 32
    assert env.warnings == []


def test_default_lists_and_tables_are_not_shared(env: Env) -> None:
    """Every config gets its own empty lists and tables: changing one changes no other."""
    first, second = env.load(), RhoConfig()
    first.shell.denied_commands.append("rm")
    first.approval.per_tool["run_command"] = "auto"
    first.providers.append(ProviderConfig(name="p"))
    first.plugins.disabled.append("x")
    assert second == RhoConfig() == env.load()
    assert second.shell.denied_commands == [] and second.approval.per_tool == {}
    assert second.providers == [] and second.plugins.disabled == []


def test_kernel_models_use_no_builtin_default_factories() -> None:
    """`default_factory=list` (or dict, set) costs a signature parse per field at every
    start; an empty `[]` or `{}` default does the same job (see the test above)."""
    from pydantic import BaseModel

    from rho_kernel.config.nesting import field_nesting

    seen: list[type[BaseModel]] = []
    todo: list[type[BaseModel]] = [RhoConfig]
    while todo:
        model = todo.pop()
        seen.append(model)
        for name, field in model.model_fields.items():
            assert field.default_factory not in (list, dict, set), f"{model.__name__}.{name}"
            nesting = field_nesting(model, name)
            if nesting is not None and nesting[1] not in seen:
                todo.append(nesting[1])
    assert len(seen) >= 10


def test_empty_files_are_valid(env: Env) -> None:
    env.user("")
    env.project("")
    assert env.load() == RhoConfig()


def test_user_file_alone(env: Env) -> None:
    env.user('[agent]\nmodel = "qwen3-8b"\nmax_iterations = 10\n')
    config = env.load()
    assert config.agent.model == "qwen3-8b"
    assert config.agent.max_iterations == 10


def test_utf8_bom_is_accepted(env: Env) -> None:
    path = project_config_path(env.root)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'\xef\xbb\xbf[agent]\nmodel = "m"\n')
    assert env.load().agent.model == "m"


def test_malformed_toml_names_file_line_and_column(env: Env) -> None:
    path = env.project('[agent]\nmodel = "x"\nmax_iterations = \n')
    with pytest.raises(ConfigError) as info:
        env.load()
    error = info.value
    assert error.file == path
    assert error.key is None
    assert "line 3" in error.problem
    assert "column" in error.problem
    assert str(error).startswith(f"{path}: ")


def test_malformed_user_file_is_named(env: Env) -> None:
    path = env.user("[agent\n")
    env.project('[agent]\nmodel = "fine"\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.file == path


def test_invalid_utf8_is_a_config_error(env: Env) -> None:
    path = project_config_path(env.root)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'[agent]\nmodel = "\xff"\n')
    with pytest.raises(ConfigError, match="UTF-8") as info:
        env.load()
    assert info.value.file == path


def test_config_path_that_is_a_directory(env: Env) -> None:
    project_config_path(env.root).mkdir(parents=True)
    with pytest.raises(ConfigError, match="is a directory"):
        env.load()


# ── validation errors ───────────────────────────────────────────────────────


def test_wrong_type_names_file_key_and_problem(env: Env) -> None:
    path = env.user('[agent]\nmax_iterations = "lots"\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    error = info.value
    assert error.file == path
    assert error.key == "agent.max_iterations"
    assert error.problem == "expected an integer, got 'lots'"
    assert str(error) == f"{path}: agent.max_iterations: expected an integer, got 'lots'"


def test_numeric_string_is_not_an_integer(env: Env) -> None:
    env.project('[agent]\nmax_iterations = "32"\n')
    with pytest.raises(ConfigError, match="expected an integer, got '32'"):
        env.load()


def test_integer_is_not_a_boolean(env: Env) -> None:
    env.project("[agent]\nshow_reasoning = 1\n")
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == "agent.show_reasoning"
    assert info.value.problem == "expected true or false, got 1"


def test_integer_is_accepted_for_a_float(env: Env) -> None:
    env.project("[agent]\nfirst_token_timeout_secs = 120\n")
    assert env.load().agent.first_token_timeout_secs == 120


def test_bad_choice_lists_the_choices(env: Env) -> None:
    path = env.project('[approval.per_tool]\nrun_command = "never"\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.file == path
    assert info.value.key == "approval.per_tool.run_command"
    assert info.value.problem.startswith("must be one of: auto, ask, deny")


@pytest.mark.parametrize(("written", "kept"), [("false", False), ('"off"', "off"), ("true", True)])
def test_cache_hints_take_a_boolean_or_a_style(env: Env, written: str, kept: object) -> None:
    env.user(f'[[providers]]\nname = "x"\ncache_hints = {written}\n')
    assert env.load().providers[0].cache_hints == kept


@pytest.mark.parametrize(("written", "got"), [('"sometimes"', "'sometimes'"), ("1", "1")])
def test_a_value_no_member_of_a_union_takes_is_one_plain_problem(
    env: Env, written: str, got: str
) -> None:
    env.user(f'[[providers]]\nname = "x"\ncache_hints = {written}\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == "providers[0].cache_hints"
    assert info.value.problem == (
        "expected true or false, or one of: auto, off, prompt_cache_key, openrouter, "
        f"cache_control, got {got}"
    )
    env.user('[sandbox]\nrequire = "later"\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert (info.value.key, info.value.problem) == (
        "sandbox.require",
        "expected true or false, or one of: ask, got 'later'",
    )


def test_error_in_provider_array_uses_index(env: Env) -> None:
    env.project(
        '[[providers]]\npreset = "openrouter"\n\n[[providers]]\nname = "x"\napi = "Chat Completions!"\n'
    )
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == "providers[1].api"
    assert "pattern" in info.value.problem or "match" in info.value.problem


def test_out_of_range_value(env: Env) -> None:
    env.project("[agent]\nauto_compact_threshold = 150\n")
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == "agent.auto_compact_threshold"
    assert info.value.problem == "must be at most 100, got 150"


def test_section_of_wrong_type(env: Env) -> None:
    env.project('agent = "fast"\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == "agent"
    assert info.value.problem == "expected a table, got 'fast'"


def test_nested_list_item_path(env: Env) -> None:
    env.project('[shell]\ndenied_flag_combos = [["-a", 3]]\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == "shell.denied_flag_combos[0][1]"
    assert info.value.problem == "expected a string, got 3"


def test_several_problems_are_counted(env: Env) -> None:
    env.project('[agent]\nmax_iterations = "a"\nretry_budget = "b"\n')
    with pytest.raises(ConfigError, match=r"\(and 1 more problem\)"):
        env.load()


def test_quoted_keys_are_quoted_in_the_key_path(env: Env) -> None:
    env.project('[approval.per_tool]\n"my.tool" = "sometimes"\n')
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.key == 'approval.per_tool."my.tool"'


def test_each_file_is_validated_on_its_own(env: Env) -> None:
    # The project would override the bad user value, but the user file is still wrong.
    path = env.user('[agent]\nmax_iterations = "many"\n')
    env.project("[agent]\nmax_iterations = 5\n")
    with pytest.raises(ConfigError) as info:
        env.load()
    assert info.value.file == path


def test_config_error_without_file_or_key() -> None:
    assert str(ConfigError(None, "agent.model", "bad")) == "agent.model: bad"
    assert str(ConfigError(Path("/x.toml"), None, "bad")) == "/x.toml: bad"


# ── merging through files ───────────────────────────────────────────────────


def test_project_overrides_user_per_field(env: Env) -> None:
    env.user('[agent]\nmodel = "user-model"\nmax_iterations = 10\n')
    env.project("[agent]\nmax_iterations = 20\n")
    config = env.load()
    assert config.agent.model == "user-model"
    assert config.agent.max_iterations == 20


def test_project_list_replaces_user_list(env: Env) -> None:
    env.user('[context]\nscan_list = ["A.md", "B.md"]\n[redaction]\ncustom_patterns = ["x"]\n')
    env.project('[context]\nscan_list = ["C.md"]\n')
    config = env.load()
    assert config.context.scan_list == ["C.md"]
    assert config.redaction.custom_patterns == ["x"]


@pytest.mark.parametrize("trusted", [False, True])
def test_additive_lists_extend_the_users_and_never_shrink(env: Env, trusted: bool) -> None:
    env.user(
        '[shell]\ndenied_commands = ["a", "b"]\ndenied_flag_combos = [["-r", "-f"]]\n'
        '[redaction]\ncustom_patterns = ["x"]\n[plugins]\ndisabled = ["p1"]\n'
    )
    env.project(
        '[shell]\ndenied_commands = ["b", "c"]\ndenied_flag_combos = [["-x", "-y"]]\n'
        '[redaction]\ncustom_patterns = []\n[plugins]\ndisabled = ["p2"]\n'
    )
    if trusted:
        env.trust()
    config = env.load()
    assert config.shell.denied_commands == ["a", "b", "c"]
    assert config.shell.denied_flag_combos == [["-r", "-f"], ["-x", "-y"]]
    assert config.redaction.custom_patterns == ["x"]
    # Disabling a plugin could switch off a guard: only a trusted project adds to the list.
    assert config.plugins.disabled == (["p1", "p2"] if trusted else ["p1"])


def test_providers_merge_by_name(env: Env) -> None:
    env.user(
        '[[providers]]\npreset = "lm-studio"\n\n'
        '[[providers]]\nname = "work"\nendpoint = "https://a.example/v1/chat/completions"\n'
        'api_key_env = "A_KEY"\ndefault_model = "a"\n\n'
        '[[providers]]\npreset = "openrouter"\napi_key_env = "OPENROUTER_API_KEY"\n'
    )
    env.project(
        '[[providers]]\nname = "work"\nendpoint = "https://b.example/v1/chat/completions"\n\n'
        '[[providers]]\npreset = "groq"\n'
    )
    env.trust()
    providers = env.load().providers
    assert [p.name or p.preset for p in providers] == ["lm-studio", "work", "openrouter", "groq"]
    work = providers[1]
    assert work.endpoint == "https://b.example/v1/chat/completions"
    # Replaced entirely: the user's key and model do not survive.
    assert work.api_key_env is None
    assert work.default_model is None


def test_user_providers_kept_without_project_providers(env: Env) -> None:
    env.user('[[providers]]\npreset = "ollama"\n')
    env.project('[agent]\nmodel = "m"\n')
    assert [p.preset for p in env.load().providers] == ["ollama"]


def test_approval_table_of_a_trusted_project_is_replaced_wholesale(env: Env) -> None:
    env.user('[approval.per_tool]\nread_file = "ask"\nrun_command = "auto"\n')
    env.project('[approval.per_tool]\nwrite_file = "auto"\n')
    env.trust()
    assert env.load().approval.per_tool == {"write_file": "auto"}


def test_approval_from_user_kept_when_project_silent(env: Env) -> None:
    env.user('[approval.per_tool]\nrun_command = "deny"\n')
    env.project("[agent]\nmax_iterations = 3\n")
    config = env.load()
    assert config.approval.per_tool == {"run_command": "deny"}
    assert config.agent.max_iterations == 3


def test_legacy_provider_used_without_providers(env: Env) -> None:
    env.user('[provider]\nendpoint = "http://localhost:1234/v1/chat/completions"\n')
    config = env.load()
    assert [p.endpoint for p in config.providers] == ["http://localhost:1234/v1/chat/completions"]


def test_legacy_provider_ignored_when_providers_exist(env: Env) -> None:
    env.user('[provider]\nendpoint = "http://legacy.example/v1/chat/completions"\n')
    env.project('[[providers]]\npreset = "openrouter"\n')
    env.trust()
    providers = env.load().providers
    assert [p.preset for p in providers] == ["openrouter"]


def test_legacy_provider_merges_per_field(env: Env) -> None:
    env.user('[provider]\nendpoint = "http://a/v1/chat/completions"\napi_key_env = "K"\n')
    env.project('[provider]\nendpoint = "http://b/v1/chat/completions"\n')
    env.trust()
    (provider,) = env.load().providers
    assert provider.endpoint == "http://b/v1/chat/completions"
    assert provider.api_key_env == "K"


def test_home_equal_to_root_reads_the_file_once(tmp_path: Path) -> None:
    path = project_config_path(tmp_path)
    path.parent.mkdir()
    path.write_text('[[providers]]\npreset = "ollama"\n[bogus]\n')
    warnings: list[str] = []
    config = load_config(tmp_path, home=tmp_path, warn=warnings.append)
    assert [p.preset for p in config.providers] == ["ollama"]
    assert len(warnings) == 1


# ── unknown keys ────────────────────────────────────────────────────────────


def test_unknown_keys_are_ignored_but_reported(env: Env) -> None:
    path = env.project(
        'model = "top-level-mistake"\n'
        "[agent]\nmax_iteration = 3\n"
        "[egress]\nallow = []\n"
        '[[providers]]\nname = "x"\nendpont = "http://x"\n'
    )
    env.trust()
    config = env.load()
    assert config.agent.max_iterations == 32
    joined = "\n".join(env.warnings)
    assert len(env.warnings) == 4
    assert all(str(path) in warning for warning in env.warnings)
    assert "'model'" in joined and "did you mean 'agent.model'" in joined
    assert "'agent.max_iteration'" in joined and "did you mean 'agent.max_iterations'" in joined
    assert "no installed plugin reads [egress]" in joined
    assert "'providers[0].endpont'" in joined


def test_unknown_keys_reported_per_file(env: Env) -> None:
    user = env.user("[agent]\ncolour = 1\n")
    project = env.project("[agent]\ncolour = 2\n")
    env.load()
    assert len(env.warnings) == 2
    assert str(user) in env.warnings[0]
    assert str(project) in env.warnings[1]


def test_default_warn_prints_to_stderr(env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    env.project("[nonsense]\nx = 1\n")
    load_config(env.root, home=env.home)
    err = capsys.readouterr().err
    assert err.startswith("rho: warning: ")
    assert "no installed plugin reads [nonsense]" in err


# ── merge_config_dicts directly ─────────────────────────────────────────────


def test_merge_recurses_into_tables() -> None:
    user = {"agent": {"model": "a", "max_iterations": 1}, "memory": {"enabled": True}}
    project = {"agent": {"max_iterations": 2}}
    assert merge_config_dicts(user, project) == {
        "agent": {"model": "a", "max_iterations": 2},
        "memory": {"enabled": True},
    }


def test_merge_does_not_modify_inputs() -> None:
    user = {"agent": {"model": "a"}, "providers": [{"name": "p", "endpoint": "u"}]}
    project = {"agent": {"model": "b"}, "providers": [{"name": "p", "endpoint": "v"}]}
    merged = merge_config_dicts(user, project)
    merged["agent"]["model"] = "changed"
    merged["providers"][0]["endpoint"] = "changed"
    assert user == {"agent": {"model": "a"}, "providers": [{"name": "p", "endpoint": "u"}]}
    assert project == {"agent": {"model": "b"}, "providers": [{"name": "p", "endpoint": "v"}]}


def test_merge_provider_identity_name_then_preset_then_endpoint() -> None:
    user = {
        "providers": [
            {"preset": "openrouter", "api_key_env": "OLD"},
            {"endpoint": "http://e/v1/chat/completions", "default_model": "old"},
            {"name": "n", "preset": "groq"},
        ]
    }
    project = {
        "providers": [
            {"endpoint": "http://e/v1/chat/completions", "default_model": "new"},
            {"preset": "openrouter", "api_key_env": "NEW"},
            {"name": "groq"},  # name "groq" does not match the entry named "n"
        ]
    }
    merged = merge_config_dicts(user, project)["providers"]
    assert merged == [
        {"preset": "openrouter", "api_key_env": "NEW"},
        {"endpoint": "http://e/v1/chat/completions", "default_model": "new"},
        {"name": "n", "preset": "groq"},
        {"name": "groq"},
    ]


def test_merge_providers_from_project_only() -> None:
    assert merge_config_dicts({}, {"providers": [{"name": "a"}]}) == {"providers": [{"name": "a"}]}


def test_merge_lists_replace() -> None:
    merged = merge_config_dicts(
        {"context": {"scan_list": ["A.md", "B.md"]}}, {"context": {"scan_list": []}}
    )
    assert merged == {"context": {"scan_list": []}}
