"""A third-party plugin's config section through the real `rho` process.

The plugin is installed the way a wheel would be: a `*.dist-info` with `entry_points.txt` and
its module on PYTHONPATH. It declares `[greeter]` and contributes a read tool that answers
with what it reads from `config.section("greeter", GreeterConfig)`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rho_process import RhoProcess, install_plugin, plugin_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

PLUGIN = '''
from __future__ import annotations

import json
from typing import Annotated

from pydantic import BaseModel, Field

from rho_kernel import ToolContext, hookimpl, tool
from rho_kernel.config import Additive, NeedsTrust, UserOnly, turns_on


class GreeterConfig(BaseModel):
    greeting: str = "hello"
    name: str = "world"
    times: int = Field(1, ge=1)
    loud: Annotated[bool, NeedsTrust(turns_on)] = False
    token_env: Annotated[str | None, UserOnly()] = None
    banned: Annotated[list[str], Additive()] = Field(default_factory=list)


@tool(risk="read")
def greet(ctx: ToolContext) -> str:
    """Greet as configured."""
    return json.dumps(ctx.config.section("greeter", GreeterConfig).model_dump(), sort_keys=True)


@hookimpl
def rho_register_config_sections():
    return {"greeter": GreeterConfig}


@hookimpl
def rho_register_tools():
    return [greet]
'''

#: A second plugin that also claims [greeter].
RIVAL = """
from pydantic import BaseModel

from rho_kernel import hookimpl


class Rival(BaseModel):
    name: str = "rival"


@hookimpl
def rho_register_config_sections():
    return {"greeter": Rival}
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    install_plugin(path, "greeter_rho_plugin", "greeter", PLUGIN)
    return path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _assert_failed_cleanly(process: RhoProcess) -> str:
    assert process.finish() == 2
    stderr = process.stderr_text()
    assert stderr.startswith("rho: error: ") and "Traceback" not in stderr
    assert process.raw == []
    return stderr


def test_a_plugin_section_is_validated_merged_and_read_by_its_tool(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, site: Path, home: Path, project: Path
) -> None:
    _write(
        home / ".rho" / "config.toml",
        '[greeter]\ngreeting = "hi"\nname = "ann"\ntimes = 2\ntoken_env = "MY_TOKEN"\n'
        'banned = ["spam"]\n',
    )
    project_file = _write(
        project / ".rho" / "config.toml",
        '[greeter]\nname = "bob"\nloud = true\ntoken_env = "AWS_SECRET_ACCESS_KEY"\n'
        'banned = ["eggs"]\n',
    )
    server.add(tool_call_reply("greet", {}), text_reply("greeted"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=plugin_env(site, "greeter", "rival"))
    assert rho.call("prompt", {"message": "greet"})["result"]["reply"] == "greeted"
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert result["name"] == "greet" and result["is_error"] is False
    assert json.loads(result["output"]) == {
        "greeting": "hi",  # the user's
        "name": "bob",  # the project's, over the user's
        "times": 2,
        "loud": False,  # loosening: the project is not trusted
        "token_env": "MY_TOKEN",  # user config only
        "banned": ["spam", "eggs"],  # additive
    }
    assert "approval/request" not in rho.methods_seen()
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert (
        f"rho: warning: {project_file}: ignored settings that need trust (greeter.loud = true)"
        in stderr
    )
    assert "only your own config may set (greeter.token_env" in stderr
    assert "unknown key" not in stderr and "Traceback" not in stderr


def test_an_invalid_value_in_a_plugin_section_is_exit_2_naming_file_and_key(  # type: ignore[no-untyped-def]
    start_rho, site: Path, home: Path, project: Path
) -> None:
    _write(home / ".rho" / "config.toml", '[greeter]\nname = "ann"\n')
    path = _write(project / ".rho" / "config.toml", '[greeter]\ntimes = "twice"\n')
    process = start_rho("--ephemeral", env=plugin_env(site, "greeter", "rival"))
    stderr = _assert_failed_cleanly(process)
    assert stderr == (f"rho: error: {path}: greeter.times: expected an integer, got 'twice'\n")


def test_an_unclaimed_first_party_section_warns_once(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path
) -> None:
    # Without entry points, rho-memory's plugin is not loaded: nothing reads [memory].
    path = _write(
        home / ".rho" / "config.toml",
        "[memory]\nenabled = true\nsize = 3\n",
    )
    rho = start_scripted(start_rho, server, "--ephemeral", env={"RHO_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert rho.finish() == 0
    lines = [line for line in rho.stderr_text().splitlines() if "[memory]" in line]
    # rho-memory is installed: the hint says why it is not loaded, never "install" it.
    assert lines == [
        f"rho: warning: {path}: no loaded plugin reads [memory]; rho-memory is installed but "
        "not loaded: RHO_DISABLE_PLUGIN_AUTOLOAD is set; unset it to load installed plugins"
    ]


AUTOLOADED_PACKS = [
    ("memory", "rho-memory"),
    ("rust", "rho-tools-rust"),
    ("extensions", "rho-ext-js"),
]


def test_with_autoload_off_each_installed_pack_is_named_as_not_loaded(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, project: Path
) -> None:
    # One config holds every pack's table (a rho per table cost ~0.7 s of CPU): each is
    # warned about on its own line.
    path = _write(
        project / ".rho" / "config.toml", "".join(f"[{t}]\n" for t, _ in AUTOLOADED_PACKS)
    )
    env = {"RHO_DISABLE_PLUGIN_AUTOLOAD": "yes; install evil-pack"}  # the value is never shown
    rho = start_scripted(start_rho, server, "--ephemeral", env=env)
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    for table, pack in AUTOLOADED_PACKS:
        assert (
            f"rho: warning: {path}: no loaded plugin reads [{table}]; {pack} is installed but not "
            "loaded: RHO_DISABLE_PLUGIN_AUTOLOAD is set; unset it to load installed plugins\n"
        ) in stderr, table
        assert f"install {pack}" not in stderr, table
    assert "evil" not in stderr


def test_an_unknown_key_in_a_plugin_section_warns_with_a_suggestion(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, site: Path, project: Path
) -> None:
    path = _write(project / ".rho" / "config.toml", '[greeter]\nnmae = "bob"\n')
    rho = start_scripted(start_rho, server, "--ephemeral", env=plugin_env(site, "greeter", "rival"))
    assert rho.finish() == 0
    assert (
        f"rho: warning: {path}: unknown key 'greeter.nmae' ignored; did you mean 'greeter.name'?"
        in rho.stderr_text()
    )


def test_a_section_claimed_by_two_plugins_is_exit_2_naming_both(  # type: ignore[no-untyped-def]
    start_rho, site: Path
) -> None:
    install_plugin(site, "rival_rho_plugin", "rival", RIVAL)
    process = start_rho("--ephemeral", env=plugin_env(site, "greeter", "rival"))
    stderr = _assert_failed_cleanly(process)
    assert "config section [greeter] is declared by both" in stderr
    assert "plugin 'greeter'" in stderr and "plugin 'rival'" in stderr
