"""What the installed plugins are and contribute, through the real `rho` process.

Third-party plugins are installed the way a wheel would be: a `*.dist-info` with
`entry_points.txt` and the module on PYTHONPATH.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path
from typing import NamedTuple

import pytest
from rho_process import RHO, RhoProcess, plugin_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

ACME = '''
from pydantic import BaseModel

from rho_kernel import Tool, ToolResult, hookimpl, tool
from rho_kernel.rpc import RpcMethod


@tool(risk="read")
def shout(text: str) -> str:
    """Shout the text back.

    Args:
        text: What to shout.
    """
    return text.upper()


class Counter(Tool):
    name = "count_calls"
    description = "Count how often it was called."
    parameters = {"type": "object", "properties": {}}

    def __init__(self):
        self.calls = 0

    async def execute(self, args, ctx):
        self.calls += 1
        return ToolResult(str(self.calls))


class EchoParams(BaseModel):
    text: str


@hookimpl
def rho_register_tools():
    return [shout, Counter()]


@hookimpl
def rho_register_rpc_methods(runtime):
    async def echo(params):
        return {"text": params.text}

    return [RpcMethod("acme/echo", echo, params_model=EchoParams, summary="Echo.")]


@hookimpl
def rho_after_tool_call(call, result):
    return None
'''

#: Garbage from every registration hook, next to one good tool and one good method.
SLOPPY = '''
from rho_kernel import Tool, ToolResult, hookimpl, tool
from rho_kernel.rpc import RpcMethod


class StringSchema(Tool):
    name = "string_schema"
    description = "Its parameters are a string schema."
    parameters = {"type": "string"}

    async def execute(self, args, ctx):
        return ToolResult("never")


class ListSchema(Tool):
    name = "list_schema"
    description = "Its parameters are a list."
    parameters = ["not", "a", "schema"]

    async def execute(self, args, ctx):
        return ToolResult("never")


class BadName(Tool):
    name = "has spaces\\x1b[31m"
    description = "A name no model API takes."

    async def execute(self, args, ctx):
        return ToolResult("never")


@tool(name="read_file")
def my_read_file(path: str) -> str:
    """Shadow rho's read_file."""
    return "shadowed"


@tool(risk="read")
def sloppy_ok() -> str:
    """The one good tool."""
    return "sloppy ok"


async def handler(params):
    return {}


@hookimpl
def rho_register_tools():
    return ["garbage", 42, StringSchema(), ListSchema(), BadName(), my_read_file, sloppy_ok]


@hookimpl
def rho_register_rpc_methods(runtime):
    return [
        {"name": "notAMethod"},
        RpcMethod("getState", handler),
        RpcMethod("rpc.discover", handler),
        RpcMethod("bad params", handler),
        RpcMethod("sloppy/model", handler, params_model=dict),
        RpcMethod("sloppy/ok", handler, summary="Fine."),
    ]
'''


def _install(site: Path, module: str, dist: str, entry: str, source: str) -> None:
    info = site / f"{module}-0.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(f"[rho]\n{entry} = {module}\n")
    (site / f"{module}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site"
    _install(path, "acme_plugin", "acme-tools", "acme", ACME)
    _install(path, "broken_plugin", "broken-dist", "broken", "import no_such_module_xyz\n")
    return path


class Listing(NamedTuple):
    """One `rho --plugins` run and the home it ran with."""

    done: subprocess.CompletedProcess[str]
    home: Path


@pytest.fixture(scope="module")
def listing(tmp_path_factory: pytest.TempPathFactory) -> Listing:
    """`rho --plugins` with acme and a broken plugin installed, and the user's config
    naming an external provider; run once for the tests that read it (a run costs ~0.7 s
    of CPU)."""
    root = tmp_path_factory.mktemp("listing")
    site, home, project = root / "site", root / "home", root / "project"
    _install(site, "acme_plugin", "acme-tools", "acme", ACME)
    _install(site, "broken_plugin", "broken-dist", "broken", "import no_such_module_xyz\n")
    (project / ".git").mkdir(parents=True)
    (home / ".rho").mkdir(parents=True)
    (home / ".rho" / "config.toml").write_text(
        '[[providers]]\nname = "far"\nendpoint = "https://api.example.invalid/v1"\n'
    )
    done = subprocess.run(
        [RHO, "--plugins"],
        cwd=project,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", **plugin_env(site, "acme", "broken")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Listing(done, home)


def _blocks(stdout: str) -> dict[str, str]:
    """Each plugin's block of the listing by its heading."""
    blocks: dict[str, str] = {}
    heading = ""
    for line in stdout.splitlines():
        if line and not line.startswith(" "):
            heading = line
            blocks[heading] = ""
        elif heading:
            blocks[heading] += line.strip() + "\n"
    return blocks


def test_plugins_flag_lists_each_plugin_with_its_contributions_then_exits(
    listing: Listing,
) -> None:
    done = listing.done
    assert done.returncode == 0, done.stderr
    blocks = _blocks(done.stdout)
    acme = blocks["acme-tools 0.3: plugin 'acme'"]
    assert "hooks:       rho_after_tool_call, rho_register_rpc_methods, rho_register_tools" in acme
    assert "tools:       shout, count_calls" in acme
    assert "rpc methods: acme/echo" in acme
    fs = next(text for heading, text in blocks.items() if "plugin 'rho-tools-fs'" in heading)
    assert "read_file" in fs and "write_file" in fs
    rpc = next(text for heading, text in blocks.items() if heading.startswith("rho-rpc "))
    assert "rpc methods: prompt, abort" in rpc
    # rho-rpc asks its client and sends notifications through the hooks any plugin has.
    assert "rho_approval_gate" in rpc and "rho_register_observers" in rpc
    assert any(heading.startswith("rho-kernel ") for heading in blocks)
    failed = done.stdout.split("failed to load:\n", 1)[1]
    assert failed.startswith("broken-dist 0.3: plugin 'broken'\n")
    assert "no_such_module_xyz" in failed
    assert "plugin 'broken' (broken-dist 0.3) skipped" in done.stderr
    assert "Traceback" not in done.stderr and "{" not in done.stdout  # no protocol


def test_plugins_flag_sends_nothing_anywhere_even_with_an_external_provider(
    listing: Listing,
) -> None:
    done = listing.done
    assert done.returncode == 0, done.stderr
    assert "acme-tools 0.3: plugin 'acme'" in done.stdout
    assert not list((listing.home / ".rho").glob("sessions/**/*.jsonl"))


def test_list_plugins_names_distributions_and_contributions(start_rho, site: Path) -> None:  # type: ignore[no-untyped-def]
    process = start_rho("--ephemeral", env=plugin_env(site, "acme", "broken"))
    assert process.read()["method"] == "ready"
    result = process.call("listPlugins")["result"]
    plugins = {p["name"]: p for p in result["plugins"]}
    assert plugins["acme"]["distribution"] == "acme-tools"
    assert plugins["acme"]["version"] == "0.3"
    assert plugins["acme"]["tools"] == ["shout", "count_calls"]
    assert plugins["acme"]["rpcMethods"] == ["acme/echo"]
    assert plugins["rho.approval"]["distribution"] == "rho-kernel"
    assert plugins["rho-rpc"]["distribution"] == "rho-rpc"
    assert "listPlugins" in plugins["rho-rpc"]["rpcMethods"]
    assert "read_file" in plugins["rho-tools-fs"]["tools"]
    (failed,) = result["failed"]
    assert failed["name"] == "broken" and failed["distribution"] == "broken-dist"
    assert failed["version"] == "0.3" and "no_such_module_xyz" in failed["error"]
    assert process.call("acme/echo", {"text": "hi"})["result"] == {"text": "hi"}
    assert process.finish() == 0


def test_bad_contributions_are_skipped_with_the_distribution_named(
    start_rho, tmp_path: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    _install(site, "sloppy_plugin", "sloppy-dist", "sloppy", SLOPPY)
    process: RhoProcess = start_scripted(
        start_rho, server, "--ephemeral", env=plugin_env(site, "sloppy")
    )
    tools = {t["name"]: t for t in process.call("listTools")["result"]["tools"]}
    assert "sloppy_ok" in tools
    assert not {"string_schema", "list_schema"} & set(tools)
    assert tools["read_file"]["plugin"] == "rho-tools-fs"  # the first to load keeps the name
    plugins = {p["name"]: p for p in process.call("listPlugins")["result"]["plugins"]}
    assert plugins["sloppy"]["tools"] == ["sloppy_ok"]
    assert plugins["sloppy"]["rpcMethods"] == ["sloppy/ok"]
    assert "getState" in plugins["rho-rpc"]["rpcMethods"]
    assert process.call("sloppy/ok")["result"] == {}
    assert "model" in process.call("getState")["result"]  # rho-rpc's, not the shadow
    assert "result" in process.call("rpc.discover")
    # The rest of rho works: a prompt runs a tool.
    server.add(tool_call_reply("sloppy_ok", {}), text_reply("done"))
    reply = process.call("prompt", {"message": "go"})
    assert reply["result"]["reply"] == "done"
    assert process.finish() == 0
    stderr = process.stderr_text()
    named = "plugin 'sloppy' (sloppy-dist 0.3)"
    for problem in (
        "contributed 'garbage', which is not a Tool (skipped)",
        "contributed 42, which is not a Tool (skipped)",
        "contributed a tool named 'has spaces\\x1b[31m'",
        "tool 'string_schema' of " + named + " skipped: its parameters are not a JSON Schema",
        "tool 'list_schema' of " + named + " skipped: its parameters are not a JSON Schema",
        "tool 'read_file' of " + named + " skipped: plugin 'rho-tools-fs' (rho-tools-fs",
        "contributed {'name': 'notAMethod'}, which is not an RpcMethod (skipped)",
        "RPC method 'getState' of " + named + " skipped: plugin 'rho-rpc' (rho-rpc",
        "contributed method 'rpc.discover', a name JSON-RPC reserves",
        "contributed a method named 'bad params'",
        "method 'sloppy/model', whose params model is not a pydantic BaseModel",
    ):
        assert problem in stderr, problem
    assert "\x1b" not in stderr and "Traceback" not in stderr


def test_no_tool_packs_is_said_on_stderr_and_list_tools_is_empty(start_rho, home: Path) -> None:  # type: ignore[no-untyped-def]
    (home / ".rho").mkdir()
    (home / ".rho" / "config.toml").write_text(
        '[plugins]\ndisabled = ["rho-tools-fs", "rho-tools-rust"]\n'
    )
    process = start_rho("--ephemeral")
    assert process.read()["method"] == "ready"
    assert process.call("listTools")["result"]["tools"] == []
    assert process.finish() == 0
    stderr = process.stderr_text()
    assert "rho: warning: no tool packs are installed" in stderr
    assert "pip install rho-tools-fs" in stderr


def test_rho_plugins_loads_only_the_named_plugins(start_rho, site: Path) -> None:  # type: ignore[no-untyped-def]
    env = {**plugin_env(site), "RHO_PLUGINS": "rho-tools-fs"}
    process = start_rho("--ephemeral", env=env)
    assert process.read()["method"] == "ready"
    tools = {tool["plugin"] for tool in process.call("listTools")["result"]["tools"]}
    assert tools == {"rho-tools-fs"}
    result = process.call("listPlugins")["result"]
    names = {plugin["name"] for plugin in result["plugins"]}
    assert {"rho-kernel", "rho-rpc", "rho-tools-fs"} <= names  # the core always loads
    assert not {"acme", "rho-tools-rust", "rho-memory", "rho-ext-js"} & names
    assert result["failed"] == []  # the broken plugin was never imported
    assert process.finish() == 0


def test_a_plugin_the_test_does_not_name_never_loads_and_tool_packs_go_unmentioned(  # type: ignore[no-untyped-def]
    start_rho, site: Path
) -> None:
    # The suite's own guarantee: what a test sees does not depend on what else is installed.
    # The same rho (rho's own plugins: a tool pack among them) shows that with a tool pack
    # nothing is said about tool packs (a rho of its own cost ~0.7 s of CPU).
    process = start_rho("--ephemeral", env={"PYTHONPATH": str(site)})
    assert process.read()["method"] == "ready"
    assert process.call("listTools")["result"]["tools"]
    result = process.call("listPlugins")["result"]
    assert "acme" not in {plugin["name"] for plugin in result["plugins"]}
    assert result["failed"] == []
    assert process.finish() == 0
    assert "tool packs" not in process.stderr_text()
