"""What a start announces before its runtime loads is what the loaded runtime has: the same
root, provider, model and session file, for every kind of config `early_start` answers for;
where only the load can tell, it answers None."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_kernel import SandboxError
from rho_kernel.early_start import early_start
from rho_kernel.frontend import Runtime, RuntimeOptions

EXTERNAL = 'endpoint = "https://models.example.com/v1/chat/completions"\n'

#: (id, user config, project config, flags, environment) of starts `early_start` answers.
ANSWERED = [
    ("nothing-configured", "", "", {"model": "m"}, {}),
    ("preset-default-model", '[[providers]]\npreset = "lm-studio"\ndefault_model = "x"\n', "", {}, {}),
    ("ollama-by-name",
     '[agent]\nprovider = "second"\n[[providers]]\npreset = "lm-studio"\n'
     '[[providers]]\nname = "second"\npreset = "ollama"\ndefault_model = "llama"\n', "", {}, {}),
    ("external-with-consent",
     f'[[providers]]\nname = "far"\n{EXTERNAL}default_model = "big"\n', "",
     {"accept_external_provider": True}, {}),
    ("zai-coding-preset", '[[providers]]\npreset = "zai-coding"\n', "",
     {"accept_external_provider": True}, {}),
    ("endpoint-flag-takes-a-configured-default",
     '[[providers]]\npreset = "lm-studio"\ndefault_model = "from-config"\n', "",
     {"endpoint": "http://127.0.0.1:5/v1/chat/completions"}, {}),
    ("project-model-untrusted", '[agent]\nmodel = "user-model"\n',
     '[agent]\nmodel = "project-model"\n', {}, {}),
    ("project-empty-model", '[agent]\nmodel = "user-model"\n', '[agent]\nmodel = ""\n',
     {"model": "flag-model"}, {}),
    ("legacy-provider-table", '[provider]\nname = "old"\npreset = "ollama"\n', "",
     {"model": "m"}, {}),
    ("type-names-it", '[[providers]]\ntype = "vllm"\nendpoint = "http://localhost:8000/v1"\n',
     "", {"model": "m"}, {}),
    ("host-names-it", '[[providers]]\nendpoint = "http://127.0.0.1:8000/v1/chat/completions"\n',
     "", {"model": "m"}, {}),
    ("model-from-environment", "", "", {}, {"RHO_MODEL": "env-model"}),
    ("ephemeral", "", "", {"model": "m", "ephemeral": True}, {}),
    ("other-sections-pass", '[shell]\ntimeout_secs = 30\n[memory]\nenabled = true\n',
     '[sandbox]\nnetwork = true\n', {"model": "m"}, {}),
]  # fmt: skip

#: Starts only the load can tell (the load may also refuse them).
UNSURE = [
    ("no-model-local-server", "", "", {}, {}),
    ("external-without-consent", f"[[providers]]\n{EXTERNAL}", "", {"model": "m"}, {}),
    ("project-providers", "", '[[providers]]\npreset = "ollama"\n', {"model": "m"}, {}),
    ("project-agent-provider", "", '[agent]\nprovider = "x"\n', {"model": "m"}, {}),
    ("model-of-another-type", "[agent]\nmodel = 5\n", "", {}, {}),
    ("unknown-provider-name", '[agent]\nprovider = "nope"\n', "", {"model": "m"}, {}),
    ("plugin-api", '[[providers]]\napi = "pigeon"\n', "", {"model": "m"}, {}),
    ("plugin-compaction", '[agent]\ncompaction_mode = "mine"\n', "", {"model": "m"}, {}),
    ("broken-toml", "[agent\n", "", {"model": "m"}, {}),
    ("resumed", "", "", {"model": "m", "resumes": True}, {}),
]  # fmt: skip


def _write(project: Path, home: Path, user: str, own: str) -> None:
    (home / ".rho").mkdir(parents=True, exist_ok=True)
    (home / ".rho" / "config.toml").write_text(user)
    if own:
        (project / ".rho").mkdir(exist_ok=True)
        (project / ".rho" / "config.toml").write_text(own)


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.delenv("RHO_MODEL", raising=False)
    monkeypatch.setenv("HOME", str(home))
    return project, home


@pytest.mark.parametrize(("user", "own", "flags", "env"), [c[1:] for c in ANSWERED],
                         ids=[c[0] for c in ANSWERED])  # fmt: skip
def test_what_is_announced_is_what_the_runtime_loads_with(
    places: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    user: str,
    own: str,
    flags: dict[str, object],
    env: dict[str, str],
) -> None:
    project, home = places
    _write(project, home, user, own)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    early = early_start(cwd=project, home=home, **flags)  # type: ignore[arg-type]
    assert early is not None
    options = RuntimeOptions(
        cwd=project,
        home=home,
        model=flags.get("model"),  # type: ignore[arg-type]
        endpoint=flags.get("endpoint"),  # type: ignore[arg-type]
        accept_external_provider=bool(flags.get("accept_external_provider")),
        ephemeral=bool(flags.get("ephemeral")),
        new_session=early.new_session,
    )
    runtime = Runtime.build(options)
    try:
        assert (early.root, early.provider, early.model) == (
            runtime.root.path,
            runtime.provider.name,
            runtime.model,
        )
        assert runtime.model_problem is None
        assert early.session_path == runtime.session.path
        if early.session_path is not None:  # the file appears with the first prompt
            assert not early.session_path.exists()
    finally:
        runtime.session.close()


@pytest.mark.parametrize(("user", "own", "flags", "env"), [c[1:] for c in UNSURE],
                         ids=[c[0] for c in UNSURE])  # fmt: skip
def test_only_the_load_tells_where_the_files_leave_doubt(
    places: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    user: str,
    own: str,
    flags: dict[str, object],
    env: dict[str, str],
) -> None:
    project, home = places
    _write(project, home, user, own)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert early_start(cwd=project, home=home, **flags) is None  # type: ignore[arg-type]


def test_a_root_in_rhos_own_folder_is_left_to_the_load(places: tuple[Path, Path]) -> None:
    project, home = places
    inside = home / ".rho" / "sessions"
    inside.mkdir(parents=True)
    assert early_start(cwd=project, root=inside, home=home, model="m") is None
    with pytest.raises(SandboxError):
        Runtime.build(RuntimeOptions(cwd=project, root=inside, home=home, model="m"))


@pytest.mark.parametrize("kind", ["fifo", "not-utf-8", "too-deep", "directory"])
def test_a_hostile_project_config_is_left_to_the_load(places: tuple[Path, Path], kind: str) -> None:
    project, home = places
    config = project / ".rho" / "config.toml"
    config.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(config)  # nobody writes to it: reading it must not wait
    elif kind == "not-utf-8":
        config.write_bytes(b'[agent]\nmodel = "\xff\xfe"\n')
    elif kind == "too-deep":
        config.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    else:
        config.mkdir()
    assert early_start(cwd=project, home=home, model="m") is None


def test_the_presets_and_local_hosts_are_those_the_resolution_knows() -> None:
    from rho_kernel.early_start import PRESET_PLACES, is_local_endpoint
    from rho_kernel.providers.resolve import PRESETS
    from rho_kernel.providers.resolve import is_local_endpoint as resolved_local

    assert {key: (p.name, p.endpoint) for key, p in PRESETS.items()} == PRESET_PLACES
    assert all(p.api in ("chat_completions", "responses") for p in PRESETS.values())
    for url in (
        "http://localhost:1/v1",
        "http://a.localhost/v1",
        "http://127.9.9.9/v1",
        "http://[::1]:8/v1",
        "http://0.0.0.0/v1",
        "https://localhost.example.com/v1",
        "http://[::1/v1",
        "http://10.0.0.1/v1",
    ):
        assert is_local_endpoint(url) == resolved_local(url), url
