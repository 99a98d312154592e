"""Follow-up prompts: `prompt` with `queue: true`, answered at once and run later, in order.

A queued prompt gets its turn id when it is queued (the `prompt` response carries it) and
takes its place on the serial lane, behind every request read before it: it runs when they
have ended, as the turn that id names, its events and its end (`agent/end`, `agent/error`)
carrying the id. Until it starts, `getState` lists it under `queued` and `abort` with its id
takes it out (it never runs); once it runs, `abort` with its id cancels it like any prompt.
A prompt still queued when the client's input ends is not run, as a `prompt` read before the
end but not started is not.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rho_kernel import CancelToken, StashKey

if TYPE_CHECKING:
    from rho_kernel import ImagePart, Runtime
    from rho_rpc.peer import RpcPeer

#: The longest preview of a queued prompt's message `getState` shows.
PREVIEW_CHARS = 120

#: Puts work on the server's serial lane, behind every request read so far.
Serial = Callable[[Callable[[], Awaitable[None]]], None]


@dataclass(slots=True)
class FollowUp:
    """A queued prompt: the turn it will run as, its message and images, and the token
    that cancels it (before it starts or while it runs)."""

    turn_id: str
    message: str
    images: list[ImagePart]
    cancel: CancelToken = field(default_factory=CancelToken)

    @property
    def preview(self) -> str:
        """The message on one line, at most `PREVIEW_CHARS` characters."""
        flat = " ".join(self.message[: PREVIEW_CHARS * 4].split())
        return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


class FollowUps:
    """The follow-up prompts of the connected client, queued in arrival order."""

    def __init__(self, runtime: Runtime, peer: RpcPeer, serial: Serial) -> None:
        self._runtime = runtime
        self._peer = peer
        self._serial = serial
        self._queued: list[FollowUp] = []
        #: The follow-up whose turn runs now (taken from the queue), if any.
        self._running: FollowUp | None = None

    def add(self, message: str, images: list[ImagePart]) -> FollowUp:
        """Queue `message` (and `images`) to run after everything read so far."""
        item = FollowUp(f"turn_{secrets.token_hex(6)}", message, images)
        self._queued.append(item)
        self._serial(lambda: self._run(item))
        return item

    def queued(self) -> list[FollowUp]:
        """The prompts waiting to run, first to run first."""
        return list(self._queued)

    def cancel(self, turn_id: str) -> bool:
        """Take the queued prompt `turn_id` out of the queue, or cancel it if it runs now;
        False when no follow-up has that id."""
        for item in self._queued:
            if item.turn_id == turn_id:
                self._queued.remove(item)
                return True
        running = self._running
        if running is not None and running.turn_id == turn_id:
            running.cancel.cancel()
            return True
        return False

    async def _run(self, item: FollowUp) -> None:
        """Run `item` as its turn, unless it was taken out or the client has gone."""
        if item not in self._queued:
            return  # aborted before its turn came
        self._queued.remove(item)
        if self._peer.input_closed:
            return  # the client is gone: no turn starts for it
        from rho_kernel.frontend import AgentError, StartupError
        from rho_rpc.status_bar import draw_after_turn

        self._running = item
        try:
            await self._runtime.prompt(
                item.message, images=item.images, cancel=item.cancel, turn_id=item.turn_id
            )
        except AgentError:
            pass  # told as agent/error, with the turn id, by the client's observer
        except StartupError as exc:  # the model cannot be set up: no turn began
            self._peer.notify("agent/error", {"error": str(exc), "turnId": item.turn_id})
        finally:
            self._running = None
            draw_after_turn(self._runtime)


#: Where the RPC host keeps the client's follow-ups in the runtime's stash.
FOLLOW_UPS_KEY: StashKey[FollowUps] = StashKey("rho-rpc follow-ups")


__all__ = ["FOLLOW_UPS_KEY", "PREVIEW_CHARS", "FollowUp", "FollowUps", "Serial"]
