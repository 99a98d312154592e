"""The rho_after_tool_call hook masks e-mail addresses before the model sees a result."""

from __future__ import annotations

import json
from pathlib import Path

from rho_kernel import ToolResult, tool
from rho_kernel.testing import ScriptedServer, run_prompt, text_reply, tool_call_reply

from rho_plugin_example import mask_emails, plugin


@tool(risk="read")
def contacts() -> str:
    """List the maintainers."""
    return "Ada <ada.lovelace@example.org>, Bob (bob+rho@mail.example.co.uk); see a@b"


async def test_the_model_never_sees_an_address(scripted_server: ScriptedServer, rho_root: Path):
    scripted_server.add(tool_call_reply("contacts", {}), text_reply("done"))
    result = await run_prompt(
        "who?", endpoint=scripted_server.chat_url, root=rho_root, tools=[contacts], plugins=[plugin]
    )
    assert result.tool_calls[0].output == "Ada <[EMAIL]>, Bob ([EMAIL]); see a@b"
    second = json.dumps(scripted_server.requests[1].json)
    assert "[EMAIL]" in second
    assert "lovelace" not in second and "bob+rho" not in second


def test_a_result_without_addresses_is_kept_as_it_is():
    assert mask_emails(ToolResult("no mail here @ all")) is None


def test_the_error_flag_and_details_are_kept():
    masked = mask_emails(ToolResult("to x@example.com", is_error=True, details={"n": 1}))
    assert masked == ToolResult("to [EMAIL]", is_error=True, details={"n": 1})


def test_hostile_output_is_masked_in_linear_time():
    # Long runs of address characters without a complete address: a naive pattern would
    # retry from every position of the run.
    hostile = ("a" * 100_000 + "@") * 3 + "x." * 50_000
    assert mask_emails(ToolResult(hostile)) is None
    assert mask_emails(ToolResult(hostile + " me@example.com")).output.endswith(" [EMAIL]")
