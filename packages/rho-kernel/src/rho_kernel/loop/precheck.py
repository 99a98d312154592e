"""Checking a call before its approval is asked: a call that cannot run never reaches the
user.

Right before the loop would ask about a call (after the deny rules, the policy's deny and
the read-only mode have had their say), it asks the tool whether the call can run at all
(`Tool.check`: the arguments against the tool's schema, then the tool's own preconditions,
such as a file to edit that must exist). A problem becomes the call's error result, as the
tool's own failure would have been, and no approval is asked. The check is a courtesy, not
a gate: the tool checks everything again when it runs, and a check that fails in an
unexpected way lets the call go on to its approval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rho_kernel.cancel import Cancelled
from rho_kernel.tools.base import ToolError

if TYPE_CHECKING:
    from typing import Any

    from rho_kernel.cancel import CancelToken
    from rho_kernel.tools.base import Tool, ToolContext


async def precondition_problem(
    tool: Tool,
    arguments: dict[str, Any],
    ctx: ToolContext,
    cancel: CancelToken,
    report: Callable[[str], None],
) -> str | None:
    """Why the call of `tool` with `arguments` cannot run (for the model, not yet redacted
    nor bounded), or None.

    `ToolError` is the tool's way of saying it too; any other failure of the check is
    `report`ed and counts as no objection (the approval is asked, the tool checks again).
    Cancellation propagates.
    """
    try:
        problem = await cancel.run(tool.check(arguments, ctx))
    except Cancelled:
        raise
    except ToolError as exc:
        problem = str(exc)
    except Exception as exc:
        report(f"{tool.name}.check failed: {type(exc).__name__}: {str(exc)[:200]}")
        return None
    if problem is None:
        return None
    if not isinstance(problem, str):
        report(f"{tool.name}.check answered {type(problem).__name__}, not a message or None")
        return None
    return problem or f"{tool.name}: the call cannot run"


__all__ = ["precondition_problem"]
