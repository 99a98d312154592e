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


def test_an_expected_turn_takes_the_messages_sent_before_it_opened() -> None:
    queue = SteeringQueue()
    queue.expect("turn_a")
    assert queue.target == "turn_a"
    assert queue.push("early") and queue.push("earlier still")
    queue.open("turn_a")
    assert queue.target is None
    assert queue.take() == ["early", "earlier still"]


def test_messages_go_to_the_open_turn_before_any_expected_one() -> None:
    queue = SteeringQueue()
    queue.open("turn_running")
    queue.expect("turn_next")
    assert queue.push("for the running turn")
    assert queue.close() == ["for the running turn"]
    assert queue.push("for the next turn")  # none runs now: the expected one takes it
    queue.open("turn_next")
    assert queue.take() == ["for the next turn"]


def test_another_turn_opening_leaves_the_expected_turns_messages_alone() -> None:
    queue = SteeringQueue()
    queue.expect("turn_b")
    queue.push("for b")
    queue.open("turn_follow_up")  # a turn that was not expected (a queued follow-up)
    assert queue.take() == []
    queue.close()
    queue.open("turn_b")
    assert queue.take() == ["for b"]


def test_a_forgotten_turn_drops_its_messages_and_refuses_more() -> None:
    queue = SteeringQueue()
    queue.expect("turn_a")
    queue.push("lost")
    queue.forget("turn_a")
    assert queue.push("late") is False
    queue.open("turn_a")
    assert queue.take() == []
