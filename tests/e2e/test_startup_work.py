"""Work a plugin starts at startup (`Runtime.start_work`): `ready` does not wait for it, but
`listTools` and prompts do, so tools registered by it at run time are there from the first
request; a failing piece of work is reported and rho runs on."""

from __future__ import annotations

from pathlib import Path

from rho_process import install_plugin, plugin_env, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, text_reply, tool_call_reply

LATE_TOOLS = """
import asyncio

from rho_kernel import hookimpl, tool


@tool(risk="read")
def late() -> str:
    \"\"\"Registered a while after startup.\"\"\"
    return "late tool ran"


async def load(runtime):
    await asyncio.sleep(1.0)
    runtime.tools.register(late, plugin="late")


async def fail():
    await asyncio.sleep(0.1)
    raise RuntimeError("could not load")


@hookimpl
def rho_startup(runtime):
    runtime.start_work(load(runtime), "loading late tools")
    runtime.start_work(fail(), "loading broken tools")
"""


def test_tools_registered_by_startup_work_are_there_for_the_first_requests(  # type: ignore[no-untyped-def]
    start_rho, server: ScriptedServer, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    install_plugin(site, "late_tools", "late", LATE_TOOLS)
    server.add(tool_call_reply("late", {}), text_reply("done"))
    rho = start_scripted(start_rho, server, "--ephemeral", env=plugin_env(site, "late"))
    names = {t["name"] for t in rho.call("listTools")["result"]["tools"]}
    assert "late" in names
    prompt = rho.request("prompt", {"message": "go"})
    rho.wait_for(lambda m: m.get("id") == prompt and "method" not in m)
    result = next(m for m in rho.seen if m.get("method") == "tool/result")["params"]
    assert result["output"] == "late tool ran"
    assert "late" in [t["function"]["name"] for t in server.requests[0].json["tools"]]
    assert rho.finish() == 0
    assert "loading broken tools failed: could not load" in rho.stderr_text()
