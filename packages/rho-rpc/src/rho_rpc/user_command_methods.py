"""`runUserCommand`: a shell command of the user's own, its output joining the conversation
as their message (see `rho_kernel.user_command` for what it goes through).

It runs in the serial lane, after the running prompt and whatever was read before it, and
holds the turn while it runs (`busy`; `abort` stops it). No approval is asked: the user
asked for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rho_kernel.rpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from rho_kernel import Runtime
    from rho_rpc.protocol.user_command import RunUserCommandParams

#: Why a command read before the end of input is not run once it has ended.
INPUT_ENDED = (
    "rho is shutting down: the client's input ended before this command started, so it did not run"
)
#: The error code of a command rho does not run (a deny rule, the shell denylist, no
#: sandbox and `[sandbox] require = true`).
COMMAND_REFUSED = -32030


class UserCommandMethods:
    """The handler of `runUserCommand`, bound to a runtime."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def run_user_command(self, params: RunUserCommandParams) -> dict[str, Any]:
        from rho_kernel.frontend import UserCommandError
        from rho_rpc.methods import peer_of
        from rho_rpc.protocol.user_command import RunUserCommandResult

        if peer_of(self.runtime).input_closed:  # the client is gone: nothing runs for it
            raise RpcError(INTERNAL_ERROR, INPUT_ENDED)
        try:
            done = await self.runtime.run_user_command(
                params.command, cwd=params.cwd, timeout=params.timeout
            )
        except UserCommandError as exc:
            if exc.refused:
                raise RpcError(COMMAND_REFUSED, exc.message) from None
            raise RpcError(INVALID_PARAMS, f"Invalid params: {exc.message}") from None
        result = RunUserCommandResult(
            exitCode=done.exit_code,
            signal=done.signal,
            timedOut=done.timed_out,
            cancelled=done.cancelled,
            output=done.output,
            shortened=done.shortened,
            entryId=done.entry_id,
            confinedBy=done.confined_by,
        )
        # exitCode and entryId are null, not left out, when there is none.
        return {
            **result.model_dump(mode="json", exclude_none=True),
            "exitCode": done.exit_code,
            "entryId": done.entry_id,
        }


__all__ = ["COMMAND_REFUSED", "INPUT_ENDED", "UserCommandMethods"]
