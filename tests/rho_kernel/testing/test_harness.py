"""`run_prompt` assembles the runtime the way `rho` does: the plugins' observers and gate, the
tools collected and checked through the plugins, the command sandbox."""

from __future__ import annotations

from pathlib import Path

from rho_kernel import (
    AgentResult,
    ApprovalDecision,
    ApprovalRequest,
    Observer,
    RhoConfig,
    Runtime,
    ToolContext,
    hookimpl,
    tool,
)
from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply

seen: dict[str, object] = {}


@tool(risk="read")
async def probe(ctx: ToolContext) -> str:
    """Report what the context holds."""
    seen["confinement"] = ctx.confinement
    return "probed"


@tool(risk="write")
def touch() -> str:
    """A tool that needs approval."""
    return "touched"


class Ending(Observer):
    def __init__(self) -> None:
        self.replies: list[str] = []

    async def on_agent_end(self, result: AgentResult) -> None:
        self.replies.append(result.reply)


class Approver:
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request.tool)
        return ApprovalDecision.approved()


class Hooks:
    def __init__(self) -> None:
        self.observer = Ending()
        self.gate = Approver()
        self.runtimes: list[Runtime] = []

    @hookimpl
    def rho_register_observers(self, runtime: Runtime) -> list[Observer]:
        self.runtimes.append(runtime)
        return [self.observer]

    @hookimpl
    def rho_approval_gate(self) -> Approver:
        return self.gate

    @hookimpl
    def rho_register_tools(self) -> list[object]:
        return [touch, "not a tool"]


async def test_run_prompt_takes_the_plugins_observers_gate_and_tools_as_rho_does(
    tmp_path: Path,
) -> None:
    hooks = Hooks()
    with ScriptedServer() as server:
        server.add(
            tool_call_reply("probe", {}), tool_call_reply("touch", {}), text_reply("all done")
        )
        result = await run_prompt(
            "go",
            endpoint=server.chat_url,
            root=tmp_path,
            tools=[probe],
            plugins=[hooks],
            config=RhoConfig(),
        )
    assert result.reply == "all done"
    assert hooks.observer.replies == ["all done"]  # an observer from rho_register_observers
    assert hooks.gate.asked == ["touch"]  # the gate from rho_approval_gate
    assert [r.root.path for r in hooks.runtimes] == [tmp_path.resolve()]
    assert seen["confinement"] is not None  # commands would run in the project's sandbox
