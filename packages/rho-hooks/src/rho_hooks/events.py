"""What each event's hooks are given and what their answers do in rho.

- PreToolUse: a block or deny refuses the call (`Block`, its reason for the model); ask and
  allow settle its approval question (`Permission`: allow never passes a deny rule, the
  sandbox or the command policy); `updatedInput` rewrites it (the keys it leaves out keep
  their values), checked again as the model's own arguments would be.
- PostToolUse: a block, or `continue: false`, marks the result as an error carrying the
  reason; additional context is appended to the result.
- UserPromptSubmit: a block (or `continue: false`) refuses the prompt; additional context
  follows the message (with the first prompt's, the SessionStart hooks').
- Stop: a block continues the turn with its reason, at most `max_stop_continuations` times.
- SessionStart, SessionEnd, PreCompact, Notification: run for what they do; their blocks
  have nothing to stop.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rho_hooks import payload
from rho_hooks.dispatch import HookState
from rho_hooks.names import claude_input, rho_arguments, tool_names
from rho_hooks.outcome import HookOutcome
from rho_kernel import Permission, PromptContext, ToolResult
from rho_kernel.tools import Block, Rewrite

if TYPE_CHECKING:
    from rho_kernel import Tool, ToolCall

#: How a block reads when its hook gave no reason.
NO_REASON = "blocked by a hook"


def _blocks(outcome: HookOutcome) -> bool:
    return outcome.verdict in ("block", "deny") or outcome.stop


def _reason(outcome: HookOutcome, event: str) -> str:
    reason = outcome.reason or (outcome.stop_reason if outcome.stop else "") or NO_REASON
    return f"{event} hook: {reason}"


async def pre_tool_use(
    state: HookState, call: ToolCall, arguments: dict[str, Any], tool: Tool | None
) -> Block | Permission | Rewrite | None:
    """The PreToolUse hooks' answer for `call`."""
    root = state.runtime.root.path
    base = state.base("PreToolUse")
    given = claude_input(call.name, arguments, root)

    def payload_of(name: str) -> dict[str, Any]:
        return payload.pre_tool_use(
            base, tool_name=name, tool_input=given, tool_use_id=call.id, rho_tool_name=call.name
        )

    outcome = await state.run("PreToolUse", payload_of, tool_names(call.name))
    if _blocks(outcome):
        return Block(_reason(outcome, "PreToolUse"))
    rewritten = None
    if outcome.updated_input is not None:
        # The keys a hook leaves out keep their values: `updatedInput` may be partial.
        updated = {**given, **outcome.updated_input}
        rewritten = rho_arguments(call.name, updated, arguments, root)
    if outcome.verdict == "ask":
        return Permission("ask", _reason(outcome, "PreToolUse"), rewritten)
    if outcome.verdict == "allow":
        return Permission("allow", _reason(outcome, "PreToolUse"), rewritten)
    return Rewrite(rewritten) if rewritten is not None else None


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


async def post_tool_use(state: HookState, call: ToolCall, result: ToolResult) -> ToolResult | None:
    """The PostToolUse hooks' answer for `call`'s `result`: a replacement, or None."""
    root = state.runtime.root.path
    base = state.base("PostToolUse")
    given = claude_input(call.name, _arguments(call), root)
    response = {"output": result.output, "is_error": result.is_error}

    def payload_of(name: str) -> dict[str, Any]:
        return payload.post_tool_use(
            base,
            tool_name=name,
            tool_input=given,
            tool_use_id=call.id,
            rho_tool_name=call.name,
            tool_response=response,
        )

    outcome = await state.run("PostToolUse", payload_of, tool_names(call.name))
    output, is_error = result.output, result.is_error
    if _blocks(outcome):
        output, is_error = f"{output}\n\n{_reason(outcome, 'PostToolUse')}", True
    if outcome.additional_context:
        output = f"{output}\n\nPostToolUse hook context: {outcome.additional_context}"
    if (output, is_error) == (result.output, result.is_error):
        return None
    return ToolResult(output, is_error, result.details)


async def user_prompt_submit(state: HookState, message: str) -> str | PromptContext | None:
    """The UserPromptSubmit hooks' answer: a refusal, context to add, or None."""
    start = await state.session_start if state.session_start is not None else HookOutcome()
    state.session_start = None
    base = state.base("UserPromptSubmit")
    outcome = await state.run(
        "UserPromptSubmit", lambda _: payload.user_prompt_submit(base, prompt=message)
    )
    if _blocks(outcome):
        return _reason(outcome, "UserPromptSubmit")
    context = "\n".join(c for c in (start.additional_context, outcome.additional_context) if c)
    return PromptContext(context) if context else None


async def stop(state: HookState, continued: int) -> str | None:
    """The Stop hooks' answer: the message that continues the turn, or None (it ends)."""
    if continued >= state.max_stop_continuations:
        return None
    base = state.base("Stop")
    outcome = await state.run("Stop", lambda _: payload.stop(base, stop_hook_active=continued > 0))
    if outcome.stop or outcome.verdict not in ("block", "deny"):
        return None
    return outcome.reason or "A Stop hook asks you to continue."


async def session_start(state: HookState, source: str) -> HookOutcome:
    """Run the SessionStart hooks (`source`: startup or resume)."""
    base = state.base("SessionStart")
    return await state.run(
        "SessionStart", lambda _: payload.session_start(base, source=source), (source,)
    )


async def session_end(state: HookState, reason: str) -> None:
    """Run the SessionEnd hooks."""
    base = state.base("SessionEnd")
    await state.run("SessionEnd", lambda _: payload.session_end(base, reason=reason))


async def pre_compact(state: HookState, trigger: str) -> None:
    """Run the PreCompact hooks (`trigger`: manual or auto)."""
    base = state.base("PreCompact")
    await state.run(
        "PreCompact",
        lambda _: payload.pre_compact(base, trigger=trigger, custom_instructions=""),
        (trigger,),
    )


async def notification(state: HookState, tool: str) -> None:
    """Run the Notification hooks: rho waits for the person to approve a call of `tool`."""
    base = state.base("Notification")
    names = tool_names(tool)
    message = f"rho needs your permission to use {names[0]}"
    await state.run(
        "Notification",
        lambda _: payload.notification(
            base, message=message, tool_name=names[0], rho_tool_name=tool
        ),
        ("permission_prompt",),
    )


__all__ = [
    "notification",
    "post_tool_use",
    "pre_compact",
    "pre_tool_use",
    "session_end",
    "session_start",
    "stop",
    "user_prompt_submit",
]
