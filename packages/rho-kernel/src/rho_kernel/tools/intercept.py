"""What a `rho_before_tool_call` implementation may return, and how answers chain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Block:
    """Refuse the call; the model receives `Tool call blocked: {reason}` as an error result."""

    reason: str


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Run the call with these arguments instead of the model's."""

    arguments: dict[str, Any]


Interception = Block | Rewrite


def apply_interception(arguments: dict[str, Any], answer: object) -> Block | dict[str, Any]:
    """Apply one interception answer to a call's arguments, the way rho chains them.

    Fold the answers in order with it: a `Block` is returned as it is (the call ends there; no
    later answer is applied), a `Rewrite` gives a copy of its arguments (what the next answer
    sees), and anything else (None, or a value of another type) leaves `arguments` as they
    are, the same object. `arguments` is never changed in place. Added in 0.3.

        for answer in answers:
            arguments = apply_interception(arguments, answer)
            if isinstance(arguments, Block):
                break
    """
    if isinstance(answer, Block):
        return answer
    if isinstance(answer, Rewrite):
        return dict(answer.arguments)
    return arguments


__all__ = ["Block", "Interception", "Rewrite", "apply_interception"]
