"""What a hook reads on stdin: one JSON object, with Claude Code's fields for its event.

Every event has `session_id`, `transcript_path`, `cwd`, `permission_mode` and
`hook_event_name` (`base_payload`); each builder here adds its event's fields to such a base
(and sets `hook_event_name`). rho's own additions are named `rho_*`. Plain dicts, ready for
`json.dumps`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def base_payload(
    event: str, *, session_id: str, transcript_path: str, cwd: str, permission_mode: str
) -> dict[str, Any]:
    """The fields every event's input has; `hook_event_name` is `event`."""
    return {
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": cwd,
        "permission_mode": permission_mode,
        "hook_event_name": event,
    }


def _event(base: Mapping[str, Any], event: str, **fields: Any) -> dict[str, Any]:
    return {**base, "hook_event_name": event, **fields}


def pre_tool_use(
    base: Mapping[str, Any],
    *,
    tool_name: str,
    tool_input: dict[str, Any],
    tool_use_id: str,
    rho_tool_name: str,
) -> dict[str, Any]:
    """PreToolUse: a tool is about to run. `tool_name` is the name the hook matched
    through (Claude Code's where it has one, see `rho_hooks.names`), `rho_tool_name`
    rho's; `tool_input` holds the arguments in both forms (`names.claude_input`)."""
    return _event(
        base,
        "PreToolUse",
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=tool_use_id,
        rho_tool_name=rho_tool_name,
    )


def post_tool_use(
    base: Mapping[str, Any],
    *,
    tool_name: str,
    tool_input: dict[str, Any],
    tool_use_id: str,
    rho_tool_name: str,
    tool_response: Any,
) -> dict[str, Any]:
    """PostToolUse: a tool has run; `tool_response` is its result (any JSON value)."""
    return _event(
        base,
        "PostToolUse",
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=tool_use_id,
        rho_tool_name=rho_tool_name,
        tool_response=tool_response,
    )


def user_prompt_submit(base: Mapping[str, Any], *, prompt: str) -> dict[str, Any]:
    """UserPromptSubmit: the person's prompt, before the model sees it."""
    return _event(base, "UserPromptSubmit", prompt=prompt)


def stop(base: Mapping[str, Any], *, stop_hook_active: bool) -> dict[str, Any]:
    """Stop: the model has finished its answer. `stop_hook_active` is True when it goes on
    because a Stop hook kept it going (a hook checks it so as not to loop)."""
    return _event(base, "Stop", stop_hook_active=stop_hook_active)


def session_start(base: Mapping[str, Any], *, source: str) -> dict[str, Any]:
    """SessionStart: `source` is how the session began; Claude Code's values are
    `startup`, `resume`, `clear` and `compact`."""
    return _event(base, "SessionStart", source=source)


def session_end(base: Mapping[str, Any], *, reason: str) -> dict[str, Any]:
    """SessionEnd: `reason` is why it ended; Claude Code's values are `clear`, `logout`,
    `prompt_input_exit` and `other`."""
    return _event(base, "SessionEnd", reason=reason)


def pre_compact(
    base: Mapping[str, Any], *, trigger: str, custom_instructions: str
) -> dict[str, Any]:
    """PreCompact: the conversation is about to be compacted; `trigger` is `manual` or
    `auto`, `custom_instructions` what the person asked for with a manual one (else "")."""
    return _event(base, "PreCompact", trigger=trigger, custom_instructions=custom_instructions)


def notification(
    base: Mapping[str, Any],
    *,
    message: str,
    tool_name: str | None = None,
    rho_tool_name: str | None = None,
) -> dict[str, Any]:
    """Notification: rho tells the person something (it waits for an approval, say).
    When it is about a tool call, `tool_name` and `rho_tool_name` name the tool as in
    `pre_tool_use` (rho's addition; absent otherwise)."""
    fields: dict[str, Any] = {"message": message}
    if tool_name is not None:
        fields["tool_name"] = tool_name
    if rho_tool_name is not None:
        fields["rho_tool_name"] = rho_tool_name
    return _event(base, "Notification", **fields)


__all__ = [
    "base_payload",
    "notification",
    "post_tool_use",
    "pre_compact",
    "pre_tool_use",
    "session_end",
    "session_start",
    "stop",
    "user_prompt_submit",
]
