"""The built-in approval policy plugin (`rho.approval`): `[approval.per_tool]`, then risk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.plugins import hookimpl
from rho_kernel.tools.base import Risk

if TYPE_CHECKING:
    from rho_kernel.config.model import ApprovalMode, RhoConfig


@hookimpl(trylast=True)
def rho_approval_policy(tool_name: str, risk: Risk, config: RhoConfig) -> ApprovalMode:
    """Per-tool override first; otherwise read runs automatically and everything else asks."""
    override = config.approval.per_tool.get(tool_name)
    if override is not None:
        return override
    return "auto" if risk == Risk.READ else "ask"
