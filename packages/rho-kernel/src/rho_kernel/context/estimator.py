"""The token estimator: bytes per token by model family, calibrated by the usage providers
report.

Sizes are kept in UTF-8 bytes everywhere in context fitting, and turned into tokens only at
the end with the model's ratio, so a calibration never invalidates a cached size: it only
changes how many bytes fit in the budget.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rho_kernel.messages import ChatMessage

FAMILY_RATIOS: tuple[tuple[str, float], ...] = (
    ("gpt-4o", 4.0),
    ("gpt-4", 4.0),
    ("claude", 3.7),
    ("gemma", 3.5),
    ("llama", 3.5),
    ("qwen", 2.5),
)
"""Starting bytes-per-token ratios, matched as case-insensitive substrings of the model id
in this order."""

UNKNOWN_RATIO = 2.5
"""The ratio of a model no family matches (a cautious one: more tokens per byte)."""

ALPHA = 0.3
"""The weight of the newest observation in the calibration's moving average."""

MIN_RATIO = 1.0
MAX_RATIO = 6.0
"""Calibrated ratios are kept within these bounds, whatever a provider reports."""

MESSAGE_OVERHEAD = 20
"""Bytes counted for the framing of every message (role, separators)."""

TOOL_MESSAGE_OVERHEAD = 10
"""Extra bytes counted for a tool message, besides its `tool_call_id`."""

CALL_OVERHEAD = 24
"""Bytes counted for the framing of every tool call of an assistant message."""

IMAGE_BYTES = 6400
"""Bytes counted for an image: what some 1,600 tokens of text take, about what providers
charge for a large image (its base64 data is not text the model reads)."""


def utf8_len(text: str) -> int:
    """The UTF-8 size of `text` in bytes (lone surrogates count 3 bytes each)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def message_bytes(message: ChatMessage) -> int:
    """The estimated size of one message as sent: its text, tool calls and framing."""
    content = message.content
    images = 0
    if not isinstance(content, str):
        images = len(message.images)
        content = message.text
    # utf8_len, inlined: this runs once for every entry of a session
    size = (len(content) if content.isascii() else utf8_len(content)) + MESSAGE_OVERHEAD
    size += images * IMAGE_BYTES
    call_id = message.tool_call_id
    if call_id is not None:
        size += (len(call_id) if call_id.isascii() else utf8_len(call_id)) + TOOL_MESSAGE_OVERHEAD
    calls = message.tool_calls
    if calls:
        for call in calls:
            function = call.function
            size += (
                utf8_len(call.id)
                + utf8_len(function.name)
                + utf8_len(function.arguments)
                + CALL_OVERHEAD
            )
    return size


def family_ratio(model: str) -> float:
    """The starting bytes-per-token ratio of `model` (by family, else `UNKNOWN_RATIO`)."""
    lowered = model.lower()
    for family, ratio in FAMILY_RATIOS:
        if family in lowered:
            return ratio
    return UNKNOWN_RATIO


class TokenEstimator:
    """Bytes-per-token ratios per model: the family's to start with, then an exponential
    moving average (α = 0.3) of what the provider's usage reports for real requests.

    `ratio(model)` is the current ratio; `tokens(size, model)` turns a size in bytes into
    tokens (rounded up, at least 1 for a non-empty size); `calibrate` learns from one
    response. Each observation counts within [1, 6] bytes per token, so a provider reporting
    nonsense moves the ratio a step at a time and never beyond those bounds.
    """

    def __init__(self, ratios: dict[str, float] | None = None) -> None:
        self._ratios: dict[str, float] = dict(ratios or {})

    def ratio(self, model: str) -> float:
        """The bytes-per-token ratio used for `model` now."""
        ratio = self._ratios.get(model)
        return ratio if ratio is not None else family_ratio(model)

    def tokens(self, size: int, model: str) -> int:
        """`size` bytes in tokens for `model`: ⌈size / ratio⌉ (0 for 0 bytes)."""
        if size <= 0:
            return 0
        return max(1, math.ceil(size / self.ratio(model)))

    def budget_bytes(self, tokens: int, model: str) -> int:
        """How many bytes `tokens` tokens hold for `model`: ⌊tokens × ratio⌋."""
        return max(0, math.floor(tokens * self.ratio(model)))

    def calibrate(self, model: str, size: int, actual_tokens: int) -> float:
        """Learn from a request of `size` bytes that the provider counted as `actual_tokens`
        input tokens; returns the new ratio. Ignored when either is not positive."""
        current = self.ratio(model)
        if size <= 0 or actual_tokens <= 0:
            return current
        observed = min(MAX_RATIO, max(MIN_RATIO, size / actual_tokens))
        updated = ALPHA * observed + (1 - ALPHA) * current
        self._ratios[model] = updated
        return updated


__all__ = [
    "ALPHA",
    "FAMILY_RATIOS",
    "MAX_RATIO",
    "MESSAGE_OVERHEAD",
    "MIN_RATIO",
    "UNKNOWN_RATIO",
    "TokenEstimator",
    "family_ratio",
    "message_bytes",
    "utf8_len",
]
