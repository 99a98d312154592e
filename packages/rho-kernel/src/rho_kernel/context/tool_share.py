"""How much of the prompt budget the tool definitions take, and which packs take most.

Every request carries the definitions of every tool. When they alone take more than half of
the prompt budget, little is left for the conversation: older turns are shortened and
compacted again and again. `tool_share` measures that (per contributing plugin, at the
model's calibrated bytes per token, as fitting counts them) so rho can say so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rho_kernel.tools.registry import ToolRegistry

#: Packs named in the warning, biggest first.
NAMED_PACKS = 3


@dataclass(frozen=True, slots=True)
class PackShare:
    """The tool definitions one plugin contributes: `tokens` estimated, `tools` counted."""

    plugin: str
    tokens: int
    tools: int


@dataclass(frozen=True, slots=True)
class ToolShare:
    """The tool definitions' estimated `tokens` against the `prompt_budget`, and the packs
    they come from (biggest first)."""

    tokens: int
    prompt_budget: int
    packs: tuple[PackShare, ...]

    @property
    def over_half(self) -> bool:
        """Whether the definitions alone take more than half of the prompt budget."""
        return self.tokens * 2 > self.prompt_budget

    def warning(self) -> str | None:
        """The warning to give when they take more than half (None otherwise)."""
        if not self.over_half:
            return None
        percent = round(100 * self.tokens / max(1, self.prompt_budget))
        biggest = ", ".join(
            f"{pack.plugin} ({pack.tokens} tokens, {pack.tools} tool{'s' * (pack.tools != 1)})"
            for pack in self.packs[:NAMED_PACKS]
        )
        return (
            f"the tool definitions alone take {self.tokens} of the {self.prompt_budget}-token "
            f"prompt budget ({percent}%), so older turns will be shortened and compacted "
            f"often; the biggest packs: {biggest}. Disable packs you do not need "
            "([plugins] disabled) or use a model with a larger context window ([agent] "
            "token_budget)"
        )


def _definition_bytes(schemas: list[dict[str, Any]]) -> int:
    from rho_kernel.loop.agent import tool_definition_bytes

    return tool_definition_bytes(schemas)


def tool_share(tools: ToolRegistry, prompt_budget: int, ratio: float) -> ToolShare:
    """The share of `prompt_budget` the definitions of `tools` take, at `ratio` bytes per
    token; each tool counts for the plugin that contributed it ("<unknown>" when none)."""
    schemas = tools.schemas()
    grouped: dict[str, list[dict[str, Any]]] = {}
    for schema in schemas:
        owner = tools.owner(str(schema.get("name", ""))) or "<unknown>"
        grouped.setdefault(owner, []).append(schema)
    ratio = ratio if ratio > 0 else 4.0
    packs = [
        PackShare(plugin, math.ceil(_definition_bytes(group) / ratio), len(group))
        for plugin, group in grouped.items()
    ]
    packs.sort(key=lambda pack: (-pack.tokens, pack.plugin))
    total = math.ceil(_definition_bytes(schemas) / ratio)
    return ToolShare(tokens=total, prompt_budget=prompt_budget, packs=tuple(packs))


__all__ = ["NAMED_PACKS", "PackShare", "ToolShare", "tool_share"]
