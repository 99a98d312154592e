"""Prompts read and not started yet: each has its turn id and a cancel token from the moment
it is read, so that a steer or an abort read before it starts reaches it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from rho_kernel.loop.steering import SteeringQueue
from rho_rpc.pending_prompts import PendingPrompts


def _prompt(message: str) -> Any:
    return SimpleNamespace(message=message, steer=False, queue=False)


def _pending() -> PendingPrompts:
    return PendingPrompts(SimpleNamespace(steering=SteeringQueue()))  # type: ignore[arg-type]


def test_a_prompt_read_gets_its_turn_and_an_uncancelled_token() -> None:
    pending, prompt = _pending(), _prompt("one")
    pending.read("prompt", prompt)
    started = pending.start(prompt)
    assert started is not None
    turn_id, token = started
    assert turn_id.startswith("turn_") and not token.cancelled
    assert pending.start(prompt) is None  # given out once


def test_an_abort_before_the_start_cancels_the_first_prompt_read() -> None:
    pending, first, second = _pending(), _prompt("one"), _prompt("two")
    pending.read("prompt", first)
    pending.read("prompt", second)
    assert pending.cancel()
    one, two = pending.start(first), pending.start(second)
    assert one is not None and two is not None
    assert one[1].cancelled and not two[1].cancelled


def test_an_abort_naming_a_turn_cancels_that_prompt_only() -> None:
    pending, first, second = _pending(), _prompt("one"), _prompt("two")
    pending.read("prompt", first)
    pending.read("prompt", second)
    one_turn = pending._turns[id(first)][1]
    two_turn = pending._turns[id(second)][1]
    assert pending.cancel(two_turn) and not pending.cancel("turn_unknown")
    one, two = pending.start(first), pending.start(second)
    assert one == (one_turn, one[1]) and not one[1].cancelled  # type: ignore[index]
    assert two is not None and two[0] == two_turn and two[1].cancelled


def test_nothing_waits_nothing_is_cancelled() -> None:
    pending = _pending()
    pending.read("prompt", SimpleNamespace(message="  ", steer=False, queue=False))
    pending.read("prompt", SimpleNamespace(message="x", steer=True, queue=False))
    assert not pending.cancel()
