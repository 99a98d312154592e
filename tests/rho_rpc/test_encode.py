"""encode_json and json_safe: standard JSON out, whatever the value holds."""

from __future__ import annotations

import json
import math

import pytest

from rho_rpc.encode import NOT_JSON, encode_json, json_safe


def test_compact_utf8_without_ascii_escapes() -> None:
    assert encode_json({"a": ["é", 1, None]}) == '{"a":["é",1,null]}'.encode()


def test_lone_surrogates_are_replaced_and_pairs_joined() -> None:
    data = encode_json({"k\udc00": "a\ud800", "pair": "\ud83d\ude00"})
    assert json.loads(data.decode("utf-8", "strict")) == {"k\ufffd": "a\ufffd", "pair": "😀"}


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"x": -math.inf}, {1, 2}, object()])
def test_values_that_are_not_json_raise_instead_of_writing_invalid_json(value: object) -> None:
    with pytest.raises(NOT_JSON):
        encode_json(value)


def test_a_cycle_raises_instead_of_writing_invalid_json() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(NOT_JSON):
        encode_json(loop)


def test_json_safe_replaces_what_json_cannot_hold() -> None:
    value = {"n": math.nan, "i": [math.inf, 1.5], "s": {3}, 2.5: "float key", "t": (1, True)}
    assert json_safe(value) == {
        "n": None,
        "i": [None, 1.5],
        "s": "{3}",
        "2.5": "float key",
        "t": [1, True],
    }
    assert json.loads(encode_json(json_safe(value)))["s"] == "{3}"
