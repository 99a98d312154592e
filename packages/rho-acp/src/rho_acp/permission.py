"""What the client's answer to `session/request_permission` decides.

Only a well-formed selection of one of the options offered runs the call. Any other answer —
a JSON-RPC error, a result of the wrong shape (`{}`, `"allow"`, `[1, 2]`, `{"outcome":
null}`), an option that was not offered, or `cancelled` — denies that call, with a reason
in rho's words that the model and the client see in the call's result; the prompt goes on.
(A `session/cancel` ends the prompt by itself.) Only a client that went away ends the turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from acp import RequestError
from pydantic import ValidationError

from rho_kernel import ApprovalDecision, diagnostics, escape_controls

if TYPE_CHECKING:
    from rho_kernel import SuggestedRule

ALLOW_ONCE = "allow-once"
REJECT_ONCE = "reject-once"
#: The start of the ids of the options that remember a rule (`allow-always-1`, …).
ALLOW_ALWAYS = "allow-always"

#: The most of a client's error message quoted.
MAX_QUOTED = 200
#: The values an outcome's `outcome` may take.
_TAGS = ("selected", "cancelled")
_PREFIX = "the editor's answer to the permission request"


def _kind(value: object) -> str:
    """A JSON value's type, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _quoted(text: object) -> str:
    line = " ".join(str(text).split())
    return escape_controls(line if len(line) <= MAX_QUOTED else line[: MAX_QUOTED - 1] + "…")


def malformed(exc: ValidationError) -> str:
    """What is wrong with an answer that is not ACP's `RequestPermissionResponse`."""
    errors = exc.errors(include_url=False)
    if not errors:
        return f"{_PREFIX} was not an outcome"
    first = errors[0]
    path = ".".join(str(part) for part in first["loc"] if part not in _TAGS)
    value = first.get("input")
    kind = first["type"]
    if not path:
        return f"{_PREFIX} was {_kind(value)}, not an object with an outcome"
    if kind == "missing":
        return f"{_PREFIX} has no {path}"
    if kind == "union_tag_not_found":
        return f"{_PREFIX} has no {path}.outcome"
    if kind == "union_tag_invalid" and isinstance(value, dict):
        tag = _quoted(repr(value.get("outcome")))
        return f'{_PREFIX} has {path}.outcome {tag}, not "selected" or "cancelled"'
    return f"{_PREFIX} has {path} as {_kind(value)}, which ACP does not allow"


def remembering(suggested: Sequence[SuggestedRule]) -> dict[str, SuggestedRule]:
    """The options that approve and remember a rule, by option id (`allow-always-1`, …), one
    per suggested rule in its order: the session's, then the project's, narrow to wide."""
    return {f"{ALLOW_ALWAYS}-{number}": rule for number, rule in enumerate(suggested, 1)}


def decided(
    outcome: Any, offered: list[str], remembered: Mapping[str, SuggestedRule]
) -> ApprovalDecision:
    """The decision of a well-formed `outcome` (ACP's `AllowedOutcome` or `DeniedOutcome`)
    for a request that offered the option ids `offered`, of which `remembered` approve and
    remember a rule."""
    if outcome.outcome != "selected":
        return ApprovalDecision.denied("the editor cancelled the permission request")
    chosen = outcome.option_id
    if chosen not in offered:
        return _refused(
            f"the editor chose the option {_quoted(repr(chosen))}, which was not offered "
            f"({', '.join(offered)})"
        )
    if chosen == ALLOW_ONCE:
        return ApprovalDecision.approved()
    if chosen in remembered:
        return ApprovalDecision.approved(remember=remembered[chosen])
    return ApprovalDecision.denied()


def _refused(reason: str) -> ApprovalDecision:
    """A denial because the client answered wrongly: said on stderr too (a client's bug)."""
    diagnostics.warn(f"rho acp: the call is denied: {reason}")
    return ApprovalDecision.denied(f"{reason}; rho denies the call")


async def ask(
    send: Callable[[], Awaitable[Any]],
    offered: list[str],
    remembered: Mapping[str, SuggestedRule],
) -> ApprovalDecision:
    """Send the request (`send()` gives the SDK's validated response) and decide."""
    try:
        response = await send()
    except ValidationError as exc:
        return _refused(malformed(exc))
    except RequestError as exc:
        return _refused(
            f"the editor answered the permission request with error {exc.code}: {_quoted(exc)}"
        )
    except ConnectionError:
        return ApprovalDecision.cancelled("the editor went away")
    return decided(response.outcome, offered, remembered)


__all__ = [
    "ALLOW_ALWAYS",
    "ALLOW_ONCE",
    "REJECT_ONCE",
    "ask",
    "decided",
    "malformed",
    "remembering",
]
