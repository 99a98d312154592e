"""Mid-turn steering: user messages queued while a prompt runs, taken in at tool-batch seams."""

from __future__ import annotations

from collections import deque


class SteeringQueue:
    """Messages for the running turn; accepts them only while a turn is open.

    The loop opens the queue when a turn starts and closes it in the same step in which it
    decides to end, so a message is either taken in by the turn or refused at once: it can
    never be left over for a later, unrelated turn.
    """

    def __init__(self) -> None:
        self._messages: deque[str] = deque()
        self._open = False

    def open(self) -> None:
        """A turn started: accept messages (any stale ones are dropped)."""
        self._messages.clear()
        self._open = True

    def push(self, message: str) -> bool:
        """Queue `message` for the running turn; False (nothing queued) when no turn is open."""
        if not self._open:
            return False
        self._messages.append(message)
        return True

    def take(self) -> list[str]:
        """Every queued message, oldest first; the queue is left empty."""
        taken = list(self._messages)
        self._messages.clear()
        return taken

    def close(self) -> list[str]:
        """The turn ends: refuse further messages; returns the ones never taken in."""
        self._open = False
        return self.take()

    def __len__(self) -> int:
        return len(self._messages)


__all__ = ["SteeringQueue"]
