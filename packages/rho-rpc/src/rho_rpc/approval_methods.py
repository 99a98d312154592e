"""The approval methods: the permission mode, and the approval rules in force."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.rpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from rho_rpc.protocol.base import EmptyResult, NoParams

if TYPE_CHECKING:
    from rho_kernel import Runtime
    from rho_rpc.protocol.approvals import (
        ListApprovalRulesResult,
        RevokeApprovalRuleParams,
        SetApprovalModeParams,
        SetApprovalModeResult,
    )


class ApprovalMethods:
    """One handler per approval method, bound to a runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def set_approval_mode(self, params: SetApprovalModeParams) -> SetApprovalModeResult:
        from rho_rpc.protocol.approvals import SetApprovalModeResult

        self.runtime.permission_mode = params.mode
        return SetApprovalModeResult(mode=self.runtime.permission_mode)

    async def list_rules(self, _: NoParams) -> ListApprovalRulesResult:
        from rho_rpc.protocol.approvals import ApprovalRuleInfo, ListApprovalRulesResult

        rules = self.runtime.approval_rules
        listed: list[ApprovalRuleInfo] = []
        if rules is not None:
            for action, sourced_rules in (("deny", rules.deny), ("allow", rules.every_allow())):
                listed.extend(
                    ApprovalRuleInfo(
                        rule=sourced.rule.text,
                        action=action,  # type: ignore[arg-type]
                        source=sourced.source,
                        revocable=sourced.source in ("session", "project"),
                    )
                    for sourced in sourced_rules
                )
        return ListApprovalRulesResult(rules=listed)

    async def revoke_rule(self, params: RevokeApprovalRuleParams) -> EmptyResult:
        import asyncio

        from rho_kernel.security import PrivateFileError

        remembered = self.runtime.remembered
        try:
            if params.scope == "session":  # the session is written on the event loop only
                found = remembered.revoke(params.rule, params.scope)
            else:
                found = await asyncio.to_thread(remembered.revoke, params.rule, params.scope)
        except (OSError, PrivateFileError) as exc:
            raise RpcError(INTERNAL_ERROR, f"the rule could not be revoked: {exc}") from None
        if not found:
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: no rule {params.rule!r} is remembered for the "
                f"{params.scope} (listApprovalRules shows the rules; those given with "
                "--allow, --deny or in [approval] are changed there)",
            )
        return EmptyResult()


__all__ = ["ApprovalMethods"]
