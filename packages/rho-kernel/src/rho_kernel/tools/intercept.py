"""What a `rho_before_tool_call` implementation may return."""

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

__all__ = ["Block", "Interception", "Rewrite"]
