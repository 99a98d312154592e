"""MCP servers through the real `rho` process: SDK-written servers over stdio and
Streamable HTTP, their tools in the loop, their lifecycle and failures."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_servers import (  # type: ignore[import-not-found]
    ECHO,
    RAW_SERVER,
    SERVER,
    mcp_servers,
    raw_server,
    toml_server,
    user_servers,
    write_spec,
)
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import needs_sandbox  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply


@pytest.fixture
def http_mcp_server(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start the test server over Streamable HTTP on 127.0.0.1; gives its URL."""
    started: list[subprocess.Popen[bytes]] = []

    def start(**spec: Any) -> str:
        port_file = tmp_path / f"port-{len(started)}"
        path = write_spec(
            tmp_path / "http-specs", f"http{len(started)}", http=str(port_file), **spec
        )
        process = subprocess.Popen([sys.executable, str(SERVER), str(path)])
        started.append(process)
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert process.poll() is None, "the HTTP test server exited"
            assert time.monotonic() < deadline, "the HTTP test server did not start"
            time.sleep(0.02)
        return f"http://127.0.0.1:{port_file.read_text()}/mcp"

    yield start
    for process in started:
        process.kill()
        process.wait()


def _prompt(rho: RhoProcess, message: str = "go") -> dict[str, Any]:
    rho.request("prompt", {"message": message})
    return rho.wait_for(lambda m: m.get("method") in ("agent/end", "agent/error"))


def _results(rho: RhoProcess) -> list[dict[str, Any]]:
    return [m["params"] for m in rho.seen if m.get("method") == "tool/result"]


def test_a_user_servers_tool_runs_in_the_loop_after_approval(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    spec = write_spec(tmp_path / "specs", "docs", tools=[ECHO], stderr="docs server up")
    user_servers(home, toml_server("docs", spec))
    server.add(tool_call_reply("mcp__docs__echo", {"text": "hello"}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral")
    tools = {t["name"]: t for t in rho.call("listTools")["result"]["tools"]}
    assert tools["mcp__docs__echo"]["risk"] == "write"
    assert tools["mcp__docs__echo"]["plugin"] == "rho-mcp"
    rho.request("prompt", {"message": "go"})
    approval = rho.notification("approval/request")
    rho.answer_approval(approval["params"], True)
    rho.wait_for(lambda m: m.get("method") == "agent/end")
    assert _results(rho)[0]["output"] == "hello"
    listed = mcp_servers(rho)["docs"]
    assert listed["state"] == "ready" and listed["transport"] == "stdio"
    assert listed["tools"] == ["mcp__docs__echo"] and listed["origin"] == "user"
    assert listed["confined"] is False
    log = Path(listed["logPath"])
    assert log.parent == home / ".rho" / "logs"
    assert rho.finish() == 0
    assert "docs server up" in log.read_text()
    assert "Traceback" not in rho.stderr_text()


ALLOW_MCP = ("--allow", "mcp__*")


def _called(rho: RhoProcess, tool: str, server: ScriptedServer, *args: Any) -> dict[str, Any]:
    """Run one prompt in which the model calls `tool` with `args[0]` (or {}), then answers."""
    server.add(tool_call_reply(tool, args[0] if args else {}), text_reply("done"))
    _prompt(rho)
    return _results(rho)[-1]


def test_tools_over_streamable_http_with_headers_from_the_environment(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path, http_mcp_server
) -> None:
    url = http_mcp_server(tools=[ECHO])
    user_servers(
        home,
        "[mcp_servers.remote]\n"
        f'url = "{url}"\n'
        'bearer_token_env_var = "REMOTE_TOKEN"\n'
        'http_headers = { "X-Team" = "rho" }\n',
    )
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP, env={"REMOTE_TOKEN": "t0k"})
    result = _called(rho, "mcp__remote__echo", server, {"text": "over http"})
    assert result["output"] == "over http" and not result["is_error"]
    listed = mcp_servers(rho)["remote"]
    assert (listed["transport"], listed.get("logPath"), listed["state"]) == ("http", None, "ready")
    assert rho.finish() == 0


def test_a_server_that_never_answers_initialize_fails_alone(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    specs = tmp_path / "specs"
    user_servers(
        home,
        toml_server("mute", write_spec(specs, "mute", hang=True), startup_timeout_sec=1),
        toml_server("docs", write_spec(specs, "docs", tools=[ECHO])),
    )
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    assert _called(rho, "mcp__docs__echo", server, {"text": "still here"})["output"] == "still here"
    listed = mcp_servers(rho)
    assert listed["mute"]["state"] == "failed"
    assert "did not finish starting within 1 s" in listed["mute"]["error"]
    state = rho.call("getState")["result"]["mcp"]["servers"]
    assert {s["name"]: s["state"] for s in state} == {"mute": "failed", "docs": "ready"}
    assert rho.finish() == 0
    err = rho.stderr_text()
    assert err.count("MCP server 'mute'") == 1 and "Traceback" not in err


def test_a_required_server_that_cannot_start_fails_the_prompt(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    user_servers(
        home,
        '[mcp_servers.needed]\ncommand = "/nonexistent/mcp-server"\nrequired = true\n',
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    end = _prompt(rho)
    assert end["method"] == "agent/error"
    assert "required MCP server 'needed'" in end["params"]["error"]
    assert "not found" in end["params"]["error"]
    assert server.requests == []
    assert rho.finish() == 0


def test_tool_names_are_valid_distinct_and_never_shadowed(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    long = "t" * 200
    tools = [
        {"name": "a__b", "behavior": "echo"},
        {"name": "a.b", "behavior": "echo"},
        {"name": "a_b", "behavior": "echo"},
        {"name": long, "behavior": "echo"},
        {"name": long + "x", "behavior": "echo"},
    ]
    user_servers(home, toml_server("my-srv", write_spec(tmp_path / "s", "n", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.call("listTools")  # waits for the servers to start
    names = mcp_servers(rho)["my-srv"]["tools"]
    assert len(names) == 5 and len(set(names)) == 5
    assert all(len(n) <= 64 and n.startswith("mcp__my-srv__") for n in names)
    assert "mcp__my-srv__a__b" in names and "mcp__my-srv__a_b" in names
    assert rho.finish() == 0
    # A server name with "__" would make names ambiguous (server "a__b", tool "c" against
    # server "a", tool "b__c"): it is refused before ready.
    user_servers(home, toml_server("a__b", write_spec(tmp_path / "s", "n", tools=tools)))
    refused = start_rho("--ephemeral")
    assert refused.finish() != 0 and "without '__'" in refused.stderr_text()


def test_annotations_set_the_risk_only_when_trusted(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [
        {"name": "look", "behavior": "echo", "annotations": {"readOnlyHint": True}},
        {"name": "fetch", "behavior": "echo", "annotations": {"openWorldHint": True}},
        {"name": "add", "behavior": "echo", "annotations": {"destructiveHint": False}},
        {"name": "drop", "behavior": "echo", "annotations": {}},
    ]
    specs = tmp_path / "specs"
    user_servers(
        home,
        toml_server("hinted", write_spec(specs, "h", tools=tools), trust_annotations=True),
        toml_server("plain", write_spec(specs, "p", tools=tools)),
        toml_server("fixed", write_spec(specs, "f", tools=tools), risk="read"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    risks = {t["name"]: t["risk"] for t in rho.call("listTools")["result"]["tools"]}
    assert [risks[f"mcp__hinted__{n}"] for n in ("look", "fetch", "add", "drop")] == [
        "read",
        "network",
        "write",
        "destructive",
    ]
    assert {risks[f"mcp__plain__{n}"] for n in ("look", "fetch", "add", "drop")} == {"write"}
    assert {risks[f"mcp__fixed__{n}"] for n in ("look", "fetch", "add", "drop")} == {"read"}
    assert rho.finish() == 0


def test_a_hostile_schema_leaves_out_that_tool_only(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    loop = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    }
    tools = [
        ECHO,
        {"name": "looped", "behavior": "echo", "inputSchema": loop},
        {"name": "listy", "behavior": "echo", "inputSchema": {"type": "array"}},
        {
            "name": "far",
            "behavior": "echo",
            "inputSchema": {"type": "object", "$ref": "http://x/s"},
        },
    ]
    raw = raw_server(write_spec(tmp_path / "s", "odd", tools=tools))
    user_servers(
        home,
        f"[mcp_servers.odd]\ncommand = {json.dumps(raw['command'])}\nargs = {json.dumps(raw['args'])}\n",
    )
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    rho.call("listTools")
    assert mcp_servers(rho)["odd"]["tools"] == ["mcp__odd__echo"]
    assert _called(rho, "mcp__odd__echo", server, {"text": "fine"})["output"] == "fine"
    assert rho.finish() == 0
    err = rho.stderr_text()
    assert "'looped' left out" in err and "loop" in err
    assert "'listy' left out" in err and "'far' left out" in err
    assert "MCP server 'odd' gave an invalid" not in err


def test_results_of_every_content_kind_and_a_10_mb_result_capped(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [
        {"name": "mixed", "behavior": "mixed"},
        {"name": "big", "behavior": "big"},
        {"name": "structured", "behavior": "structured"},
        {"name": "fails", "behavior": "error"},
    ]
    user_servers(home, toml_server("kinds", write_spec(tmp_path / "s", "k", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    mixed = _called(rho, "mcp__kinds__mixed", server)
    assert mixed["output"].splitlines() == [
        "first",
        "[resource file:///notes.txt]",
        "the notes",
        "[resource file:///big.bin]",
        "[image image/png, 32 bytes]",
        "[audio audio/wav, 16 bytes]",
    ]
    big = _called(rho, "mcp__kinds__big", server)
    assert (
        len(big["output"].encode()) < 70_000
        and "bytes of the server's result left out" in big["output"]
    )
    structured = _called(rho, "mcp__kinds__structured", server)
    assert '"answer": 42' in structured["output"] and not structured["is_error"]
    fails = _called(rho, "mcp__kinds__fails", server)
    assert fails["is_error"] and "the tool failed on purpose" in fails["output"]
    assert rho.finish() == 0


def test_api_keys_reach_a_server_only_when_named(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "env", "behavior": "env"}]
    specs = tmp_path / "specs"
    user_servers(
        home,
        toml_server("blind", write_spec(specs, "b", tools=tools)),
        toml_server("told", write_spec(specs, "t", tools=tools), env_vars=["TEAM_API_KEY"]),
    )
    rho = start_scripted(
        start_rho, server, "--ephemeral", *ALLOW_MCP, env={"TEAM_API_KEY": "s3cret-value"}
    )
    assert _called(rho, "mcp__blind__env", server, {"name": "TEAM_API_KEY"})["output"] == "<unset>"
    told = _called(rho, "mcp__told__env", server, {"name": "TEAM_API_KEY"})["output"]
    assert told != "<unset>"  # handed on (the loop's redaction may hide the value itself)
    assert rho.finish() == 0


def test_a_config_mixing_command_and_url_or_smuggling_code_stops_rho(  # type: ignore[no-untyped-def]
    start_rho, home: Path
) -> None:
    for table, words in (
        ('command = "x"\nurl = "http://127.0.0.1:1/mcp"\n', "not both"),
        ('command = "x"\nenv = { LD_PRELOAD = "/tmp/evil.so" }\n', "LD_PRELOAD"),
    ):
        user_servers(home, "[mcp_servers.bad]\n" + table)
        rho = start_rho("--ephemeral")
        assert rho.finish() != 0
        err = rho.stderr_text()
        assert "config.toml" in err and "mcp_servers" in err and words in err
        assert "Traceback" not in err


def _tool_names(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.json.get("tools", [])]


def test_a_changed_tool_list_reaches_the_model_only_at_the_next_turn(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "grow", "behavior": "grow"}]
    user_servers(home, toml_server("live", write_spec(tmp_path / "s", "live", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    server.add(tool_call_reply("mcp__live__grow", {}), text_reply("grown"), text_reply("later"))
    _prompt(rho)
    _prompt(rho)
    first_turn, same_turn, next_turn = server.requests
    assert "mcp__live__late" not in _tool_names(first_turn)
    assert "mcp__live__late" not in _tool_names(same_turn)
    assert "mcp__live__late" in _tool_names(next_turn)
    assert rho.finish() == 0


def test_a_call_past_its_timeout_is_an_error_result(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "stuck", "behavior": "block", "marker": str(tmp_path / "cancelled")}]
    spec = write_spec(tmp_path / "s", "slow", tools=tools)
    user_servers(home, toml_server("slow", spec, tool_timeout_sec=0.5))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    result = _called(rho, "mcp__slow__stuck", server)
    assert result["is_error"]
    assert (
        "MCP server 'slow' did not answer the call of its tool 'stuck' in time" in result["output"]
    )
    assert rho.finish() == 0


def test_abort_cancels_the_running_call_on_the_server(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled"
    tools = [{"name": "stuck", "behavior": "block", "marker": str(marker)}]
    user_servers(home, toml_server("slow", write_spec(tmp_path / "s", "slow", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    server.add(tool_call_reply("mcp__slow__stuck", {}))
    rho.request("prompt", {"message": "go"})
    rho.notification("tool/call")
    _wait_for_file(Path(f"{marker}.started"))
    rho.call("abort")
    end = rho.wait_for(lambda m: m.get("method") in ("agent/end", "agent/error"))
    assert end["params"].get("finishReason") == "cancelled"
    _wait_for_file(marker)  # the server's handler is cancelled when the notice arrives
    assert rho.finish() == 0


def _wait_for_file(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def test_a_server_that_crashes_mid_call_is_started_again_by_the_next(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "boom", "behavior": "crash"}, ECHO]
    user_servers(home, toml_server("fragile", write_spec(tmp_path / "s", "f", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    crashed = _called(rho, "mcp__fragile__boom", server)
    assert crashed["is_error"] and "MCP server 'fragile' went away" in crashed["output"]
    listed = mcp_servers(rho)["fragile"]
    assert listed["state"] == "exited" and "exited with code 3" in listed["error"]
    assert listed["tools"] == ["mcp__fragile__boom", "mcp__fragile__echo"]
    again = _called(rho, "mcp__fragile__echo", server, {"text": "back"})
    assert again["output"] == "back" and not again["is_error"]
    assert mcp_servers(rho)["fragile"]["starts"] == 2
    assert rho.finish() == 0


def test_restart_mcp_server_starts_it_again(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "pid", "behavior": "pid"}]
    user_servers(home, toml_server("p", write_spec(tmp_path / "s", "p", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    before = int(_called(rho, "mcp__p__pid", server)["output"])
    restarted = rho.call("restartMcpServer", {"name": "p"})["result"]["server"]
    assert restarted["state"] == "ready" and restarted["starts"] == 2
    after = int(_called(rho, "mcp__p__pid", server)["output"])
    assert after != before and not _alive(before)
    error = rho.call("restartMcpServer", {"name": "nope"})["error"]
    assert error["code"] == -32602 and "no MCP server 'nope'" in error["message"]
    assert rho.finish() == 0
    assert not _alive(after)


def _alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def test_no_server_outlives_rho_even_killed_outright(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "pid", "behavior": "pid"}]
    user_servers(home, toml_server("p", write_spec(tmp_path / "s", "p", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    pid = int(_called(rho, "mcp__p__pid", server)["output"])
    assert _alive(pid)
    rho.proc.kill()  # SIGKILL: no shutdown runs
    rho.proc.wait()
    deadline = time.monotonic() + 60
    while _alive(pid):
        assert time.monotonic() < deadline, "the server outlived rho"
        time.sleep(0.02)


def test_prompts_are_commands_and_resources_have_two_tools(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    spec = write_spec(
        tmp_path / "s",
        "kb",
        tools=[ECHO],
        prompts=[
            {"name": "review", "description": "Review a file", "arguments": ["path", "focus"]}
        ],
        resources=[{"uri": "file:///guide.md", "name": "guide", "text": "# The guide"}],
    )
    user_servers(home, toml_server("kb", spec))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    commands = rho.call("listCommands")["result"]["commands"]
    assert {
        "name": "mcp__kb__review",
        "source": "mcp:kb",
        "description": "Review a file (<path> <focus>)",
        "risk": "read",
    }.items() <= commands[0].items()
    output = rho.call(
        "executeCommand", {"name": "mcp__kb__review", "args": "src/main.rs focus='error handling'"}
    )["result"]["output"]
    assert output == "prompt review: focus=error handling, path=src/main.rs"
    missing = rho.call("executeCommand", {"name": "mcp__kb__review", "args": ""})["error"]
    assert missing["code"] == -32020 and "needs path, focus" in missing["message"]
    tools = {t["name"]: t["risk"] for t in rho.call("listTools")["result"]["tools"]}
    assert tools["list_mcp_resources"] == "read" and tools["read_mcp_resource"] == "read"
    listing = _called(rho, "list_mcp_resources", server)["output"]
    assert "file:///guide.md" in listing
    read = _called(rho, "read_mcp_resource", server, {"server": "kb", "uri": "file:///guide.md"})
    assert read["output"] == "# The guide"
    assert rho.finish() == 0


@needs_sandbox
def test_a_repositorys_mcp_json_servers_start_once_trusted_and_confined(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, project: Path, tmp_path: Path, outside_tmp: Path
) -> None:
    anything = {"type": "object"}
    tools = [
        {"name": "env", "behavior": "env", "inputSchema": anything},
        {"name": "touch", "behavior": "touch", "inputSchema": anything},
    ]
    # Confined, a server sees the system and the project only: the server and its spec lie
    # in the project, and it needs only the standard library.
    spec = write_spec(project / "mcp", "repo", tools=tools)
    shutil.copy(RAW_SERVER, project / "mcp" / "server.py")
    (project / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "repo": {
                        "command": "${RHO_TEST_PYTHON}",
                        "args": ["mcp/server.py", str(spec)],
                        "env": {"GREETING": "${GREETING:-hello}", "TOKEN": "${TEAM_TOKEN}"},
                    }
                }
            }
        )
    )
    env = {"RHO_TEST_PYTHON": raw_server(spec)["command"], "TEAM_TOKEN": "from-env"}
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP, env=env)
    listed = mcp_servers(rho)["repo"]
    assert (listed["state"], listed["origin"], listed["tools"]) == ("untrusted", "mcp.json", [])
    assert rho.finish() == 0
    err = rho.stderr_text()
    assert err.count("MCP servers not started (repo)") == 1 and "rho trust" in err
    assert start_rho("trust").proc.wait(60) == 0
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP, env=env)
    greeting = _called(rho, "mcp__repo__env", server, {"name": "GREETING"})["output"]
    token = _called(rho, "mcp__repo__env", server, {"name": "TOKEN"})["output"]
    assert (greeting, token) == ("hello", "from-env")
    listed = mcp_servers(rho)["repo"]
    assert (listed["state"], listed["confined"]) == ("ready", True)
    inside = _called(rho, "mcp__repo__touch", server, {"path": str(project / "made.txt")})
    outside = _called(rho, "mcp__repo__touch", server, {"path": str(outside_tmp / "escape.txt")})
    assert inside["output"] == "written" and (project / "made.txt").exists()
    assert outside["output"].startswith("refused") and not (outside_tmp / "escape.txt").exists()
    assert rho.finish() == 0


def test_a_result_against_its_output_schema_and_filtered_tools(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    wants_text = {"type": "object", "properties": {"answer": {"type": "string"}}}
    tools = [
        {"name": "liar", "behavior": "structured", "outputSchema": wants_text},
        {"name": "hidden", "behavior": "echo"},
        {"name": "off", "behavior": "echo"},
        ECHO,
    ]
    specs = tmp_path / "s"
    user_servers(
        home,
        toml_server("s", write_spec(specs, "s", tools=tools), disabled_tools=["off"]),
        toml_server("only", write_spec(specs, "o", tools=tools), enabled_tools=["echo"]),
        toml_server("idle", write_spec(specs, "i", tools=tools), enabled=False),
        '[mcp_servers.nowhere]\nurl = "http://127.0.0.1:9/mcp"\n',
    )
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    rho.call("listTools")
    listed = mcp_servers(rho)
    assert listed["s"]["tools"] == ["mcp__s__echo", "mcp__s__hidden", "mcp__s__liar"]
    assert listed["only"]["tools"] == ["mcp__only__echo"]
    assert (listed["idle"]["state"], listed["idle"]["tools"]) == ("disabled", [])
    assert listed["nowhere"]["state"] == "failed"
    liar = _called(rho, "mcp__s__liar", server)
    assert liar["is_error"] and "MCP server 's' gave an invalid answer" in liar["output"]
    assert rho.finish() == 0
    err = rho.stderr_text()
    assert "MCP server 'nowhere' failed to start" in err and "http://127.0.0.1:9/mcp" in err
    assert "'idle'" not in err


def test_a_servers_own_children_go_with_it(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "spawn", "behavior": "spawn"}]
    user_servers(home, toml_server("parent", write_spec(tmp_path / "s", "p", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    first = int(_called(rho, "mcp__parent__spawn", server)["output"])
    rho.call("restartMcpServer", {"name": "parent"})
    assert not _alive(first)  # stopped with its server, though the server left on its own
    second = int(_called(rho, "mcp__parent__spawn", server)["output"])
    assert rho.finish() == 0
    assert not _alive(second)


def test_a_burst_of_list_changes_costs_a_few_listings(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "flood", "behavior": "flood"}, {"name": "listings", "behavior": "listings"}]
    user_servers(home, toml_server("noisy", write_spec(tmp_path / "s", "n", tools=tools)))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    assert _called(rho, "mcp__noisy__flood", server, {"times": 200})["output"] == "flooded"
    listings = int(_called(rho, "mcp__noisy__listings", server)["output"])
    # The server answers a listing only once its 200 notices are sent: the first notice
    # starts one listing, the other 199 ask for one more after it; with the start's: 3.
    assert listings == 3  # one per notice would be 201
    assert rho.finish() == 0


def test_a_required_server_that_crashed_is_started_again_by_the_next_prompt(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path
) -> None:
    tools = [{"name": "boom", "behavior": "crash"}, ECHO]
    spec = write_spec(tmp_path / "s", "r", tools=tools)
    user_servers(home, toml_server("vital", spec, required=True))
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    assert _called(rho, "mcp__vital__boom", server)["is_error"]
    server.add(text_reply("still served"))
    end = _prompt(rho)
    assert end["method"] == "agent/end" and end["params"]["reply"] == "still served"
    assert mcp_servers(rho)["vital"]["state"] == "ready"
    assert rho.finish() == 0


def test_where_a_server_starts(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, project: Path, tmp_path: Path
) -> None:
    tools = [{"name": "cwd", "behavior": "cwd"}]
    (project / "tools").mkdir()
    specs = tmp_path / "s"
    user_servers(
        home,
        toml_server("mine", write_spec(specs, "m", tools=tools)),
        toml_server("placed", write_spec(specs, "p", tools=tools), cwd="tools"),
    )
    project_config = toml_server("theirs", write_spec(specs, "t", tools=tools), cwd="../..")
    (project / ".rho").mkdir()
    (project / ".rho" / "config.toml").write_text(project_config)
    untrusted = start_scripted(start_rho, server, "--ephemeral")
    assert mcp_servers(untrusted)["theirs"]["state"] == "untrusted"
    assert untrusted.finish() == 0
    warning = "ignored settings that need trust (mcp_servers.theirs)"
    assert untrusted.stderr_text().count(warning) == 1
    trust = start_rho("trust")
    assert trust.proc.wait(60) == 0
    printed = b"".join(iter(trust.lines.get, None)).decode()
    assert "mcp_servers.theirs" in printed  # `rho trust` says what trusting applies
    rho = start_scripted(start_rho, server, "--ephemeral", *ALLOW_MCP)
    # Yours start in your home: run in an untrusted project, a program that loads code
    # from where it starts (python -m, npx) would otherwise run the repository's.
    assert _called(rho, "mcp__mine__cwd", server)["output"] == str(home)
    assert _called(rho, "mcp__placed__cwd", server)["output"] == str(project / "tools")
    theirs = mcp_servers(rho)["theirs"]
    assert theirs["state"] == "failed" and "outside the project" in theirs["error"]
    assert rho.finish() == 0


@pytest.mark.parametrize("require", ["ask", "true", "false"])
def test_a_server_that_must_be_confined_starts_unconfined_only_if_the_user_opted_out(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, home: Path, tmp_path: Path, require: str
) -> None:
    spec = write_spec(tmp_path / "s", "c", tools=[ECHO])
    setting = '"ask"' if require == "ask" else require
    user_servers(
        home,
        f'[sandbox]\nbackend = "no-such-backend"\nrequire = {setting}\n',
        toml_server("boxed", spec, sandbox="confined"),
    )
    rho = start_scripted(start_rho, server, "--ephemeral")
    rho.call("listTools")
    boxed = mcp_servers(rho)["boxed"]
    assert boxed["confined"] is True
    if require == "false":
        assert boxed["state"] == "ready", boxed
    else:
        assert boxed["state"] == "failed"
        assert "must run in the OS sandbox" in boxed["error"]
        assert "no-such-backend" in boxed["error"]
    assert rho.finish() == 0
