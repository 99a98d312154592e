"""The approval methods: the permission mode and the approval rules in force."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rho_rpc.protocol.base import Params, Result, Wire
from rho_rpc.protocol.state import PermissionModeName


class SetApprovalModeParams(Params):
    """`setApprovalMode`: how much runs without asking, from the next tool call on (also
    in the running prompt)."""

    mode: PermissionModeName = Field(
        description='"ask" (as the approval policy says), "auto-edit" (also file writes in '
        'the project), "read-only" (only tools that read run; the others are refused with a '
        'result saying so), "auto" (everything runs; commands stay in the OS sandbox, and '
        "where none works they still ask)."
    )


class SetApprovalModeResult(Result):
    """`setApprovalMode` result: the mode now in force."""

    mode: PermissionModeName


class ApprovalRuleInfo(Wire):
    """An approval rule in force."""

    rule: str = Field(description='The rule, e.g. "run_command(cargo test:*)".')
    action: Literal["allow", "deny"]
    source: str = Field(
        description='Where it comes from: "--allow", "--deny", "[approval] allow", '
        '"[approval] deny", "session" or "project" (remembered from an approval).'
    )
    revocable: bool = Field(
        description="Whether revokeApprovalRule can remove it (the remembered ones); the "
        "others are changed where they were given."
    )


class ListApprovalRulesResult(Result):
    """`listApprovalRules` result: deny rules first (they beat every allow rule), then the
    allow rules in the order they are tried."""

    rules: list[ApprovalRuleInfo]


class RevokeApprovalRuleParams(Params):
    """`revokeApprovalRule`: forget a remembered rule."""

    rule: str = Field(description="The rule, exactly as listApprovalRules shows it.")
    scope: Literal["session", "project"]


__all__ = [
    "ApprovalRuleInfo",
    "ListApprovalRulesResult",
    "RevokeApprovalRuleParams",
    "SetApprovalModeParams",
    "SetApprovalModeResult",
]
