"""The loop redacts every tool result (text and details) and every chunk of live output."""

from __future__ import annotations

from pathlib import Path

from rho_kernel import ToolContext, ToolResult, hookimpl, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.security import REDACTED
from rho_kernel.testing import (
    RecordingObserver,
    ScriptedServer,
    in_memory_session,
    run_prompt,
    text_reply,
    tool_call_reply,
)

SECRET = "ghp_" + "Q7" * 18
KEY_LINES = ["-----BEGIN RSA PRIVATE KEY-----\n", "MIIEpAIBAAKCAQEA1Hq9\n", "-----END RSA"]


@tool(risk="read")
async def leaky(*, ctx: ToolContext) -> ToolResult:
    """Print a secret in pieces, then return it in the text and in the details."""
    await ctx.report_output("stdout", f"token: {SECRET[:10]}")
    await ctx.report_output("stdout", f"{SECRET[10:]}\nnext line\n")
    for line in KEY_LINES:
        await ctx.report_output("stderr", line)
    await ctx.report_output("stderr", " PRIVATE KEY-----\ndone")  # no newline: flushed at the end
    return ToolResult(f"GITHUB_TOKEN={SECRET}", details={"full": [f"x {SECRET}"], "size": 3})


class AddsASecret:
    """A plugin whose after-call hook puts a secret into the result."""

    @hookimpl
    def rho_after_tool_call(self, call: object, result: ToolResult) -> ToolResult:
        return ToolResult(result.output + f"\nappended {SECRET}", result.is_error, result.details)


async def test_results_details_and_live_output_never_carry_the_secret(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    server = scripted_server
    recorder = RecordingObserver()
    session = in_memory_session(tmp_path)
    server.add(tool_call_reply("leaky", {}), text_reply("k"))
    result = await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[leaky],
        plugins=[AddsASecret()],
        observers=[recorder],
        session=session,
    )
    outputs = [args for name, args in recorder.events if name == "on_tool_output"]
    stdout = "".join(text for _, stream, text in outputs if stream == "stdout")
    stderr = "".join(text for _, stream, text in outputs if stream == "stderr")
    assert stdout == f"token: {REDACTED}\nnext line\n"
    assert stderr == f"{REDACTED}\ndone"
    (tool_result,) = [args[1] for name, args in recorder.events if name == "on_tool_result"]
    assert tool_result.output == f"GITHUB_TOKEN={REDACTED}\nappended {REDACTED}"
    assert tool_result.details == {"full": [f"x {REDACTED}"], "size": 3}
    assert result.tool_calls[0].output == tool_result.output
    sent = server.requests[1].body.decode()
    assert SECRET not in sent and REDACTED in sent
    assert all(SECRET not in str(message.to_wire()) for message in session.path_messages())


async def test_disabled_redaction_passes_everything_through(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    server = scripted_server
    config = RhoConfig.model_validate({"redaction": {"enabled": False}})
    recorder = RecordingObserver()
    server.add(tool_call_reply("leaky", {}), text_reply("k"))
    await run_prompt(
        "s",
        endpoint=server.chat_url,
        root=tmp_path,
        tools=[leaky],
        observers=[recorder],
        config=config,
    )
    (tool_result,) = [args[1] for name, args in recorder.events if name == "on_tool_result"]
    assert tool_result.output == f"GITHUB_TOKEN={SECRET}"
