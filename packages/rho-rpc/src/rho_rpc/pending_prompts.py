"""Prompts read but not started yet: a prompt runs, for steering, from the moment it is read.

A `prompt` (neither `steer` nor `queue`) waits on the serial lane behind the requests read
before it, and before all of them for the runtime to load. Its turn id is given out when it is
read and the runtime's steering queue expects that turn from then on, so that a steering
prompt sent right after it — in the same write, before it produced any event — reaches it
(and is answered with its `turnId`) instead of being refused for want of a running prompt.
For the same reason an `abort` read before such a prompt started reaches it: the prompt's
cancel token is made when it is read, and the turn starts already cancelled.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from rho_kernel import CancelToken, StashKey

if TYPE_CHECKING:
    from rho_kernel import Runtime


def starts_turn(params: Any) -> bool:
    """Whether validated `prompt` params run a turn of their own when their time comes."""
    return not (params.steer or params.queue) and bool(params.message.strip())


class PendingPrompts:
    """The turn ids given to the prompts read and not started yet, by their params."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        #: id(params) → (params, turn id, cancel token), in the order they were read; the
        #: params are kept so that their id stays theirs.
        self._turns: dict[int, tuple[Any, str, CancelToken]] = {}

    def read(self, method: str, params: Any) -> None:
        """A request was put on the serial lane: a prompt that will run a turn gets its turn
        id now, and the steering queue expects that turn."""
        if method != "prompt" or not starts_turn(params):
            return
        turn_id = f"turn_{secrets.token_hex(6)}"
        self._turns[id(params)] = (params, turn_id, CancelToken())
        self._runtime.steering.expect(turn_id)

    def start(self, params: Any) -> tuple[str, CancelToken] | None:
        """The turn id and cancel token given to the prompt with `params` when it was read
        (None: none was)."""
        found = self._turns.pop(id(params), None)
        return (found[1], found[2]) if found is not None and found[0] is params else None

    def cancel(self, turn_id: str | None = None) -> bool:
        """Cancel the prompt read as `turn_id` (None: the first one read) before it starts;
        False when no such prompt waits."""
        for _, pending_turn, token in self._turns.values():
            if turn_id is None or pending_turn == turn_id:
                token.cancel()
                return True
        return False


#: Where the RPC host keeps them in the runtime's stash.
PENDING_KEY: StashKey[PendingPrompts] = StashKey("rho-rpc pending prompts")


__all__ = ["PENDING_KEY", "PendingPrompts", "starts_turn"]
