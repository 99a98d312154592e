"""What a `rho_before_tool_call` implementation may return, and how answers chain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Block:
    """Refuse the call; the model receives `Tool call blocked: {reason}` as an error result."""

    reason: str


@dataclass(frozen=True, slots=True)
class Rewrite:
    """Run the call with these arguments instead of the model's."""

    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Permission:
    """Settle the approval question for the call (and, with `arguments`, rewrite it as
    `Rewrite` does). `"allow"` runs it without asking where the approval policy or mode
    would ask; it never passes a deny rule, `[approval.per_tool]` deny, the read-only mode,
    a request to leave the sandbox (which always asks), the sandbox or the command policy
    the tool applies, nor another plugin's `Block`. `"ask"` asks even where a mode or an
    allow rule would run the call. Across answers `"ask"` wins over `"allow"`. `reason` is
    shown: in the approval request, or in the note that the call ran without asking.
    Added in 0.3."""

    decision: Literal["allow", "ask"]
    reason: str = ""
    arguments: dict[str, Any] | None = None


Interception = Block | Rewrite | Permission


@dataclass(frozen=True, slots=True)
class Intercepted:
    """What the interception of a call came to, when nothing blocked it: the arguments the
    tool gets, the strongest `Permission` answered (None: none) and the plugin that gave
    it. Added in 0.3."""

    arguments: dict[str, Any]
    permission: Permission | None = None
    permission_source: str = ""

    def answered(self, plugin: str, answer: object) -> Intercepted:
        """This, after `plugin`'s `answer` (not a `Block`): its arguments if it rewrites
        them, its permission if it is stronger than the one held."""
        arguments = apply_interception(self.arguments, answer)
        assert not isinstance(arguments, Block)
        permission, source = self.permission, self.permission_source
        if isinstance(answer, Permission) and (
            permission is None or (answer.decision == "ask" and permission.decision == "allow")
        ):
            permission, source = answer, plugin
        return Intercepted(arguments, permission, source)


def apply_interception(arguments: dict[str, Any], answer: object) -> Block | dict[str, Any]:
    """Apply one interception answer to a call's arguments, the way rho chains them.

    Fold the answers in order with it: a `Block` is returned as it is (the call ends there; no
    later answer is applied), a `Rewrite` (or a `Permission` with `arguments`) gives a copy of
    its arguments (what the next answer sees), and anything else (None, or a value of another type) leaves `arguments` as they
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
    if isinstance(answer, Permission) and answer.arguments is not None:
        return dict(answer.arguments)
    return arguments


__all__ = [
    "Block",
    "Intercepted",
    "Interception",
    "Permission",
    "Rewrite",
    "apply_interception",
]
