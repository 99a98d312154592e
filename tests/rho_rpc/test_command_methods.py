"""`listCommands` and `executeCommand` over the commands plugins offer through
`rho_register_commands`: sources, ambiguity, failures, and broken contributions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_kernel import Command, Risk, ToolError, hookimpl
from rho_kernel.rpc import INVALID_PARAMS, RpcError
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_rpc.app import collect_methods
from rho_rpc.command_methods import COMMAND_ERROR
from rho_rpc.protocol.base import NoParams
from rho_rpc.protocol.commands import ExecuteCommandParams


class Echo(Command):
    """Answers with its source, name and arguments."""

    def __init__(self, name: str, source: str = "", risk: Risk | str = Risk.READ) -> None:
        self.name = name
        self.description = f"echo {name}"
        self.source = source
        self.risk = risk  # type: ignore[assignment]

    async def run(self, args: str) -> str:
        return f"{self.source or '?'}/{self.name}: {args}"


class Failing(Command):
    name = "fail"
    description = "fails for the user"
    source = "acme"

    async def run(self, args: str) -> str:
        raise ToolError(f"nothing to deploy ({args})")


class Acme:
    """Offers commands of two sources, one of them named like another plugin's."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def rho_register_commands(self, runtime: Runtime) -> list[Command]:
        self.calls += 1
        return [Echo("deploy", "acme", Risk.WRITE), Echo("hello"), Failing()]


class Other:
    @hookimpl
    def rho_register_commands(self) -> list[Command]:
        return [Echo("deploy", "extension:other")]


class Broken:
    @hookimpl
    def rho_register_commands(self) -> list[Command]:
        raise RuntimeError("no commands today")


class Garbage:
    @hookimpl
    def rho_register_commands(self) -> list[Any]:
        return [
            "not a command",
            Echo(""),
            Echo("risky", "garbage", risk="fatal"),
            Echo("twice", "garbage"),
            Echo("twice", "garbage"),
        ]


def _methods(tmp_path: Path, *plugins: tuple[str, object]) -> dict[str, Any]:
    options = RuntimeOptions(
        cwd=tmp_path,
        root=tmp_path,
        home=tmp_path,
        ephemeral=True,
        entry_points=False,
        plugin_modules=(("rho-rpc", "rho_rpc.plugin"),),
        plugin_objects=plugins,
    )
    return dict(collect_methods(Runtime.build(options)))


async def _listed(methods: dict[str, Any]) -> list[dict[str, Any]]:
    result = await methods["listCommands"].handler(NoParams())
    commands: list[dict[str, Any]] = result.model_dump(mode="json", exclude_none=True)["commands"]
    return commands


async def _execute(methods: dict[str, Any], **params: Any) -> str:
    result = await methods["executeCommand"].handler(ExecuteCommandParams(**params))
    output: str = result.output
    return output


async def test_every_plugins_commands_are_listed_with_their_source(tmp_path: Path) -> None:
    methods = _methods(tmp_path, ("acme", Acme()), ("other", Other()))
    assert await _listed(methods) == [
        {"name": "deploy", "description": "echo deploy", "risk": "write", "source": "acme"},
        {"name": "hello", "description": "echo hello", "risk": "read", "source": "acme"},
        {"name": "fail", "description": "fails for the user", "risk": "read", "source": "acme"},
        {
            "name": "deploy",
            "description": "echo deploy",
            "risk": "read",
            "source": "extension:other",
            "extension": "other",
        },
    ]


async def test_a_command_runs_with_its_arguments(tmp_path: Path) -> None:
    methods = _methods(tmp_path, ("acme", Acme()))
    assert await _execute(methods, name="hello", args="world") == "?/hello: world"
    assert await _execute(methods, name="deploy") == "acme/deploy: "


async def test_the_hook_is_asked_on_every_request(tmp_path: Path) -> None:
    acme = Acme()
    methods = _methods(tmp_path, ("acme", acme))
    await _listed(methods)
    await _execute(methods, name="hello")
    assert acme.calls == 2


async def test_a_name_two_sources_offer_needs_source(tmp_path: Path) -> None:
    methods = _methods(tmp_path, ("acme", Acme()), ("other", Other()))
    with pytest.raises(RpcError) as raised:
        await _execute(methods, name="deploy")
    assert raised.value.code == INVALID_PARAMS
    assert raised.value.message == (
        "Invalid params: name: 'deploy' is offered by acme, extension:other; say which with source"
    )
    assert await _execute(methods, name="deploy", source="acme") == "acme/deploy: "
    assert await _execute(methods, name="deploy", source="extension:other") == (
        "extension:other/deploy: "
    )
    assert await _execute(methods, name="deploy", extension="other") == "extension:other/deploy: "


async def test_an_unknown_name_or_source_is_invalid_params(tmp_path: Path) -> None:
    methods = _methods(tmp_path, ("acme", Acme()))
    with pytest.raises(RpcError) as raised:
        await _execute(methods, name="nope")
    assert (raised.value.code, raised.value.message) == (
        INVALID_PARAMS,
        "Invalid params: name: no command 'nope' (see listCommands)",
    )
    with pytest.raises(RpcError) as raised:
        await _execute(methods, name="hello", extension="acme")
    assert raised.value.message == (
        "Invalid params: name: no command 'hello' from extension:acme (see listCommands)"
    )


async def test_a_tool_error_is_the_command_error_with_its_message(tmp_path: Path) -> None:
    methods = _methods(tmp_path, ("acme", Acme()))
    with pytest.raises(RpcError) as raised:
        await _execute(methods, name="fail", args="v2")
    assert (raised.value.code, raised.value.message) == (COMMAND_ERROR, "nothing to deploy (v2)")
    assert COMMAND_ERROR == -32020  # the code executeCommand always had


async def test_a_raising_plugin_is_reported_and_the_others_commands_stay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    methods = _methods(tmp_path, ("broken", Broken()), ("acme", Acme()))
    assert [c["name"] for c in await _listed(methods)] == ["deploy", "hello", "fail"]
    assert await _execute(methods, name="hello") == "?/hello: "
    err = capsys.readouterr().err
    assert "plugin 'broken' failed in rho_register_commands: no commands today" in err


async def test_broken_commands_are_reported_once_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    methods = _methods(tmp_path, ("garbage", Garbage()))
    assert await _listed(methods) == [
        {"name": "twice", "description": "echo twice", "risk": "read", "source": "garbage"}
    ]
    await _listed(methods)
    err = capsys.readouterr().err
    for problem in (
        "an object of type str, which is not a Command",
        "a command named ''; a command's name is non-empty text",
        "command 'risky', whose risk 'fatal' is none of read, write, destructive, network",
        "command 'twice' of source 'garbage' twice",
    ):
        assert err.count(f"plugin 'garbage' offered {problem} (skipped)") == 1, problem


async def test_without_any_command_the_methods_answer_plainly(tmp_path: Path) -> None:
    methods = _methods(tmp_path)
    assert await _listed(methods) == []
    with pytest.raises(RpcError) as raised:
        await _execute(methods, name="deploy")
    assert raised.value.code == INVALID_PARAMS


def test_list_commands_is_concurrent_and_execute_command_serial(tmp_path: Path) -> None:
    methods = _methods(tmp_path)
    assert (methods["listCommands"].concurrent, methods["executeCommand"].concurrent) == (
        True,
        False,
    )
