"""The steering queue accepts messages only while a turn is open."""

from __future__ import annotations

from rho_kernel.loop.steering import SteeringQueue


def test_a_closed_queue_refuses_messages() -> None:
    queue = SteeringQueue()
    assert queue.push("early") is False
    assert len(queue) == 0


def test_an_open_queue_hands_over_messages_in_order() -> None:
    queue = SteeringQueue()
    queue.open()
    assert queue.push("a") and queue.push("b")
    assert queue.take() == ["a", "b"]
    assert queue.take() == []


def test_closing_returns_what_was_never_taken_and_refuses_more() -> None:
    queue = SteeringQueue()
    queue.open()
    queue.push("left over")
    assert queue.close() == ["left over"]
    assert queue.push("late") is False
