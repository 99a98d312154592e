"""The JSON a hook reads on stdin: Claude Code's fields for each event, rho's named `rho_*`."""

from __future__ import annotations

import json
from typing import Any

from rho_hooks import payload

BASE = payload.base_payload(
    "Stop",
    session_id="s1",
    transcript_path="/home/u/.rho/sessions/s1.jsonl",
    cwd="/work/project",
    permission_mode="ask",
)
COMMON = {
    "session_id": "s1",
    "transcript_path": "/home/u/.rho/sessions/s1.jsonl",
    "cwd": "/work/project",
    "permission_mode": "ask",
}


def test_every_event_has_the_common_fields() -> None:
    assert BASE == {**COMMON, "hook_event_name": "Stop"}


def test_tool_events_name_the_tool_both_ways() -> None:
    tool_input = {"command": "ls"}
    pre = payload.pre_tool_use(
        BASE, tool_name="Bash", tool_input=tool_input, tool_use_id="c1", rho_tool_name="run_command"
    )
    assert pre == {
        **COMMON,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": tool_input,
        "tool_use_id": "c1",
        "rho_tool_name": "run_command",
    }
    post = payload.post_tool_use(
        BASE,
        tool_name="run_command",
        tool_input=tool_input,
        tool_use_id="c1",
        rho_tool_name="run_command",
        tool_response={"output": "a\n"},
    )
    assert post["hook_event_name"] == "PostToolUse"
    assert post["tool_response"] == {"output": "a\n"} and post["tool_name"] == "run_command"


def test_each_event_has_its_own_fields() -> None:
    cases: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
        (payload.user_prompt_submit(BASE, prompt="hi"), "UserPromptSubmit", {"prompt": "hi"}),
        (payload.stop(BASE, stop_hook_active=True), "Stop", {"stop_hook_active": True}),
        (payload.session_start(BASE, source="resume"), "SessionStart", {"source": "resume"}),
        (payload.session_end(BASE, reason="other"), "SessionEnd", {"reason": "other"}),
        (
            payload.pre_compact(BASE, trigger="manual", custom_instructions="keep the plan"),
            "PreCompact",
            {"trigger": "manual", "custom_instructions": "keep the plan"},
        ),
        (payload.notification(BASE, message="waiting"), "Notification", {"message": "waiting"}),
    ]
    for made, event, fields in cases:
        assert made == {**COMMON, "hook_event_name": event, **fields}
        assert json.loads(json.dumps(made)) == made


def test_a_notification_about_a_call_names_the_tool() -> None:
    made = payload.notification(
        BASE, message="approve?", tool_name="Bash", rho_tool_name="run_command"
    )
    assert (made["tool_name"], made["rho_tool_name"]) == ("Bash", "run_command")


def test_a_builder_leaves_its_base_alone() -> None:
    payload.user_prompt_submit(BASE, prompt="x")
    assert BASE["hook_event_name"] == "Stop" and "prompt" not in BASE
