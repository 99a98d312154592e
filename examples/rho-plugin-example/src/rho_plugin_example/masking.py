"""E-mail masking for every tool result, applied from the `rho_after_tool_call` hook."""

from __future__ import annotations

import re

from rho_kernel import ToolResult

MASK = "[EMAIL]"

# Tool output is untrusted and may be huge: a match may only start where a run of address
# characters starts (the lookbehind) and every part is bounded, so matching stays linear.
_EMAIL = re.compile(
    r"(?<![\w.%+-])[\w.%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![\w-])"
)


def mask_emails(result: ToolResult) -> ToolResult | None:
    """The result with every e-mail address replaced by `[EMAIL]`, or None if it has none
    (None tells rho to keep the result as it is)."""
    masked, count = _EMAIL.subn(MASK, result.output)
    if not count:
        return None
    return ToolResult(masked, is_error=result.is_error, details=result.details)
