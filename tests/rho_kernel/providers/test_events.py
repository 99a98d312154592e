"""Usage read from a provider's JSON: counts that are not finite numbers count 0."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from rho_kernel.providers.events import token_count, usage_from_payload


@pytest.mark.parametrize(
    ("value", "count"),
    [
        (7, 7),
        (7.9, 7),
        (math.inf, 0),
        (-math.inf, 0),
        (math.nan, 0),
        (True, 0),
        ("9", 0),
        (None, 0),
    ],
)
def test_a_token_count_is_an_integer_or_a_finite_number(value: Any, count: int) -> None:
    assert token_count(value) == count


def test_usage_with_infinity_and_nan_from_the_wire_reads_as_none_reported() -> None:
    data = json.loads(
        '{"prompt_tokens": Infinity, "completion_tokens": NaN,'
        ' "prompt_tokens_details": {"cached_tokens": -Infinity}, "cost": Infinity}'
    )
    usage = usage_from_payload(data, input_key="prompt_tokens", output_key="completion_tokens")
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (0, 0, 0)
    assert usage.cost is None


@pytest.mark.parametrize("cost", ["Infinity", "NaN", "1" + "0" * 400, "true", '"0.5"'])
def test_a_reported_cost_that_is_not_a_finite_number_is_no_cost(cost: str) -> None:
    data = json.loads(f'{{"prompt_tokens": 3, "cost": {cost}}}')
    usage = usage_from_payload(data, input_key="prompt_tokens", output_key="completion_tokens")
    assert (usage.input_tokens, usage.cost) == (3, None)
