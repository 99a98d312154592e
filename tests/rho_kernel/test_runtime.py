"""Runtime assembly: root detection, sessions, system prompt, plugin contributions."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from rho_kernel import hookimpl, tool
from rho_kernel.config import ConfigError, RhoConfig
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.providers import DEFAULT_MODEL, ResolvedProvider
from rho_kernel.providers.resolve import ProviderOrigin
from rho_kernel.runtime import Runtime, RuntimeOptions, StartupError
from rho_kernel.session import Session
from rho_kernel.testing.server import ScriptedServer, free_port


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
    first.session.append_message(ChatMessage.user("hi"))
    first.session.close()
    again = Runtime.build(_options(project, tmp_path, continue_latest=True))
    assert again.session.path == path
    assert [m.role for m in again.session.path_messages()] == ["system", "user"]


def test_sessions_without_a_prompt_leave_no_files(project: Path, tmp_path: Path) -> None:
    runtime = Runtime.build(_options(project, tmp_path))
    first = runtime.session.path
    second = runtime.new_session().path
    third = runtime.new_session().path
    asyncio.run(runtime.aclose())
    assert len({first, second, third}) == 3
    assert list((tmp_path / ".rho").rglob("*.jsonl*")) == []
    with pytest.raises(StartupError, match="no previous session"):
        Runtime.build(_options(project, tmp_path, continue_latest=True))


def test_an_unusable_sessions_folder_is_a_startup_error(project: Path, tmp_path: Path) -> None:
    (tmp_path / ".rho").mkdir()
    (tmp_path / ".rho" / "sessions").write_text("not a folder")
    with pytest.raises(StartupError, match=r"cannot create session folder .*not a folder"):
        Runtime.build(_options(project, tmp_path))


def _session_with_open_calls(project: Path, home: Path) -> Path:
    calls = [
        ToolCall(id=f"call_{n}", function=FunctionCall(name="write_file", arguments="{}"))
        for n in (1, 2, 3)
    ]
    with Session.create(project, home=home) as session:
        session.append_message(ChatMessage.system("sys"))
        session.append_message(ChatMessage.user("write"))
        session.append_message(ChatMessage.assistant("", calls, "tool_calls"))
        session.append_message(ChatMessage.tool_result("call_2", "done", False))
        assert session.path is not None
        return session.path


@pytest.mark.parametrize("how", ["session", "continue", "resume"])
def test_resuming_closes_tool_calls_a_crash_left_open(
    project: Path, tmp_path: Path, how: str
) -> None:
    path = _session_with_open_calls(project, tmp_path)
    if how == "resume":
        runtime = Runtime.build(_options(project, tmp_path))
        runtime.resume(path)
    else:
        flag = {"session_path": path} if how == "session" else {"continue_latest": True}
        runtime = Runtime.build(_options(project, tmp_path, **flag))
    closing = runtime.session.path_messages()[-2:]
    assert [(m.role, m.tool_call_id, m.text, m.is_error) for m in closing] == [
        ("tool", "call_1", "Tool call cancelled.", True),
        ("tool", "call_3", "Tool call cancelled.", True),
    ]
    runtime.session.close()
    with Session.open(path) as reread:
        assert reread.path_messages()[-2:] == closing
        assert reread.close_open_tool_calls() == 0


def test_a_session_open_elsewhere_is_a_startup_error_naming_the_process(
    project: Path, tmp_path: Path
) -> None:
    path = _session_with_open_calls(project, tmp_path)
    with Session.open(path):
        with pytest.raises(StartupError, match=rf"pid {os.getpid()}\b"):
            Runtime.build(_options(project, tmp_path, session_path=path))
        runtime = Runtime.build(_options(project, tmp_path))
        with pytest.raises(StartupError, match="another rho process"):
            runtime.resume(path)
        assert not runtime.session.closed
    assert Runtime.build(_options(project, tmp_path, session_path=path)).session.path == path


def test_resuming_the_current_session_rereads_it(project: Path, tmp_path: Path) -> None:
    runtime = Runtime.build(_options(project, tmp_path))
    runtime.session.append_message(ChatMessage.user("hi"))
    path = runtime.session.path
    assert path is not None
    resumed = runtime.resume(path)
    assert resumed.path == path and not resumed.closed
    assert [m.role for m in resumed.path_messages()] == ["system", "user"]


def _long_session(project: Path, home: Path, turns: int = 200) -> Path:
    """A saved session of `turns` turns, each a read_file call, its result and a reply."""
    runtime = Runtime.build(_options(project, home, model="scripted-model"))
    session = runtime.session
    for n in range(turns):
        session.append_message(ChatMessage.user(f"read part {n}"))
        call = ToolCall(id=f"c{n}", function=FunctionCall(name="read_file", arguments="{}"))
        session.append_message(ChatMessage.assistant("", [call]))
        session.append_message(ChatMessage.tool_result(f"c{n}", "text " * 400, False))
        session.append_message(ChatMessage.assistant(f"part {n} read"))
    path = session.path
    session.close()
    assert path is not None
    return path


def test_loading_a_session_makes_its_context_figures(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rho_kernel.session.estimates as estimates

    path = _long_session(project, tmp_path)
    runtime = Runtime.build(_options(project, tmp_path, model="scripted-model", session_path=path))
    estimated: list[ChatMessage] = []
    original = estimates.approximate_tokens
    monkeypatch.setattr(
        estimates, "approximate_tokens", lambda m: estimated.append(m) or original(m)
    )
    stats = runtime.meter().stats(runtime.session)
    fitted = runtime.fitted_view()
    assert estimated == [] and stats.path_entry_count == 801
    # The fitter's plan was made as the session loaded: this view only looked at it.
    assert fitted is not None and fitted.measured == 0 and not fitted.rebuilt
    assert fitted.evicted > 0  # 200 turns of 2 KB do not fit the default budget


def test_resuming_makes_the_context_figures_of_the_session_it_opens(
    project: Path, tmp_path: Path
) -> None:
    path = _long_session(project, tmp_path, turns=20)
    runtime = Runtime.build(_options(project, tmp_path, model="scripted-model"))
    assert runtime.fitted_view().rebuilt  # type: ignore[union-attr]  # a new session: nothing made ahead
    runtime.resume(path)
    fitted = runtime.fitted_view()
    assert fitted is not None and fitted.measured == 0 and not fitted.rebuilt
    assert len(fitted.messages) == 81


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


def test_a_duplicate_tool_is_skipped_and_the_plugin_loading_first_keeps_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    @tool
    def read_file(path: str) -> str:
        """Clash with rho-tools-fs."""
        return path

    class Clash:
        @hookimpl
        def rho_register_tools(self) -> list[object]:
            return [read_file]

    runtime = Runtime.build(
        _options(project, tmp_path, ephemeral=True, plugin_objects=(("clash", Clash()),))
    )
    # Objects given to the runtime register before entry points such as rho-tools-fs.
    assert runtime.tools.owner("read_file") == "clash"
    assert "write_file" in runtime.tools
    stderr = capsys.readouterr().err
    assert "tool 'read_file' of plugin 'rho-tools-fs' (rho-tools-fs " in stderr
    assert "skipped: plugin 'clash', which loads first" in stderr


def test_disabled_plugin_contributes_nothing(project: Path, tmp_path: Path) -> None:
    (tmp_path / ".rho").mkdir()  # home is tmp_path; a project disables plugins only if trusted
    (tmp_path / ".rho" / "config.toml").write_text('[plugins]\ndisabled = ["rho-tools-fs"]\n')
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True))
    assert "read_file" not in runtime.tools


# ── plugin config sections ──────────────────────────────────────────────────


class _GreeterConfig(BaseModel):
    name: str = "world"
    times: int = 1


class _Greeter:
    """Declares [greeter] and reads it when contributing its tool."""

    def __init__(self) -> None:
        self.seen: list[_GreeterConfig] = []

    @hookimpl
    def rho_register_config_sections(self) -> dict[str, type[BaseModel]]:
        return {"greeter": _GreeterConfig}

    @hookimpl
    def rho_register_tools(self, config: RhoConfig) -> list[object]:
        self.seen.append(config.section("greeter", _GreeterConfig))
        return []


def test_a_plugin_reads_its_section_merged_from_both_files(project: Path, tmp_path: Path) -> None:
    (tmp_path / ".rho").mkdir()  # home is tmp_path
    (tmp_path / ".rho" / "config.toml").write_text('[greeter]\nname = "ann"\ntimes = 2\n')
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text("[greeter]\ntimes = 3\n")
    greeter = _Greeter()
    runtime = Runtime.build(
        _options(project, tmp_path, ephemeral=True, plugin_objects=(("greeter", greeter),))
    )
    assert [(seen.name, seen.times) for seen in greeter.seen] == [("ann", 3)]
    assert runtime.config.section("greeter", _GreeterConfig).times == 3


def test_the_first_party_packs_own_their_sections(project: Path, tmp_path: Path) -> None:
    from rho_ext_js.config import ExtensionsConfig
    from rho_memory.config import MemoryConfig

    (tmp_path / ".rho").mkdir()
    (tmp_path / ".rho" / "config.toml").write_text(
        '[memory]\nenabled = true\n[extensions]\nenabled = ["docs"]\n'
    )
    config = Runtime.build(_options(project, tmp_path, ephemeral=True)).config
    assert config.section("memory", MemoryConfig).enabled is True
    assert config.section("extensions", ExtensionsConfig).enabled == ["docs"]


def test_a_section_declared_twice_is_a_startup_error_naming_both(
    project: Path, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError) as info:
        Runtime.build(
            _options(
                project,
                tmp_path,
                ephemeral=True,
                plugin_objects=(("greeter-a", _Greeter()), ("greeter-b", _Greeter())),
            )
        )
    assert "[greeter]" in str(info.value)
    assert "'greeter-a'" in str(info.value) and "'greeter-b'" in str(info.value)


def test_a_plugin_whose_declaration_fails_is_reported_and_rho_starts(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    class Broken:
        @hookimpl
        def rho_register_config_sections(self) -> dict[str, type[BaseModel]]:
            raise RuntimeError("no sections today")

    (tmp_path / ".rho").mkdir()
    (tmp_path / ".rho" / "config.toml").write_text("[broken]\nx = 1\n")
    Runtime.build(_options(project, tmp_path, ephemeral=True, plugin_objects=(("b", Broken()),)))
    err = capsys.readouterr().err
    assert "plugin 'b' failed in rho_register_config_sections: no sections today" in err
    assert "no installed plugin reads [broken]" in err


def _config(project: Path, text: str) -> None:
    """Write the user config (home is the project's parent in these tests): provider settings
    from a project's own config apply only once the user trusts the project."""
    home = project.parent
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text(text)


def test_unknown_api_of_the_active_provider_is_a_startup_error(
    project: Path, tmp_path: Path
) -> None:
    _config(
        project,
        '[agent]\nmodel = "m"\n\n[[providers]]\nname = "r"\napi = "bogus"\n'
        'endpoint = "http://localhost:9/v1/bogus"\n',
    )
    with pytest.raises(StartupError, match=r"'r' uses api \"bogus\".*chat_completions"):
        Runtime.build(_options(project, tmp_path, ephemeral=True))


def test_unknown_api_of_another_provider_is_a_warning(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(
        project,
        '[agent]\nmodel = "m"\n\n[[providers]]\nname = "ok"\nendpoint = "http://localhost:9/v1"\n'
        '\n[[providers]]\nname = "odd"\napi = "bogus"\nendpoint = "http://localhost:8/v1"\n',
    )
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True))
    assert runtime.provider.name == "ok"
    assert "rho: warning: provider 'odd' uses api \"bogus\"" in capsys.readouterr().err


@pytest.mark.parametrize(
    "endpoint", ["localhost:1234/v1/chat/completions", "ftp://localhost/v1", "http:///v1"]
)
def test_active_endpoint_that_is_not_an_http_url_is_a_startup_error(
    project: Path, tmp_path: Path, endpoint: str
) -> None:
    _config(
        project, f'[agent]\nmodel = "m"\n\n[[providers]]\nname = "p"\nendpoint = "{endpoint}"\n'
    )
    with pytest.raises(StartupError, match="provider 'p': endpoint"):
        Runtime.build(_options(project, tmp_path, ephemeral=True))


def test_unset_api_key_variable_is_a_warning_naming_it(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RHO_TEST_NO_SUCH_KEY", raising=False)
    Runtime.build(
        _options(
            project,
            tmp_path,
            ephemeral=True,
            model="m",
            endpoint="http://localhost:9/v1/chat/completions",
            api_key_env="RHO_TEST_NO_SUCH_KEY",
        )
    )
    err = capsys.readouterr().err
    assert "rho: warning: provider 'localhost'" in err and "RHO_TEST_NO_SUCH_KEY" in err


# ── first run: the model a local server has loaded ──────────────────────────


def test_first_run_uses_the_model_the_local_server_has_loaded(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RHO_MODEL", raising=False)
    listing = {"data": [{"id": "idle", "state": "not-loaded"}, {"id": "busy", "state": "loaded"}]}
    with ScriptedServer(models_body=listing) as server:
        _config(project, f'[[providers]]\nname = "lm"\nendpoint = "{server.chat_url}"\n')
        runtime = Runtime.build(_options(project, tmp_path, ephemeral=True))
    assert runtime.model == "busy"
    assert [(r.method, r.path) for r in server.requests] == [("GET", "/v1/models")]


def test_first_run_without_an_answer_chooses_no_model_and_says_how_to_choose_one(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RHO_MODEL", raising=False)
    endpoint = f"http://127.0.0.1:{free_port()}/v1/chat/completions"
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True, endpoint=endpoint))
    problem = runtime.model_problem or ""
    assert runtime.model == "" and DEFAULT_MODEL not in problem
    assert problem.startswith(f"no model is loaded at {endpoint}: nothing answers there (conn")
    assert "--model ID" in problem and "[agent] model" in problem
    assert problem.endswith("or check the URL given to --endpoint.")
    assert capsys.readouterr().err == ""  # the front end says it (the server on stderr)


def _lm_studio(port: int = 1234, origin: ProviderOrigin = "default") -> ResolvedProvider:
    return ResolvedProvider(
        name="local",
        endpoint=f"http://localhost:{port}/v1/chat/completions",
        api="chat_completions",
        api_key_env=None,
        default_model=None,
        models_endpoint=f"http://localhost:{port}/v1/models",
        origin=origin,
    )


def test_the_message_fits_the_server_and_what_it_answered() -> None:
    from rho_kernel.providers.local_model import no_model_message

    empty = no_model_message(_lm_studio())
    assert empty.startswith(
        "no model is loaded at http://localhost:1234/v1/chat/completions, rho's default "
        "endpoint: its model list (http://localhost:1234/v1/models) is empty. Load one in "
        "LM Studio, or name one with --model ID"
    )
    refused = no_model_message(
        _lm_studio(11434, "config"),
        "http://localhost:11434/v1/models did not answer: connection refused",
    )
    assert "nothing answers there (connection refused). Start Ollama and load" in refused
    assert refused.endswith(
        "or correct the endpoint of provider 'local' ([[providers]] in config.toml)."
    )
    unreadable = no_model_message(
        _lm_studio(8080), "http://localhost:8080/v1/models answered HTTP 404"
    )
    assert unreadable.startswith("no model is named, and rho cannot tell which one")
    assert "(http://localhost:8080/v1/models answered HTTP 404)" in unreadable


def test_first_run_against_an_empty_listing_or_an_error_chooses_no_model(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RHO_MODEL", raising=False)
    with ScriptedServer() as empty, ScriptedServer(models_status=404) as missing:
        listed = Runtime.build(_options(project, tmp_path, ephemeral=True, endpoint=empty.chat_url))
        unread = Runtime.build(
            _options(project, tmp_path, ephemeral=True, endpoint=missing.chat_url)
        )
        listing = empty.models_url
    assert listed.model == unread.model == ""
    assert f"its model list ({listing}) is empty" in (listed.model_problem or "")
    assert "answered HTTP 404" in (unread.model_problem or "")


def test_a_named_model_is_used_without_asking_the_server(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ScriptedServer(models=["listed"]) as server:
        options = _options(project, tmp_path, ephemeral=True, endpoint=server.chat_url)
        monkeypatch.setenv("RHO_MODEL", "from-env")
        assert Runtime.build(options).model == "from-env"
        monkeypatch.delenv("RHO_MODEL")
        _config(project, '[agent]\nmodel = "configured"\n')
        assert Runtime.build(options).model == "configured"
    assert server.requests == []


def test_an_external_provider_is_never_asked_for_its_model(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RHO_MODEL", raising=False)
    endpoint = "https://rho-test.invalid/v1/chat/completions"
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True, endpoint=endpoint))
    assert runtime.model == DEFAULT_MODEL
    assert "no model is named" not in capsys.readouterr().err


def test_another_provider_with_an_unusable_endpoint_is_a_warning_not_a_consent_case(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(
        project,
        '[agent]\nmodel = "m"\n\n[[providers]]\nname = "ok"\nendpoint = "http://localhost:9/v1"\n'
        '\n[[providers]]\nname = "typo"\nendpoint = "htp://me:pw@api.example.com/v1"\n',
    )
    runtime = Runtime.build(_options(project, tmp_path, ephemeral=True))
    assert [p.name for p in runtime.providers] == ["ok", "typo"]
    err = capsys.readouterr().err
    assert "rho: warning: provider 'typo': endpoint 'htp://***@api.example.com/v1'" in err
    assert "pw@" not in err
