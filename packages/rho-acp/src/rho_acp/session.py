"""One ACP session: a rho runtime, and the loop's events as `session/update` notifications.

The loop's observer events become updates as they happen (text and reasoning chunks, tool
calls and their results), and the approval gate asks the client with
`session/request_permission`.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.schema import (
    Cost,
    PermissionOption,
    PromptResponse,
    StopReason,
    ToolCallUpdate,
    Usage,
    UsageUpdate,
)

from rho_acp.calls import (
    FileText,
    decoded,
    diff_texts,
    edited_file,
    locations,
    title,
    tool_kind,
)
from rho_acp.permission import ALLOW_ALWAYS, ALLOW_ONCE, REJECT_ONCE, ask, remembering
from rho_kernel import (
    ApprovalDecision,
    ApprovalRequest,
    ImagePart,
    Observer,
    ToolResult,
    escape_controls,
)
from rho_kernel.security import Redactor

if TYPE_CHECKING:
    from rho_acp.prompts import Prompt
    from rho_kernel import AgentResult, RequestUsage, Runtime, UsageContext

#: How each way a prompt ends reads in ACP.
STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "max_iterations": "max_turn_requests",
    "cancelled": "cancelled",
    "consecutive_empty_responses": "end_turn",
}


class AcpSession(Observer):
    """The runtime of ACP session `id`, talking to `client`."""

    def __init__(self, runtime: Runtime, client: Any) -> None:
        self.runtime = runtime
        self.client = client
        self.id = runtime.session.id
        #: The file an edit's call is about to change, as it was (by call id).
        self._before: dict[str, FileText | None] = {}

    async def _send(self, update: Any) -> None:
        await self.client.session_update(session_id=self.id, update=update)

    # ── a turn ─────────────────────────────────────────────────────────────

    async def announce_commands(self) -> None:
        """Tell the client which commands the session offers now."""
        from rho_acp.commands import announcement

        await self.runtime.startup_settled()  # extensions and MCP servers loading
        await self._send(announcement(self.runtime))

    async def prompt(self, prompt: Prompt) -> PromptResponse:
        """Run one prompt (or the command it names); every update is sent before the
        response."""
        from rho_acp.commands import parse

        await self.runtime.startup_settled()  # the commands and tools loading after start
        text = prompt.text
        named = parse(text)
        if named is not None:
            handled = await self._command(*named)
            if isinstance(handled, PromptResponse):
                return handled
            if handled is not None:
                text = handled
        return await self._run(text, prompt.images)

    async def _command(self, name: str, args: str) -> PromptResponse | str | None:
        """Run command `name`: its response, the text to prompt with (an MCP prompt's), or
        None when no command has that name (the text goes to the model as it is)."""
        from rho_acp.commands import plugin_commands
        from rho_acp.extensions import compact, tree
        from rho_kernel import ToolError

        if name in ("compact", "tree"):
            done = await (compact if name == "compact" else tree)(self, {})
            await self._send(update_agent_message_text(json.dumps(done, indent=1)))
            return PromptResponse(stop_reason="end_turn")
        command = plugin_commands(self.runtime).get(name)
        if command is None:
            return None
        try:
            output = await command.run(args)
        except ToolError as exc:  # said to the person, never sent to the model
            await self._send(update_agent_message_text(f"/{name} failed: {exc}"))
            return PromptResponse(stop_reason="end_turn")
        if command.source.startswith("mcp:"):
            return output
        await self._send(update_agent_message_text(output))
        return PromptResponse(stop_reason="end_turn")

    async def _run(self, text: str, images: list[ImagePart]) -> PromptResponse:
        from rho_kernel.frontend import AgentError

        try:
            result = await self.runtime.prompt(
                text, images=images, observers=[self], gate=_Gate(self)
            )
        except AgentError as exc:  # the provider failed, a plugin refused the prompt, …
            from acp import RequestError

            raise RequestError.internal_error({"message": exc.message}) from None
        tokens = result.usage.tokens
        usage = Usage(
            total_tokens=tokens.input_tokens + tokens.output_tokens,
            input_tokens=tokens.input_tokens,
            output_tokens=tokens.output_tokens,
            thought_tokens=tokens.reasoning_tokens or None,
            cached_read_tokens=tokens.cached_tokens or None,
        )
        reason = STOP_REASONS.get(result.finish_reason, "end_turn")
        return PromptResponse(stop_reason=reason, usage=usage)

    def adopt(self, session: Any) -> None:
        """Continue in `session` (a fork) from now on."""
        self.runtime.session = session
        self.id = session.id

    def cancel(self) -> None:
        """Stop the running prompt (its response says `cancelled`)."""
        self.runtime.abort()

    # ── the loop's events ──────────────────────────────────────────────────

    async def on_text_delta(self, delta: str) -> None:
        await self._send(update_agent_message_text(delta))

    async def on_reasoning_delta(self, delta: str) -> None:
        await self._send(update_agent_thought_text(delta))

    async def on_tool_call(self, name: str, arguments: str, call_id: str | None = None) -> None:
        args = decoded(arguments)
        kind = tool_kind(self.runtime.tools.get(name))
        if kind == "edit":
            # On a thread: the sandbox may ask the editor, which answers on this loop.
            before = await asyncio.to_thread(edited_file, self.runtime.root, args)
            self._before[call_id or name] = before
        await self._send(
            start_tool_call(
                call_id or name,
                title(name, args),
                kind=kind,
                status="pending",
                locations=locations(args, self.runtime.root.path),
                raw_input=args,
            )
        )

    async def on_tool_result(
        self,
        name: str,
        result: ToolResult,
        call_id: str | None = None,
        full_output: str | None = None,
    ) -> None:
        content: list[Any] = [tool_content(text_block(result.output))]
        before = self._before.pop(call_id or name, None)
        if before is not None and not result.is_error:
            after = await asyncio.to_thread(edited_file, self.runtime.root, {"path": before.path})
            if after is not None and after.text != before.text:
                path = str(self.runtime.root.path / before.path)
                redactor = Redactor.from_config(self.runtime.config.redaction)
                old, new = await asyncio.to_thread(diff_texts, redactor, before, after)
                content.append(tool_diff_content(path, new, old))
        await self._send(
            update_tool_call(
                call_id or name,
                status="failed" if result.is_error else "completed",
                content=content,
            )
        )

    async def on_usage(self, iteration: int, usage: RequestUsage, context: UsageContext) -> None:
        stats = context.stats
        if stats is None:
            return
        await self._send(
            UsageUpdate(
                session_update="usage_update",
                used=max(0, stats.estimated_used),
                size=max(0, stats.context_window),
                cost=Cost(amount=usage.cost, currency="USD") if usage.cost else None,
            )
        )

    async def on_tool_denied(self, name: str, call_id: str | None = None) -> None:
        await self._send(update_tool_call(call_id or name, status="failed"))

    async def on_agent_end(self, result: AgentResult) -> None:
        return None


def sandbox_suffix(request: ApprovalRequest) -> str:
    """What the title of a call that starts processes adds: how they would run."""
    if request.sandbox is None:
        return ""
    from rho_kernel.frontend import sandbox_summary

    return f" [sandbox: {sandbox_summary(request.sandbox)}]"


def sandbox_meta(request: ApprovalRequest) -> dict[str, Any] | None:
    """The sandbox state for clients that read it (`_meta.rho.sandbox`, as `getState`
    gives it over JSON-RPC), for a call that starts processes."""
    if request.sandbox is None:
        return None
    status = request.sandbox
    said: dict[str, Any] = {"mode": status.mode, "backend": status.backend}
    if status.problem is not None:
        said |= {"problem": status.problem, "fix": status.fix}
    if status.asks:
        said["alwaysAsks"] = True
    if status.limits:
        said["limits"] = list(status.limits)
    return {"rho": {"sandbox": said}}


class _Gate:
    """Asks the client, as `session/request_permission`, about a call that needs approval."""

    def __init__(self, session: AcpSession) -> None:
        self.session = session

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        args = decoded(request.arguments)
        remembered = remembering(request.suggested_rules)
        options = [
            PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
            *(
                PermissionOption(
                    option_id=option_id,
                    name=escape_controls(rule.title),
                    kind="allow_always",
                    field_meta={"rho": {"rule": rule.rule, "scope": rule.scope}},
                )
                for option_id, rule in remembered.items()
            ),
            PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
        ]
        call = ToolCallUpdate(
            tool_call_id=request.call_id,
            title=title(request.tool, args) + sandbox_suffix(request),
            kind=tool_kind(self.session.runtime.tools.get(request.tool)),
            raw_input=args,
            field_meta=sandbox_meta(request),
        )
        offered = [option.option_id for option in options]
        return await ask(
            lambda: self.session.client.request_permission(
                session_id=self.session.id, tool_call=call, options=options
            ),
            offered,
            remembered,
        )


__all__ = ["ALLOW_ALWAYS", "ALLOW_ONCE", "REJECT_ONCE", "STOP_REASONS", "AcpSession"]
