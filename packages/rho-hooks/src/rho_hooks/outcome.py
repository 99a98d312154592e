"""What a hook's run means, by Claude Code's rules, and what several runs mean together.

A hook answers with its exit code and stdout, as in Claude Code:

- exit 0: go on. Stdout that is a JSON object may say more (below); other text is added to
  the context for UserPromptSubmit and SessionStart, and ignored for other events.
- exit 2: block; stderr is the reason, for the model.
- anything else — another exit code, a timeout, a crash, a hook that cannot start, stdout
  that starts with `{` but is not a JSON object with fields of the right types, or is longer
  than the `MAX_OUTPUT` bytes rho reads — is a failure, and blocks (rho fails closed) unless
  the hook says `on_failure = "allow"`.

The JSON fields read: `continue` (false: stop after this event, `stopReason` saying why),
`systemMessage` (for the person), `suppressOutput`, `decision: "block"` with `reason`, and in
`hookSpecificOutput`: `permissionDecision` (`allow`, `deny`, `ask`),
`permissionDecisionReason` and `updatedInput` (PreToolUse), `additionalContext` (also taken
at the top level). For PreToolUse the legacy top-level `decision` is read too (`approve`:
allow, `block`: deny) when there is no `permissionDecision`. Where Claude Code is silent rho
chooses: a `decision: "block"` counts for every event but PreToolUse (what blocking means is
the event's: a Stop hook's keeps the model going), `decision: "approve"` outside PreToolUse
changes nothing, a `hookEventName` naming another event is a failure, and fields an event
does not use are not checked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rho_hooks.runner import MAX_OUTPUT

if TYPE_CHECKING:
    from rho_hooks.config import HookCommand
    from rho_hooks.runner import HookRun

Verdict = Literal["continue", "allow", "ask", "deny", "block"]
Outcome = Literal["ok", "blocked", "failed", "allowed-failure"]

#: How severe a verdict is: the most severe of several wins (`combine`).
SEVERITY: dict[Verdict, int] = {"continue": 0, "allow": 1, "ask": 2, "deny": 3, "block": 3}
#: Characters of a reason kept for the model.
MAX_REASON = 4000
#: Characters of a failing hook's stderr quoted (its end).
MAX_STDERR_TAIL = 1000
#: Characters of a command quoted in a message.
MAX_COMMAND_SHOWN = 60
#: Events whose hooks' plain-text stdout is added to the context.
TEXT_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")

_OUTCOME_RANK: dict[Outcome, int] = {"ok": 0, "allowed-failure": 1, "blocked": 2, "failed": 3}
_PERMISSIONS: dict[str, Verdict] = {"allow": "allow", "deny": "deny", "ask": "ask"}
_LEGACY_DECISIONS: dict[str, Verdict] = {"approve": "allow", "block": "deny"}


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """What one hook (or several, `combine`) decided.

    `verdict`: `block` (exit 2, a `decision: "block"`, or a failure that blocks), `deny`,
    `ask` or `allow` (a PreToolUse permission decision), or `continue`. `reason` is for the
    model (exit 2's stderr, `permissionDecisionReason`, `reason`). `updated_input` is a
    PreToolUse hook's rewritten tool input. `stop` (with `stop_reason`) is `continue: false`:
    stop after this event. `failure` says why the hook failed, naming it (also when
    `on_failure = "allow"` let it pass); `outcome` is for reporting.
    """

    verdict: Verdict = "continue"
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    additional_context: str | None = None
    stop: bool = False
    stop_reason: str | None = None
    system_message: str | None = None
    suppress_output: bool = False
    failure: str | None = None
    outcome: Outcome = "ok"


class _Invalid(ValueError):
    """The hook's JSON output is not what Claude Code's contract allows."""


def interpret(event: str, hook: HookCommand, run: HookRun) -> HookOutcome:
    """What `run` of `hook`, for `event`, means (see the module docstring)."""
    why = _failure(hook, run)
    if why is not None:
        return _failed(hook, why)
    if run.exit_code == 2:
        reason = _bounded(run.stderr.strip()) or f"blocked by hook {shown(hook.command)}"
        return HookOutcome(verdict="block", reason=reason, outcome="blocked")
    text = run.stdout.strip()
    if not text.startswith("{"):
        context = text if text and event in TEXT_CONTEXT_EVENTS else None
        return HookOutcome(additional_context=context)
    if run.stdout_cut:  # only its head and tail were kept: no JSON can be read from them
        return _failed(hook, _too_large(run))
    try:
        return _from_json(event, hook, text)
    except _Invalid as exc:
        return _failed(hook, f"printed invalid JSON: {exc}")


def shown(command: str) -> str:
    """A command as messages quote it: in backticks, on one line, cut when long."""
    line = " ".join(command.split())
    if len(line) > MAX_COMMAND_SHOWN:
        line = line[: MAX_COMMAND_SHOWN - 1] + "…"
    return f"`{line}`"


def _failure(hook: HookCommand, run: HookRun) -> str | None:
    """Why the run failed (None: it exited with 0 or 2)."""
    if run.error is not None:
        return f"could not start: {run.error}"
    if run.timed_out:
        return f"timed out after {hook.timeout:g} s"
    if run.cancelled:
        return "was cancelled"
    if run.exit_code is None:
        return f"was killed by signal {run.signal}" if run.signal else "ended without a status"
    if run.exit_code in (0, 2):
        return None
    tail = run.stderr.strip()[-MAX_STDERR_TAIL:]
    return f"exited with {run.exit_code}" + (f": {tail}" if tail else "")


def _too_large(run: HookRun) -> str:
    """Why a JSON answer longer than rho reads fails."""
    return (
        f"printed too much to read as its JSON answer: {run.stdout_bytes} bytes on stdout, "
        f"more than the limit of {MAX_OUTPUT} bytes ({MAX_OUTPUT // 1024} KiB)"
    )


def _failed(hook: HookCommand, why: str) -> HookOutcome:
    failure = f"hook {shown(hook.command)} {why}"
    if hook.on_failure == "allow":
        return HookOutcome(failure=failure, outcome="allowed-failure")
    return HookOutcome(verdict="block", reason=failure, failure=failure, outcome="failed")


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def _from_json(event: str, hook: HookCommand, text: str) -> HookOutcome:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _Invalid(str(exc)) from None
    if not isinstance(data, dict):
        raise _Invalid(f"not an object but {type(data).__name__}")
    specific = _object(data, "hookSpecificOutput") or {}
    named = _text(specific, "hookSpecificOutput.hookEventName")
    if named is not None and named != event:
        raise _Invalid(f"hookSpecificOutput.hookEventName is {named!r}, not {event!r}")
    verdict, reason = _decision(event, hook, data, specific)
    updated = None
    if event == "PreToolUse":
        updated = _object(specific, "hookSpecificOutput.updatedInput")
    contexts = (
        _text(specific, "hookSpecificOutput.additionalContext"),
        _text(data, "additionalContext"),
    )
    keep_going = _flag(data, "continue")
    return HookOutcome(
        verdict=verdict,
        reason=_bounded(reason),
        updated_input=updated,
        additional_context=_joined(contexts, "\n"),
        stop=keep_going is False,
        stop_reason=_text(data, "stopReason") if keep_going is False else None,
        system_message=_text(data, "systemMessage"),
        suppress_output=_flag(data, "suppressOutput") is True,
        outcome="blocked" if verdict in ("deny", "block") else "ok",
    )


def _decision(
    event: str, hook: HookCommand, data: dict[str, Any], specific: dict[str, Any]
) -> tuple[Verdict, str]:
    """The verdict and its reason from the output's decision fields."""
    decision = _text(data, "decision")
    reason = _text(data, "reason") or ""
    if event == "PreToolUse":
        permission = _text(specific, "hookSpecificOutput.permissionDecision")
        if permission is not None:
            if permission not in _PERMISSIONS:
                raise _Invalid(f"permissionDecision {permission!r} is not allow, deny or ask")
            why = _text(specific, "hookSpecificOutput.permissionDecisionReason") or ""
            return _with_reason(hook, _PERMISSIONS[permission], why)
        if decision is None:
            return "continue", ""
        if decision not in _LEGACY_DECISIONS:
            raise _Invalid(f"decision {decision!r} is not approve or block")
        return _with_reason(hook, _LEGACY_DECISIONS[decision], reason)
    if decision is None or decision == "approve":
        return "continue", ""
    if decision != "block":
        raise _Invalid(f"decision {decision!r} is not block")
    return _with_reason(hook, "block", reason)


def _with_reason(hook: HookCommand, verdict: Verdict, reason: str) -> tuple[Verdict, str]:
    """`verdict` with `reason`, or a reason naming the hook for a denial without one."""
    if not reason and verdict in ("deny", "block"):
        word = "denied" if verdict == "deny" else "blocked"
        reason = f"{word} by hook {shown(hook.command)}"
    return verdict, reason


def _field(data: dict[str, Any], path: str) -> Any:
    """The value of `path`'s last key in `data` (`path` names the field in messages)."""
    return data.get(path.rpartition(".")[2])


def _text(data: dict[str, Any], path: str) -> str | None:
    """The string at `path`'s last key in `data` (None: absent or null)."""
    value = _field(data, path)
    if value is not None and not isinstance(value, str):
        raise _Invalid(f"{path} is not a string")
    return value


def _flag(data: dict[str, Any], path: str) -> bool | None:
    value = _field(data, path)
    if value is not None and not isinstance(value, bool):
        raise _Invalid(f"{path} is not true or false")
    return value


def _object(data: dict[str, Any], path: str) -> dict[str, Any] | None:
    value = _field(data, path)
    if value is not None and not isinstance(value, dict):
        raise _Invalid(f"{path} is not an object")
    return value


def _joined(values: Sequence[str | None], separator: str) -> str | None:
    present = [value for value in values if value]
    return separator.join(present) if present else None


def combine(outcomes: Sequence[HookOutcome]) -> HookOutcome:
    """What the outcomes of an event's hooks mean together (none: `continue`).

    The most severe verdict wins (block = deny > ask > allow > continue; between a deny and
    a block, block), with the reasons of every outcome at that severity joined by "; ".
    `updated_input` is the first given; contexts, system messages and stop reasons are
    joined; `stop` and `suppress_output` hold if any says so; failures are joined and the
    outcome is the gravest (failed > blocked > allowed-failure > ok).
    """
    if not outcomes:
        return HookOutcome()
    top = max(SEVERITY[outcome.verdict] for outcome in outcomes)
    winners = [outcome for outcome in outcomes if SEVERITY[outcome.verdict] == top]
    verdicts = [outcome.verdict for outcome in winners]
    return HookOutcome(
        verdict="block" if "block" in verdicts else verdicts[0],
        reason="; ".join(outcome.reason for outcome in winners if outcome.reason),
        updated_input=next(
            (outcome.updated_input for outcome in outcomes if outcome.updated_input is not None),
            None,
        ),
        additional_context=_joined([o.additional_context for o in outcomes], "\n"),
        stop=any(outcome.stop for outcome in outcomes),
        stop_reason=_joined([o.stop_reason for o in outcomes], "; "),
        system_message=_joined([o.system_message for o in outcomes], "\n"),
        suppress_output=any(outcome.suppress_output for outcome in outcomes),
        failure=_joined([o.failure for o in outcomes], "; "),
        outcome=max((o.outcome for o in outcomes), key=_OUTCOME_RANK.__getitem__),
    )


__all__ = [
    "MAX_REASON",
    "SEVERITY",
    "TEXT_CONTEXT_EVENTS",
    "HookOutcome",
    "Outcome",
    "Verdict",
    "combine",
    "interpret",
    "shown",
]
