"""The README's plugin example works as written, and its commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

from rho_kernel import RhoConfig
from rho_kernel.plugins import PluginHost
from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _block_after(heading: str, language: str) -> str:
    section = README.split(heading, 1)[1]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


async def test_plugin_example_runs(tmp_path: Path) -> None:
    namespace: dict[str, object] = {}
    exec(compile(_block_after("## Write a plugin", "python"), "README.md", "exec"), namespace)
    host = PluginHost(autoload=False)
    plugin = type("ReadmePlugin", (), {})()
    plugin.rho_register_tools = namespace["rho_register_tools"]  # type: ignore[attr-defined]
    assert host.register(plugin, "readme")
    found = host.collect("rho_register_tools", config=RhoConfig(), root=tmp_path)
    (tool,) = [t for _, t in found]
    assert tool.parameters["required"] == ["text"]
    with ScriptedServer() as server:
        server.add(tool_call_reply("shout", {"text": "hey", "times": 2}), text_reply("done"))
        result = await run_prompt("x", endpoint=server.chat_url, root=tmp_path, tools=[tool])
    assert result.tool_calls[0].output == "HEY HEY"


def test_ci_runs_the_readme_test_command() -> None:
    command = _block_after("## Test it", "sh").strip()
    assert command in (ROOT / ".ci" / "run").read_text()
