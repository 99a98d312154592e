"""`apply_interception`: the one rule by which rho chains `Block`/`Rewrite` answers."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from rho_kernel import Block, Rewrite, apply_interception


def chain(arguments: dict[str, Any], answers: list[object]) -> Block | dict[str, Any]:
    """Fold answers as the docstring says callers do (stop at the first Block)."""
    for answer in answers:
        step = apply_interception(arguments, answer)
        if isinstance(step, Block):
            return step
        arguments = step
    return arguments


def test_no_opinion_keeps_the_same_arguments_object() -> None:
    arguments = {"path": "a.txt"}
    assert apply_interception(arguments, None) is arguments
    assert apply_interception(arguments, "not an interception") is arguments
    assert (
        apply_interception(arguments, {"path": "b.txt"}) is arguments
    )  # a bare dict is no Rewrite


def test_block_is_returned_as_it_is() -> None:
    block = Block("no")
    assert apply_interception({"n": 1}, block) is block


def test_rewrite_gives_a_copy_and_changes_nothing_in_place() -> None:
    arguments = {"n": 1}
    rewrite = Rewrite({"n": 2})
    step = apply_interception(arguments, rewrite)
    assert step == {"n": 2}
    assert step is not rewrite.arguments
    assert isinstance(step, dict)
    step["n"] = 3
    assert rewrite.arguments == {"n": 2}
    assert arguments == {"n": 1}


def test_rewrites_compose_in_order() -> None:
    assert chain({"n": 1}, [Rewrite({"n": 2}), None, Rewrite({"n": 3})]) == {"n": 3}
    assert chain({"n": 1}, [Rewrite({"n": 2}), None]) == {"n": 2}


def test_the_first_block_wins_over_later_answers() -> None:
    first = Block("first")
    assert chain({"n": 1}, [first, Block("second")]) is first
    assert chain({"n": 1}, [first, Rewrite({"n": 2})]) is first
    assert chain({"n": 1}, [Rewrite({"n": 2}), first, Rewrite({"n": 3})]) is first


ALPHABET: list[object] = [None, Rewrite({"n": 2}), Rewrite({"n": 3}), Block("a"), Block("b"), 7]


@pytest.mark.parametrize("length", [0, 1, 2, 3])
def test_every_short_sequence_follows_the_rule(length: int) -> None:
    for answers in itertools.product(ALPHABET, repeat=length):
        blocks = [a for a in answers if isinstance(a, Block)]
        if blocks:
            expected: object = blocks[0]
        else:
            rewrites = [a for a in answers if isinstance(a, Rewrite)]
            expected = rewrites[-1].arguments if rewrites else {"n": 1}
        assert chain({"n": 1}, list(answers)) == expected, answers
