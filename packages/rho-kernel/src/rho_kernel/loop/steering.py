"""Mid-turn steering: user messages queued while a prompt runs, taken in at tool-batch seams."""

from __future__ import annotations

from collections import deque


class SteeringQueue:
    """Messages for the running turn; accepts them only while a turn is open or expected.

    The loop opens the queue when a turn starts and closes it in the same step in which it
    decides to end, so a message is either taken in by the turn or refused at once: it can
    never be left over for a later, unrelated turn.

    A front end that has read a prompt which will run as a turn (behind other work, or
    while the runtime still loads) says so with `expect(turn_id)`: from then on the queue
    accepts messages for it while no turn is open, and the turn takes them in when it opens
    the queue with that id. `forget(turn_id)` takes back a turn that will not run after
    all (its messages are dropped).
    """

    def __init__(self) -> None:
        self._messages: deque[str] = deque()
        self._open = False
        #: The messages sent for each expected turn, in the order the turns were read.
        self._expected: dict[str, list[str]] = {}

    def expect(self, turn_id: str) -> None:
        """A prompt that will run as `turn_id` was read: accept messages for it from now on."""
        self._expected.setdefault(turn_id, [])

    def forget(self, turn_id: str) -> None:
        """The expected turn `turn_id` will not run: its messages are dropped (no-op once it
        has opened the queue)."""
        self._expected.pop(turn_id, None)

    @property
    def is_open(self) -> bool:
        """Whether a turn has the queue open."""
        return self._open

    @property
    def target(self) -> str | None:
        """The expected turn a message goes to while none is open (the first one read)."""
        return next(iter(self._expected), None)

    def open(self, turn_id: str | None = None) -> None:
        """A turn started: accept messages. Those sent for it while it was expected
        (`turn_id` given and expected) are kept; any others are stale and dropped."""
        self._messages = deque(self._expected.pop(turn_id, []) if turn_id is not None else ())
        self._open = True

    def push(self, message: str) -> bool:
        """Queue `message` for the running turn, else for the first expected one; False
        (nothing queued) when no turn is open or expected."""
        if self._open:
            self._messages.append(message)
            return True
        target = self.target
        if target is None:
            return False
        self._expected[target].append(message)
        return True

    def take(self) -> list[str]:
        """Every queued message, oldest first; the queue is left empty."""
        taken = list(self._messages)
        self._messages.clear()
        return taken

    def close(self) -> list[str]:
        """The turn ends: refuse further messages (those sent later go to the next expected
        turn, if any); returns the ones never taken in."""
        self._open = False
        return self.take()

    def __len__(self) -> int:
        return len(self._messages)


__all__ = ["SteeringQueue"]
