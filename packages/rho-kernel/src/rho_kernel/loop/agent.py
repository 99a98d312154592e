"""The agent loop: thinking → awaiting_approval → executing_tool → … → idle."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, cast

from rho_kernel import diagnostics, hookspecs
from rho_kernel.approvals.preview import PlanChanged
from rho_kernel.approvals.remembered import APPROVED_BY_KIND
from rho_kernel.cancel import Cancelled, CancelToken
from rho_kernel.confinement.hints import with_created_note
from rho_kernel.confinement.state import SandboxStatus
from rho_kernel.context.bounding import (
    BatchAllowance,
    Bounded,
    bound_ends,
    bound_error,
    bound_text,
    shown,
)
from rho_kernel.context.budget import TokenBudget
from rho_kernel.context.estimator import TokenEstimator, utf8_len
from rho_kernel.context.fitting import ContextFitter, ContextOverflow, FitResult
from rho_kernel.context.outlines import tool_outline
from rho_kernel.encoding import scrub_surrogates
from rho_kernel.loop.approval import ApprovalDecision, ApprovalGate, ApprovalRequest
from rho_kernel.loop.arguments import ArgumentsError, decode_arguments, encode_arguments
from rho_kernel.loop.guards import PhaseTracker, StuckLoopDetector
from rho_kernel.loop.observer import Observer, supported_keywords
from rho_kernel.loop.precheck import precondition_problem
from rho_kernel.loop.result import (
    AgentError,
    AgentResult,
    CompactionTrigger,
    FinishReason,
    OutcomeKind,
    RequestKind,
    RequestUsage,
    RunUsage,
    ToolCallRecord,
    UsageContext,
    new_turn_id,
    request_cost,
)
from rho_kernel.loop.retrying import provider_failure, retry_delay, retry_limit
from rho_kernel.loop.steering import SteeringQueue
from rho_kernel.messages import ChatMessage, ImagePart, ToolCall
from rho_kernel.messages import FinishReason as MessageFinish
from rho_kernel.providers.cache_hints import request_hints
from rho_kernel.providers.events import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ReasoningDelta,
    TextDelta,
)
from rho_kernel.security.redaction import Redactor, StreamRedactor
from rho_kernel.session.store import CANCELLED_TOOL_CALL
from rho_kernel.tools.base import (
    UNDECLARED_RISK,
    OutputSink,
    Risk,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
)
from rho_kernel.tools.intercept import Block, Intercepted
from rho_kernel.turn_hooks import context_message

if TYPE_CHECKING:
    from rho_kernel.approvals.escalation import Escalation
    from rho_kernel.approvals.preview import Preview
    from rho_kernel.approvals.ruleset import ApprovalRules
    from rho_kernel.approvals.suggest import SuggestedRule
    from rho_kernel.compaction.compactor import CompactionOutcome, Compactor
    from rho_kernel.config.model import PermissionMode, RhoConfig
    from rho_kernel.confinement.state import Confinement
    from rho_kernel.plugins import PluginHost
    from rho_kernel.providers.catalog import ModelCatalog
    from rho_kernel.providers.resolve import ResolvedProvider
    from rho_kernel.providers.service import LlmService
    from rho_kernel.security.commands import CommandPolicy
    from rho_kernel.security.key_scan import ProjectKeys
    from rho_kernel.security.sandbox import SandboxRoot
    from rho_kernel.session.stats import ContextMeter
    from rho_kernel.session.store import Session
    from rho_kernel.tools.registry import ToolRegistry

EMPTY_REPLY_NUDGE = (
    "Your previous response was empty. Please provide a tool call or text response and try again."
)
EMPTY_REPLY_GIVE_UP = (
    "The model returned empty responses consecutively and was unable to continue. "
    "Try rephrasing the request or switching to a more capable model."
)
TRUNCATED_NUDGE = (
    "Your previous reply was cut off at the output token limit. Older turns were compacted to "
    "make room; continue exactly where you stopped, without repeating yourself."
)
TRUNCATED_GAVE_UP = (
    "[The reply was cut off at the output token limit ([agent] completion_reserve) and "
    "compacting older turns could not make room. Ask to continue, or raise "
    "completion_reserve.]"
)
#: How many times a call is planned and asked when its file keeps changing in between.
MAX_PLANS = 3
PLAN_KEPT_CHANGING = (
    "Tool call not run: the file kept changing between its preview and the approval, so "
    "nothing was written. Read it again and redo the change."
)
ESCALATION_REFUSAL = (
    "Tool call refused: leaving the sandbox is turned off here ([sandbox] allow_escalation = "
    "false). Run the command inside the sandbox, or tell the user what it needs."
)
READ_ONLY_REFUSAL = (
    'Tool call refused: the approval mode is "read-only", in which only tools that read run. '
    "Describe the change you would make instead, or ask the user to switch modes."
)
TURN_ERROR_KIND = "rho.turn_error.v1"
CANCELLED = CANCELLED_TOOL_CALL
CANCELLED_BEFORE_RUN = "Tool call cancelled before it ran."
SKIPPED_BY_REDIRECT = "Tool call skipped: the user redirected the turn."
NO_APPROVER = "no one is there to approve it (this run has no approval gate)"
#: Bytes counted for the wrapping of each tool definition (`{"type": "function", …}`).
TOOL_DEFINITION_OVERHEAD = 48


#: The arguments of one observer event (`AgentLoop.emit`).
_EventArgs = ParamSpec("_EventArgs")


def _ask() -> PermissionMode:
    return "ask"


def _mode_runs(permission: PermissionMode, tool: Tool, risk: Risk) -> bool:
    """Whether the permission mode runs a call the policy would ask about: every call in
    `auto`, a file write in the project (a `path` tool that writes) in `auto-edit`."""
    if permission == "auto":
        return True
    return permission == "auto-edit" and risk == Risk.WRITE and tool.rule_subject == "path"


@dataclass
class LoopParams:
    """Everything one run of the loop needs besides the session and the message."""

    service: LlmService
    model: str
    tools: ToolRegistry
    plugins: PluginHost
    config: RhoConfig
    root: SandboxRoot
    cancel: CancelToken = field(default_factory=CancelToken)
    observers: Sequence[Observer] = ()
    gate: ApprovalGate | None = None
    steering: SteeringQueue = field(default_factory=SteeringQueue)
    provider_name: str = ""
    #: The provider the requests go to, for failure advice that fits how it was chosen.
    provider: ResolvedProvider | None = None
    catalog: ModelCatalog | None = None
    meter: ContextMeter | None = None
    #: Applied to every tool result and live output (default: built from `config.redaction`).
    redactor: Redactor | None = None
    #: The OS sandbox of the commands tools start (None: unconfined).
    confinement: Confinement | None = None
    #: Runs compactions (None: built from the plugins' strategies on first use).
    compactor: Compactor | None = None
    #: The context window split (default: `[agent] token_budget` and `completion_reserve`).
    budget: TokenBudget | None = None
    #: Bytes-per-token ratios, calibrated by each response's usage (default: a fresh one).
    estimator: TokenEstimator | None = None
    #: Keeps the fitting plan between requests (default: a fresh one for this prompt).
    fitter: ContextFitter | None = None
    #: Names this turn on every event and in its result (default: a fresh one).
    turn_id: str = field(default_factory=new_turn_id)
    #: The approval rules in force (None: none): deny rules refuse first, allow rules run a
    #: call the policy would ask about.
    rules: ApprovalRules | None = None
    #: The permission mode now (read at each call: a client may switch it mid-turn).
    permission_mode: Callable[[], PermissionMode] = _ask
    #: Keeps a rule an approval asked to remember (None: approvals remember nothing).
    remember: Callable[[SuggestedRule], Awaitable[None]] | None = None
    #: Why a plugin refuses this prompt (see `hookspecs.rho_prompt_starting`): the run fails
    #: with it before the message is added or anything is sent.
    refusal: str | None = None
    #: What plugins add to the prompt, as (plugin, text): each follows the user's message.
    context: Sequence[tuple[str, str]] = ()
    #: The messages to continue a turn with instead of ending it (see
    #: `hookspecs.rho_turn_ending`), given the reply and the continuations so far.
    turn_ending: Callable[[str, int], Awaitable[list[str]]] | None = None


class _Redirected(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class AgentLoop:
    """Runs one prompt to its end against a session; create one per prompt."""

    def __init__(self, session: Session, params: LoopParams) -> None:
        self.session = session
        #: What this run needs besides the session: service, tools, plugins, config, …
        self.params = params
        self.agent = params.config.agent
        self.usage = RunUsage()
        self.records: list[ToolCallRecord] = []
        self.iterations = 0
        self.started = time.monotonic()
        self.turn_id = params.turn_id
        self.last_text = ""
        self.last_reasoning = ""
        self.phase = PhaseTracker()
        self.stuck = StuckLoopDetector(params.config.agent.stuck_loop_threshold)
        self.compactor = params.compactor
        self.meter = params.meter
        # The text and reasoning of a reply cut off at the token limit, being continued.
        self.continued = ""
        self.continued_reasoning = ""
        agent = params.config.agent
        self.budget = params.budget or TokenBudget.of(
            agent.token_budget, agent.completion_reserve, "config"
        )
        self.estimator = params.estimator or TokenEstimator()
        self.fitter = params.fitter or ContextFitter()
        self.fitted: FitResult | None = None
        self._request_bytes = 0
        self._schemas: tuple[int, int] | None = None  # (id of the schema list, its bytes)
        #: The escalation and the previewed plan approved for each call about to run.
        self._escalations: dict[str, Escalation] = {}
        #: Calls a person approved knowing that their processes run unconfined.
        self._unconfined_approved: set[str] = set()
        self._plans: dict[str, str] = {}
        self._allowance: BatchAllowance | None = None
        #: How many times a plugin continued this turn as it would have ended.
        self._continuations = 0

    # ── events ──────────────────────────────────────────────────────────────

    async def emit(
        self,
        event: Callable[Concatenate[Observer, _EventArgs], Awaitable[None]],
        *args: _EventArgs.args,
        **keywords: _EventArgs.kwargs,
    ) -> None:
        """Deliver `event`, an `Observer` method (`Observer.on_text_delta`), to every observer:
        a type checker checks the arguments against its signature. Keyword arguments (and
        `turn_id`, on every event) reach only the observers that declare them."""
        method = event.__name__
        given = {**keywords, "turn_id": self.turn_id}
        for observer in self.params.observers:
            try:
                bound = getattr(observer, method)
                await bound(*args, **supported_keywords(bound, given))
            except Exception as exc:  # an observer must never stop the loop
                diagnostics.warn(f"observer {type(observer).__name__}.{method} failed: {exc}")

    def _say(self, text: str) -> None:
        """Say a step of the turn (a retry, a compaction) on stderr, unless an observer
        shows the turn's progress to a person itself (`Observer.shows_progress`)."""
        if not any(getattr(o, "shows_progress", False) for o in self.params.observers):
            diagnostics.info(text)

    async def state(self, state: str) -> None:
        await self.emit(Observer.on_state_change, state)

    # ── the loop ────────────────────────────────────────────────────────────

    async def run(self, message: str, images: Sequence[ImagePart] = ()) -> AgentResult:
        """Append `message` (and `images`) as a user turn and loop until the model answers
        or a guard stops it."""
        await self.emit(Observer.on_agent_start)
        self.params.steering.open(self.turn_id)
        if (keys := self._project_keys()) is not None:
            keys.start()  # the project's private keys, learned while the model thinks
        try:
            if self.params.refusal is not None:
                raise AgentError(self.params.refusal, "agent")
            # Nothing will answer a call left open on the path (the leaf moved onto one, say):
            # close it as resume does, so the request stays valid for strict providers.
            self.session.close_open_tool_calls()
            self.session.append_message(ChatMessage.user(scrub_surrogates(message), images))
            for plugin, text in self.params.context:
                added = context_message(plugin, self._redacted(scrub_surrogates(text)))
                self.session.append_message(ChatMessage.user(added))
            self._take_steering()  # sent for this turn before it began: the model sees it now
            result = await self._loop()
        except AgentError as exc:
            self.params.steering.close()
            exc.turn_id = self.turn_id
            await self._fail(exc)
            raise
        except Exception as exc:  # a session write failed, a plugin broke the loop, …
            self.params.steering.close()
            error = AgentError(f"{type(exc).__name__}: {exc}", _category(exc))
            error.turn_id = self.turn_id
            await self._fail(error)
            raise error from exc
        await self.state("idle")
        await self.emit(Observer.on_agent_end, result)
        return result

    async def _loop(self) -> AgentResult:
        empty_streak = 0
        truncated_before = False
        while True:
            if (stop := self._stop_reason()) is not None:
                return self._finish(stop)
            response = await self._ask_model()
            if isinstance(response, AgentResult):
                return response
            if _is_empty(response):
                empty_streak += 1
                if self._give_up_on_empty(empty_streak):
                    return self._finish("consecutive_empty_responses")
                continue
            empty_streak = 0
            self._record_reply(response)
            if not response.tool_calls:
                step = await self._after_reply(response, truncated_before)
                if step == "stop":
                    return self._finish("stop")
                truncated_before = truncated_before or step == "continued"
                continue
            if not await self._run_tools(response.tool_calls):
                return self._finish("cancelled")

    def _stop_reason(self) -> FinishReason | None:
        """Why the turn must end before the next model call, if it must."""
        if self.params.cancel.cancelled:
            return "cancelled"
        if self.iterations >= self.agent.max_iterations:
            return "max_iterations"
        return None

    async def _ask_model(self) -> ModelResponse | AgentResult:
        """One model call, or the turn's result when the call ends it."""
        await self.state("thinking")
        try:
            response = await self._call_model()
        except Cancelled:
            return self._finish("cancelled")
        self.iterations += 1
        return response

    def _give_up_on_empty(self, streak: int) -> bool:
        """After an empty reply: True when `streak` of them ends the turn, else nudge."""
        limit = self.agent.max_consecutive_empty
        if limit and streak >= limit:
            self.last_text = EMPTY_REPLY_GIVE_UP
            return True
        self.session.append_message(ChatMessage.user(EMPTY_REPLY_NUDGE))
        return False

    def _record_reply(self, response: ModelResponse) -> None:
        """Keep the assistant's reply in the session and as the turn's text so far."""
        response.tool_calls = unique_call_ids(response.tool_calls)
        finish = response.finish_reason
        self.session.append_message(
            ChatMessage.assistant(
                response.text,
                tool_calls=response.tool_calls,
                finish_reason=(
                    cast(MessageFinish, finish) if finish in _PERSISTED_FINISH else None
                ),
            )
        )
        # The reply is the assistant's text as streamed and stored; reasoning is kept apart.
        self.last_text = self.continued + response.text
        self.last_reasoning = self.continued_reasoning + (response.reasoning or "")
        self.continued = self.continued_reasoning = ""

    async def _after_reply(self, response: ModelResponse, truncated_before: bool) -> str:
        """A reply without tool calls: "continued" (a cut reply is asked to go on),
        "steered" (the client sent more meanwhile) or "stop"."""
        if response.finish_reason == "length" and response.text:
            if await self._continue_truncated(truncated_before):
                return "continued"
            self.last_text = f"{self.last_text}\n\n{TRUNCATED_GAVE_UP}"
        if self._take_steering():  # steered after the last tool batch: answer it too
            return "steered"
        if await self._continued_by_plugin():
            return "steered"
        self.phase.conclude()
        return "stop"

    async def _continued_by_plugin(self) -> bool:
        """Whether a plugin continues the turn (its messages added as user turns); an abort
        meanwhile continues too, into the loop's own check."""
        if self.params.turn_ending is None:
            return False
        asked = self.params.turn_ending(self.last_text, self._continuations)
        try:
            messages = await self.params.cancel.run(asked)
        except Cancelled:
            return True
        for text in messages:
            self.session.append_message(ChatMessage.user(self._redacted(scrub_surrogates(text))))
        self._continuations += bool(messages)
        return bool(messages)

    async def _run_tools(self, calls: list[ToolCall]) -> bool:
        """Run the reply's tool calls; False when the turn was cancelled meanwhile."""
        try:
            await self._run_batch(calls)
        except _Redirected as redirect:
            self.session.append_message(ChatMessage.user(scrub_surrogates(redirect.message)))
            return True
        except Cancelled:
            return False
        self._take_steering()
        await self._auto_compact()
        return True

    # ── compaction ──────────────────────────────────────────────────────────

    async def _auto_compact(self) -> None:
        """After a tool batch: compact when the context is `auto_compact_threshold`% full."""
        threshold = self.agent.auto_compact_threshold
        if threshold <= 0 or self.params.cancel.cancelled:
            return
        stats = self._meter().stats(self.session)
        if stats.utilization_percent >= threshold:
            await self._compact(stats.prompt_budget, "auto")

    async def _continue_truncated(self, tried: bool) -> bool:
        """A reply was cut off at the token limit: compact, then ask the model to go on.

        Once per turn; False (the turn ends) when that was done already or nothing could be
        compacted.
        """
        if tried or self.params.cancel.cancelled:
            return False
        stats = self._meter().stats(self.session)
        outcome = await self._compact(stats.prompt_budget, "truncated")
        if outcome is None or not outcome.compacted:
            return False
        self.continued = self.last_text
        self.continued_reasoning = self.last_reasoning
        self.session.append_message(ChatMessage.user(TRUNCATED_NUDGE))
        return True

    async def _compact(self, budget: int, trigger: CompactionTrigger) -> CompactionOutcome | None:
        """Compact the oldest quarter of the budget and tell the observers; a failure is
        reported, never raised."""
        await self.emit(Observer.on_compaction_start, trigger)
        try:
            outcome = await self._compactor().compact(
                self.session, budget_tokens=budget, target_tokens=max(1, budget // 4)
            )
        except Exception as exc:
            diagnostics.warn(f"compaction failed: {type(exc).__name__}: {exc}")
            return None
        if outcome.compacted:
            self._say(
                f"compacted {outcome.entries_compacted} entries ({outcome.tokens_before} → "
                f"{outcome.tokens_after} tokens) with the '{outcome.strategy}' strategy"
            )
            await self.emit(Observer.on_context_compacted, outcome.event(trigger))
        return outcome

    def _compactor(self) -> Compactor:
        if self.compactor is None:
            from rho_kernel.compaction import Compactor, collect_strategies, model_call, tool_phases

            self.compactor = Compactor(
                collect_strategies(self.params.plugins),
                config=self.params.config,
                model=self.params.model,
                complete=model_call(
                    self.params.service,
                    self.params.model,
                    self.params.cancel,
                    self.count_compaction,
                ),
                tool_phases=tool_phases(self.params.tools),
            )
        return self.compactor

    def _meter(self) -> ContextMeter:
        if self.meter is None:
            from rho_kernel.compaction import tool_phases
            from rho_kernel.session.stats import ContextMeter, schema_tokens

            self.meter = ContextMeter(
                context_window=self.agent.token_budget,
                completion_reserve=self.agent.completion_reserve,
                tool_phases=tool_phases(self.params.tools),
                overhead_tokens=schema_tokens(self.params.tools.schemas()),
            )
        return self.meter

    def _take_steering(self) -> bool:
        """Append the queued steering messages as user turns; whether there were any."""
        messages = self.params.steering.take()
        for text in messages:
            self.session.append_message(ChatMessage.user(scrub_surrogates(text)))
        return bool(messages)

    async def _fail(self, error: AgentError) -> None:
        self._record_turn_error(error)
        await self.state("idle")
        await self.emit(Observer.on_agent_error, error.message, failure=error.failure)

    def _finish(self, reason: FinishReason) -> AgentResult:
        self.params.steering.close()  # in the same step as the decision to end: nothing slips in
        return AgentResult(
            reply=self.last_text,
            iterations=self.iterations,
            usage=self.usage,
            tool_calls=self.records,
            duration_ms=int((time.monotonic() - self.started) * 1000),
            finish_reason=reason,
            reasoning=(self.last_reasoning or None) if self.agent.show_reasoning else None,
            turn_id=self.turn_id,
        )

    def _record_turn_error(self, error: AgentError) -> None:
        try:
            self.session.append_custom(
                TURN_ERROR_KIND, {"category": error.category, "error": error.message}
            )
        except Exception as exc:  # recording the failure must not hide it
            diagnostics.warn(f"could not record the turn error: {exc}")

    # ── model calls ─────────────────────────────────────────────────────────

    def _request(self) -> ModelRequest:
        """The next request: the session's current path fitted into the prompt budget, with
        the cache hints the provider takes (keyed to this session: `providers.cache_hints`).

        Raises `AgentError` when the conversation cannot fit at all (see `ContextOverflow`),
        so that no request the provider would refuse is sent.
        """
        schemas = self.params.tools.schemas()
        overhead = self._schema_bytes(schemas)
        try:
            fitted = self.fitter.fit(
                self.session,
                budget_tokens=self.budget.prompt_budget,
                ratio=self.estimator.ratio(self.params.model),
                overhead_bytes=overhead,
                tools=schemas,
                low_water=self.agent.fit_low_water,
            )
        except ContextOverflow as exc:
            raise AgentError(str(exc), "agent") from None
        self.fitted = fitted
        self._request_bytes = self.fitter.size + overhead
        return ModelRequest(
            model=self.params.model,
            messages=fitted.messages,
            tools=schemas,
            max_tokens=self.budget.completion_reserve,
            reasoning_effort=self.agent.reasoning_effort,
            cache=request_hints(self.params.provider, self.params.model, self.session.id),
        )

    def _schema_bytes(self, schemas: list[dict[str, Any]]) -> int:
        """The size of the tool definitions as sent (computed once per schema list): their
        JSON and the wrapping each wire protocol puts around every definition."""
        if self._schemas is None or self._schemas[0] != id(schemas):
            self._schemas = (id(schemas), tool_definition_bytes(schemas))
        return self._schemas[1]

    async def _call_model(self) -> ModelResponse:
        """The model's response to the next request, retried as `loop.retrying` allows; a
        failure after the last retry raises `AgentError` with its `ProviderFailure`."""
        attempt = 0
        request = self._request()
        while True:
            try:
                response = await self.params.cancel.run(self._stream(request))
            except ProviderError as exc:
                limit = retry_limit(exc, self.agent.retry_budget)
                if attempt >= limit:
                    raise provider_failure(
                        exc, attempt + 1, self.params.provider, self.params.model
                    ) from None
                attempt += 1
                await self._back_off(attempt, limit, exc)
                continue
            if response.usage is not None:
                self.estimator.calibrate(
                    self.params.model, self._request_bytes, response.usage.input_tokens
                )
            await self._count(response, "turn", self.fitted)
            return response

    async def count_compaction(self, response: ModelResponse) -> None:
        """Count the response to an LLM compaction's model request: in the run's usage and,
        through `on_usage` marked "compaction", in every observer's (the process totals)."""
        await self._count(response, "compaction", None)

    async def _count(
        self, response: ModelResponse, kind: RequestKind, fitted: FitResult | None
    ) -> None:
        cost = request_cost(
            response.usage, self.params.catalog, self.params.model, self.params.provider_name
        )
        self.usage.request_count += 1
        if response.usage is not None:
            self.usage.tokens.add(response.usage)
        self.usage.total_cost += cost
        stats = self.params.meter.stats(self.session) if self.params.meter is not None else None
        usage = RequestUsage.of(response.usage, cost, kind)
        context = UsageContext(stats=stats, fitted=fitted)
        await self.emit(Observer.on_usage, self.iterations + 1, usage, context)

    async def _back_off(self, attempt: int, limit: int, error: ProviderError) -> None:
        """Wait before retry `attempt` (1-based) of `limit` (see `loop.retrying`)."""
        delay = retry_delay(error, attempt, self.agent.initial_backoff_ms)
        self._say(f"{error.message} — retrying in {delay:.1f}s (retry {attempt} of {limit})")
        await self.emit(Observer.on_retry, attempt, limit, delay, error.text)
        await self.params.cancel.run(asyncio.sleep(delay))

    async def _stream(self, request: ModelRequest) -> ModelResponse:
        async for event in self.params.service.stream(request):
            if isinstance(event, TextDelta):
                await self.emit(Observer.on_text_delta, event.text)
            elif isinstance(event, ReasoningDelta):
                await self.emit(Observer.on_reasoning_delta, event.text)
            else:
                return event
        raise ProviderError(
            "the model stream ended without a response",
            kind="decode",
            provider=self.params.provider_name,
        )

    # ── tools ───────────────────────────────────────────────────────────────

    async def _run_batch(self, calls: list[ToolCall]) -> None:
        self._allowance = BatchAllowance(self._result_share(), len(calls))
        for index, call in enumerate(calls):
            if self.params.cancel.cancelled:
                await self._skip_rest(calls[index:], CANCELLED_BEFORE_RUN)
                raise Cancelled()
            try:
                await self._run_call(call)
            except _Redirected:
                await self._skip_rest(calls[index + 1 :], SKIPPED_BY_REDIRECT)
                raise
            except Cancelled:
                await self._skip_rest(calls[index + 1 :], CANCELLED_BEFORE_RUN)
                raise

    async def _skip_rest(self, calls: list[ToolCall], text: str) -> None:
        """Answer the calls that will not run: announced and recorded like every other call
        (every call of an assistant message needs a result, or the next request is invalid)."""
        for call in calls:
            await self.emit(Observer.on_tool_call, call.name, call.arguments, call_id=call.id)
            await self._finish_call(call, ToolResult.error(text), "cancelled")

    async def _run_call(self, call: ToolCall) -> None:
        """One call: announce, decode and intercept, authorise, execute, record."""
        await self.emit(Observer.on_tool_call, call.name, call.arguments, call_id=call.id)
        prepared = await self._prepare(call)
        if prepared is None:
            return
        tool, intercepted = prepared
        arguments = intercepted.arguments
        for _ in range(MAX_PLANS):
            if not await self._authorise(call, tool, intercepted):
                return
            try:
                await self._execute(call, tool, arguments)
                return
            except PlanChanged:
                continue  # the file changed after the approved preview: plan and ask again
        await self._finish_call(call, ToolResult.error(PLAN_KEPT_CHANGING), "error")

    async def _prepare(self, call: ToolCall) -> tuple[Tool, Intercepted] | None:
        """Decode the arguments, let plugins block, rewrite or settle the approval question,
        find the tool (None: finished)."""
        tool = self.params.tools.get(call.name)
        try:
            arguments = decode_arguments(call.arguments)
        except ArgumentsError as exc:
            await self._finish_call(
                call,
                ToolResult.error(f"{call.name}: {exc}. Send the arguments as one JSON object."),
                "error",
            )
            return None
        hooks = self.params.plugins.intercept(call, arguments, tool)
        try:
            intercepted = await self.params.cancel.run(hooks)
        except Cancelled:
            hooks.close()  # never started when the turn was already cancelled
            await self._finish_call(call, ToolResult.error(CANCELLED), "cancelled")
            raise
        if isinstance(intercepted, Block):
            reason = self._redacted(intercepted.reason)
            await self._finish_call(
                call, ToolResult.error(f"Tool call blocked: {reason}"), "blocked"
            )
            return None
        if tool is None:
            available = ", ".join(sorted(t.name for t in self.params.tools)) or "none"
            await self._finish_call(
                call,
                ToolResult.error(f"unknown tool '{call.name}'. Available tools: {available}"),
                "error",
            )
            return None
        return tool, intercepted

    async def _authorise(self, call: ToolCall, tool: Tool, intercepted: Intercepted) -> bool:
        """Apply the approval rules, policy and mode, and ask the gate; False when the call
        must not run (see docs/approvals.md for the order).

        A call that starts processes while configured writable paths are not yet granted
        asks even when the policy would run it without asking; approving it grants them. A
        call that asks to leave the sandbox always asks. A plugin's `Permission` settles the
        question after the deny rules, the policy's deny and the read-only mode.
        """
        arguments, permission = intercepted.arguments, intercepted.permission
        if await self._denied_by_rule(call, tool, arguments):
            return False
        allowed, escalation = await self._escalation(call, tool, arguments)
        if not allowed:
            return False
        risk = self._call_risk(call, tool, arguments)
        sandbox = await self._sandbox_status() if tool.runs_processes else None
        if tool.confined_risk is not None and sandbox is not None and sandbox.mode == "confined":
            risk = tool.confined_risk
        mode = self._policy(call, risk)
        if mode == "deny":
            await self.emit(Observer.on_tool_denied, call.name, call_id=call.id)
            denial = f'Tool call denied by policy: [approval.per_tool] {call.name} = "deny".'
            await self._finish_call(call, ToolResult.error(denial), "denied")
            return False
        if self.params.permission_mode() == "read-only" and risk != Risk.READ:
            await self.emit(Observer.on_tool_denied, call.name, call_id=call.id)
            await self._finish_call(call, ToolResult.error(READ_ONLY_REFUSAL), "denied")
            return False
        confinement = self.params.confinement if tool.runs_processes else None
        pending = confinement.pending_writable() if confinement is not None else []
        # Where nothing confines commands, only a person's answer runs one.
        unconfined = sandbox is not None and sandbox.mode == "unconfined" and sandbox.asks
        if escalation is None and not pending and not unconfined:
            if permission is not None and permission.decision == "allow":
                await self._allowed_by_plugin(call, intercepted)
                return True
            if permission is None and await self._runs_unasked(call, tool, arguments, mode, risk):
                return True
        if await self._cannot_run(call, tool, arguments):
            return False
        reason = permission.reason if permission is not None else None
        try:
            decision = await self._ask(call, tool, arguments, risk, escalation, reason)
        except Cancelled:
            await self._finish_call(call, ToolResult.error(CANCELLED), "cancelled")
            raise
        approved = await self._decided(call, decision, pending)
        if approved and escalation is not None:
            self._escalations[call.id] = escalation
        if approved and unconfined:
            self._unconfined_approved.add(call.id)
        return approved

    async def _cannot_run(self, call: ToolCall, tool: Tool, arguments: dict[str, Any]) -> bool:
        """Answer, without asking anyone, a call that its tool says cannot run (see
        `loop.precheck`): its problem is the call's error result."""
        owner = self.params.tools.owner(call.name) or "<unknown>"
        try:
            problem = await precondition_problem(
                tool,
                arguments,
                self._tool_context(call, None),
                self.params.cancel,
                lambda text: self.params.plugins.report(f"plugin '{owner}': {text}"),
            )
        except Cancelled:
            await self._finish_call(call, ToolResult.error(CANCELLED), "cancelled")
            raise
        if problem is None:
            return False
        said = bound_error(self._redacted(problem))  # redacted whole, then cut
        await self._finish_call(call, ToolResult.error(said), "error")
        return True

    async def _runs_unasked(
        self, call: ToolCall, tool: Tool, arguments: dict[str, Any], mode: str, risk: Risk
    ) -> bool:
        """Whether the policy, the permission mode or an allow rule runs the call unasked."""
        if mode != "ask" or _mode_runs(self.params.permission_mode(), tool, risk):
            return True
        return await self._allowed_by_rule(call, tool, arguments)

    async def _allowed_by_plugin(self, call: ToolCall, intercepted: Intercepted) -> None:
        """Announce and record that a plugin's `Permission` runs the call without asking."""
        assert intercepted.permission is not None
        rule = intercepted.permission.reason or "allowed by a plugin"
        source = f"plugin {intercepted.permission_source}"
        await self.emit(Observer.on_tool_approved, call.name, rule, source, call_id=call.id)
        data = {"callId": call.id, "tool": call.name, "rule": rule, "source": source}
        self.session.append_custom(APPROVED_BY_KIND, data)

    async def _escalation(
        self, call: ToolCall, tool: Tool, arguments: dict[str, Any]
    ) -> tuple[bool, Escalation | None]:
        """(whether the call may go on, the escalation it asks for): a malformed request or
        one that `[sandbox] allow_escalation = false` forbids is answered here."""
        from rho_kernel.approvals.escalation import EscalationError, requested_escalation

        try:
            escalation = requested_escalation(tool, arguments)
        except EscalationError as exc:
            await self._finish_call(call, ToolResult.error(f"{call.name}: {exc}"), "error")
            return False, None
        if escalation is not None and not self.params.config.sandbox.allow_escalation:
            await self.emit(Observer.on_tool_denied, call.name, call_id=call.id)
            await self._finish_call(call, ToolResult.error(ESCALATION_REFUSAL), "denied")
            return False, None
        return True, escalation

    async def _denied_by_rule(self, call: ToolCall, tool: Tool, arguments: dict[str, Any]) -> bool:
        """Refuse the call when a deny rule covers it (before anything else is decided)."""
        rules = self.params.rules
        if rules is None or not rules.deny:
            return False
        root = self.params.root  # paths are matched as the sandbox resolves them
        denial = await asyncio.to_thread(rules.denying, tool, arguments, root=root)
        if denial is None:
            return False
        await self.emit(Observer.on_tool_denied, call.name, call_id=call.id)
        text = f"Tool call denied by the rule {denial.rule.text!r} ({denial.source})."
        await self._finish_call(call, ToolResult.error(text), "denied")
        return True

    async def _allowed_by_rule(self, call: ToolCall, tool: Tool, arguments: dict[str, Any]) -> bool:
        """Whether an allow rule runs this call without asking (announced, naming it, and
        recorded in the session)."""
        rules = self.params.rules
        if rules is None:
            return False
        policy = self._command_policy() if tool.rule_subject == "command" else None
        root = self.params.root  # paths are matched as the sandbox resolves them
        remembered = rules.remembered()  # read here: the session is the event loop's
        allowed = await asyncio.to_thread(
            rules.allowing, tool, arguments, root=root, policy=policy, remembered=remembered
        )
        if allowed is None:
            return False
        await self.emit(
            Observer.on_tool_approved, call.name, allowed.rule.text, allowed.source, call_id=call.id
        )
        data = {"callId": call.id, "tool": call.name, "rule": allowed.rule.text}
        self.session.append_custom(APPROVED_BY_KIND, {**data, "source": allowed.source})
        return True

    def _command_policy(self) -> CommandPolicy:
        """The command policy of `[shell]` (an allow rule never covers what it refuses)."""
        from rho_kernel.security.commands import CommandPolicy

        rules = self.params.rules
        shell: Literal["bash", "pwsh"] = "pwsh" if rules and rules.shell == "pwsh" else "bash"
        return CommandPolicy.from_config(self.params.config.shell, shell=shell)

    def _call_risk(self, call: ToolCall, tool: Tool, arguments: dict[str, Any]) -> Risk:
        """The risk of this call (`Tool.call_risk`); a failing or odd answer is destructive."""
        try:
            risk = tool.call_risk(arguments)
            if isinstance(risk, Risk):
                return risk
            problem = f"answered {str(risk)[:80]!r}, not a Risk"
        except Exception as exc:
            problem = f"failed ({type(exc).__name__}: {str(exc)[:200]})"
        owner = self.params.tools.owner(call.name) or "<unknown>"
        self.params.plugins.report(
            f"plugin '{owner}': {call.name}.call_risk {problem}; the call counts as destructive"
        )
        return UNDECLARED_RISK

    async def _sandbox_status(self) -> SandboxStatus:
        """How the processes tools start run now (unconfined without a confinement)."""
        confinement = self.params.confinement
        if confinement is None:
            return SandboxStatus(mode="unconfined")
        # The first status may wait for the backend probe: off the event loop.
        return await asyncio.to_thread(confinement.status)

    def _policy(self, call: ToolCall, risk: Risk) -> str:
        """The approval policy's mode for a call; an answer that is not a mode asks."""
        answers = self.params.plugins.call_each(
            hookspecs.rho_approval_policy, tool_name=call.name, risk=risk, config=self.params.config
        )
        if not answers:
            return "auto" if risk == Risk.READ else "ask"
        plugin, mode = answers[0]
        if mode not in ("auto", "ask", "deny"):
            self.params.plugins.report(
                f"plugin '{plugin}' answered rho_approval_policy for {call.name} with "
                f"{str(mode)[:80]!r}, not 'auto', 'ask' or 'deny'; the call asks"
            )
            return "ask"
        return str(mode)

    async def _decided(
        self, call: ToolCall, decision: ApprovalDecision, pending: list[str]
    ) -> bool:
        """Act on the gate's answer: run (recording granted paths), deny, redirect, or end
        the turn (no answer can come: the call is cancelled, not denied)."""
        if decision.kind == "cancelled":
            reason = (decision.message or "no approval can come").rstrip(".")
            await self._finish_call(
                call, ToolResult.error(f"Tool call cancelled: {reason}."), "cancelled"
            )
            raise Cancelled()
        if decision.kind == "redirect":
            await self._finish_call(
                call, ToolResult.error("Tool call redirected by user."), "denied"
            )
            raise _Redirected(decision.message or "")
        if decision.kind != "approved":
            await self.emit(Observer.on_tool_denied, call.name, call_id=call.id)
            why = decision.message.rstrip(".") if decision.message else ""
            text = f"Tool call denied: {why}." if why else "Tool call denied by user."
            await self._finish_call(call, ToolResult.error(text), "denied")
            return False
        if pending and self.params.confinement is not None:
            self.params.confinement.grant(pending)
        if decision.remember is not None and self.params.remember is not None:
            try:
                await self.params.remember(decision.remember)
            except Exception as exc:  # the call is approved all the same
                diagnostics.warn(f"could not remember the rule {decision.remember.rule!r}: {exc}")
        return True

    async def _ask(
        self,
        call: ToolCall,
        tool: Tool,
        arguments: dict[str, Any],
        risk: Risk,
        escalation: Escalation | None = None,
        reason: str | None = None,
    ) -> ApprovalDecision:
        shown = encode_arguments(arguments)
        await self.state("awaiting_approval")
        await self.emit(Observer.on_approval_requested, call.name, shown, risk, call_id=call.id)
        if self.params.gate is None:
            return ApprovalDecision.denied(NO_APPROVER)
        sandbox = await self._sandbox_status() if tool.runs_processes else None
        preview = await self._preview(call, tool, arguments)
        request = ApprovalRequest(
            tool=call.name,
            arguments=shown,
            risk=risk,
            call_id=call.id,
            sandbox=sandbox,
            turn_id=self.turn_id,
            suggested_rules=(
                () if escalation else await self._suggestions(tool, arguments, sandbox)
            ),
            escalation=escalation,
            working_directory=self._working_directory(tool, arguments),
            preview=preview.text if preview else None,
            reason=reason or None,
        )
        decision = await self.params.cancel.run(self.params.gate.request(request))
        if preview is not None and decision.kind == "approved":
            self._plans[call.id] = preview.base
        if decision.remember is not None and decision.remember not in request.suggested_rules:
            return replace(decision, remember=None)  # only an offered rule is remembered
        return decision

    async def _preview(
        self, call: ToolCall, tool: Tool, arguments: dict[str, Any]
    ) -> Preview | None:
        """The change the call would make, planned for its approval and redacted (None when
        the tool previews nothing, or its planning failed: it then reports at run time)."""
        ctx = self._tool_context(call, None)
        try:
            preview = await self.params.cancel.run(tool.preview(arguments, ctx))
        except Cancelled:
            raise
        except Exception as exc:
            owner = self.params.tools.owner(call.name) or "<unknown>"
            self.params.plugins.report(f"plugin '{owner}': {call.name}.preview failed: {exc}")
            return None
        if preview is None:
            return None
        redactor = self.params.redactor or Redactor.from_config(self.params.config.redaction)
        return replace(preview, text=redactor.redact(preview.text))

    def _working_directory(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        """Where a command starts: its `cwd` argument under the project root (lexically; the
        tool checks the real directory when it runs), or the root."""
        if tool.rule_subject != "command":
            return None
        root = self.params.root.path
        cwd = arguments.get("cwd")
        if not isinstance(cwd, str) or not cwd.strip():
            return str(root)
        return os.path.normpath(os.path.join(root, cwd))

    async def _suggestions(
        self, tool: Tool, arguments: dict[str, Any], sandbox: SandboxStatus | None
    ) -> tuple[SuggestedRule, ...]:
        """The rules this approval may remember: none when nothing keeps them, when
        approving also grants writable paths (a rule would skip that question next time),
        or when every command asks anyway (no rule would apply: nothing confines them)."""
        if self.params.remember is None or (
            sandbox is not None and (sandbox.pending_writable or sandbox.asks)
        ):
            return ()
        from rho_kernel.approvals.suggest import suggested_rules

        root = self.params.root  # rules are built from the path the tool will open
        return await asyncio.to_thread(suggested_rules, tool, arguments, root)

    async def _execute(self, call: ToolCall, tool: Tool, arguments: dict[str, Any]) -> None:
        """Run the tool, pass the result through the after-call hooks and guards, record it."""
        await self.state("executing_tool")
        started = time.monotonic()
        sink = self._output_sink(call)
        ctx = self._tool_context(call, sink)
        if (keys := self._project_keys()) is not None:
            await keys.ready()  # its output is redacted knowing every key of the project
        result, interrupted = await self._invoke(call, tool, arguments, ctx)
        if keys is not None and tool.risk != Risk.READ:
            keys.changed()  # a key it wrote is learned before the next call runs
        duration = int((time.monotonic() - started) * 1000)
        await sink.flush()
        result = with_created_note(result, ctx.created_repositories, ctx.revealed_repositories)
        result, stopped = await self._after_hooks(call, result)
        redactor = self.params.redactor or Redactor.from_config(self.params.config.redaction)
        result = ToolResult(
            redactor.redact(result.output), result.is_error, redactor.redact_value(result.details)
        )
        self.phase.record(tool.phase)
        result = self.stuck.check(call.name, call.arguments, result, tool)
        outcome: OutcomeKind = "error" if result.is_error else "success"
        # A tool that finished its work despite an abort keeps its real outcome.
        await self._finish_call(call, result, "cancelled" if interrupted else outcome, duration)
        if interrupted or stopped:
            raise Cancelled()

    def _project_keys(self) -> ProjectKeys | None:
        """The scan that teaches the redactor the project's private keys (None: redaction
        is off)."""
        redactor = self.params.redactor or Redactor.from_config(self.params.config.redaction)
        if not redactor.enabled:
            return None
        from rho_kernel.security.key_scan import project_keys

        return project_keys(self.params.root.path)

    def _redacted(self, text: str) -> str:
        """A plugin's text for the model (a block's reason, added context), redacted as
        tool results are."""
        redactor = self.params.redactor or Redactor.from_config(self.params.config.redaction)
        return redactor.redact(text)

    def _tool_context(self, call: ToolCall, sink: _RedactingSink | None) -> ToolContext:
        """What the tool of `call` gets to work with (and the escalation and plan approved
        for it, when it is about to run: with an output `sink`)."""
        escalation = self._escalations.pop(call.id, None) if sink is not None else None
        planned = self._plans.pop(call.id, None) if sink is not None else None
        unconfined = sink is not None and call.id in self._unconfined_approved
        if sink is not None:
            self._unconfined_approved.discard(call.id)
        return ToolContext(
            root=self.params.root,
            config=self.params.config,
            cancel=self.params.cancel,
            session=self.session,
            stash=self.params.plugins.stash(self.params.tools.owner(call.name) or "<unknown>"),
            call_id=call.id,
            output=sink,
            confinement=self.params.confinement,
            escalation=(escalation.sandbox if escalation else None),
            unconfined_approved=unconfined,
            planned=planned,
        )

    async def _invoke(
        self, call: ToolCall, tool: Tool, arguments: dict[str, Any], ctx: ToolContext
    ) -> tuple[ToolResult, bool]:
        """The tool's result (a failure as an error result), and whether an abort stopped it."""
        try:
            result = await self.params.cancel.run(tool.execute(arguments, ctx))
        except PlanChanged:
            raise  # nothing was written: the call is planned and asked again
        except Cancelled:
            return ToolResult.error(CANCELLED), True
        except ToolError as exc:
            return ToolResult.error(bound_error(str(exc))), False
        except Exception as exc:
            return ToolResult.error(bound_error(f"{call.name}: {type(exc).__name__}: {exc}")), False
        if not isinstance(result, ToolResult):
            result = ToolResult.error(
                f"{call.name}: the tool returned {type(result).__name__}, not a ToolResult"
            )
        return result, False

    async def _after_hooks(self, call: ToolCall, result: ToolResult) -> tuple[ToolResult, bool]:
        """The result as `rho_after_tool_call` leaves it, and whether an abort stopped them.

        After an abort only the synchronous answers are read (awaiting more could hold the
        abort up); an abort while awaiting keeps the result as the tool gave it."""
        if self.params.cancel.cancelled:
            return self.params.plugins.after_tool_call(call, result, awaitables="close"), True
        hooks = self.params.plugins.after_tool_call_async(call, result)
        try:
            return await self.params.cancel.run(hooks), False
        except Cancelled:
            return result, True

    def _output_sink(self, call: ToolCall) -> _RedactingSink:
        """Where a running call's live output goes: redacted, to the observers, as
        `on_tool_output` (a secret split across chunks is held until it is whole)."""

        async def emit(stream: str, text: str) -> None:
            text = scrub_surrogates(text)
            await self.emit(Observer.on_tool_output, call.name, stream, text, call_id=call.id)

        redactor = self.params.redactor or Redactor.from_config(self.params.config.redaction)
        return _RedactingSink(redactor, emit)

    async def _finish_call(
        self,
        call: ToolCall,
        result: ToolResult,
        outcome: OutcomeKind,
        duration_ms: int | None = None,
    ) -> None:
        output = scrub_surrogates(result.output)
        if output is not result.output:
            result = ToolResult(output, result.is_error, result.details)
        message = self._result_message(call, result)
        full_output = None
        if message.text is not output:
            result = ToolResult(message.text, result.is_error, result.details)
            full_output, output = output, message.text
        self.session.append_message(message)
        self.records.append(
            ToolCallRecord(
                name=call.name,
                arguments=call.arguments,
                outcome=outcome,
                output=output,
                duration_ms=duration_ms,
                call_id=call.id,
            )
        )
        await self.emit(
            Observer.on_tool_result, call.name, result, call_id=call.id, full_output=full_output
        )

    def _result_share(self) -> int:
        """The bytes the results of one batch may use together: `[agent] tool_result_share`
        of the prompt budget left after the tool definitions."""
        prompt = self.estimator.budget_bytes(self.budget.prompt_budget, self.params.model)
        available = max(0, prompt - self._schema_bytes(self.params.tools.schemas()))
        return int(available * self.agent.tool_result_share)

    def _result_message(self, call: ToolCall, result: ToolResult) -> ChatMessage:
        """The tool message recorded for `result`: with the outline its tool makes of it, and
        cut to the batch's allowance (the full text kept in `details`)."""
        tool = self.params.tools.get(call.name)
        try:
            arguments: dict[str, Any] | None = decode_arguments(call.arguments)
        except ArgumentsError:
            arguments = None
        output = result.output
        message = ChatMessage.tool_result(call.id, output, result.is_error)
        message.outline = tool_outline(tool, call.name, arguments, result)
        allowance = self._allowance or BatchAllowance(self._result_share(), 1)
        bounded = self._bounded(tool, output, allowance.limit())
        if bounded is not None:
            hint = None
            if tool is not None and arguments is not None:
                try:
                    hint = tool.continuation(arguments, result, bounded.kept_lines)
                except Exception:  # advice is a nicety
                    hint = None
            hint = hint if isinstance(hint, str) else None
            message.content = shown(bounded, hint)
            message.details = {
                "FullOutput": {"original_size": bounded.original_bytes, "content": output}
            }
        allowance.spend(utf8_len(message.text))
        return message

    @staticmethod
    def _bounded(tool: Tool | None, output: str, limit: int) -> Bounded | None:
        """`output` cut to `limit` bytes (None: it fits): its first lines, or its first and
        last for a tool that declares `cut_keeps_tail` (asked only of an output too large)."""
        if utf8_len(output) <= limit:
            return None
        try:
            keeps_tail = tool is not None and tool.cut_keeps_tail is True
        except Exception:  # a broken declaration cuts as for any tool
            keeps_tail = False
        return bound_ends(output, limit) if keeps_tail else bound_text(output, limit)


_PERSISTED_FINISH = {"stop", "tool_calls", "length", "content_filter"}


class _RedactingSink:
    """An `OutputSink` that redacts each stream on its way out; `flush` once the call ends."""

    def __init__(self, redactor: Redactor, emit: OutputSink) -> None:
        self._redactor = redactor
        self._emit = emit
        self._streams: dict[str, StreamRedactor] = {}

    async def __call__(self, stream: str, text: str) -> None:
        redacting = self._streams.get(stream)
        if redacting is None:
            redacting = self._streams[stream] = self._redactor.stream()
        shown = redacting.feed(text)
        if shown:
            await self._emit(stream, shown)

    async def flush(self) -> None:
        """Send what each stream still holds."""
        streams, self._streams = self._streams, {}
        for stream, redacting in streams.items():
            rest = redacting.flush()
            if rest:
                await self._emit(stream, rest)


def _category(exc: Exception) -> str:
    """The turn-error category of an unexpected exception."""
    from rho_kernel.session.entries import SessionError

    return "session" if isinstance(exc, (SessionError, OSError)) else "agent"


def unique_call_ids(calls: list[ToolCall]) -> list[ToolCall]:
    """`calls` with distinct, non-empty ids: a repeated or empty id gets a fresh one.

    The id names the call in the session, on the wire and in the tool result the model gets
    back, so two calls of one reply must never share it.
    """
    seen: set[str] = set()
    unique: list[ToolCall] = []
    for call in calls:
        if not call.id or call.id in seen:
            call = call.model_copy(update={"id": f"call_{secrets.token_hex(8)}"})
        seen.add(call.id)
        unique.append(call)
    return unique


def tool_definition_bytes(schemas: list[dict[str, Any]]) -> int:
    """The size of the tool definitions as a request sends them: their JSON and the wrapping
    each wire protocol puts around every definition."""
    size = utf8_len(json.dumps(schemas, ensure_ascii=False)) if schemas else 0
    return size + TOOL_DEFINITION_OVERHEAD * len(schemas)


def _is_empty(response: ModelResponse) -> bool:
    """No text, no tool call, no reasoning — and not withheld by a content filter."""
    return (
        not response.text
        and not response.tool_calls
        and not response.reasoning
        and response.finish_reason != "content_filter"
    )


async def run_loop(session: Session, message: str, params: LoopParams) -> AgentResult:
    """Run one prompt: see `AgentLoop`. Raises `AgentError` on failure (recorded in the session)."""
    return await AgentLoop(session, params).run(message)


__all__ = [
    "CANCELLED",
    "EMPTY_REPLY_NUDGE",
    "TRUNCATED_GAVE_UP",
    "TRUNCATED_NUDGE",
    "TURN_ERROR_KIND",
    "AgentLoop",
    "LoopParams",
    "run_loop",
    "tool_definition_bytes",
]
