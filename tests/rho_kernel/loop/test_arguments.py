"""One strict decoding of tool arguments."""

from __future__ import annotations

import pytest

from rho_kernel.loop.arguments import ArgumentsError, decode_arguments, encode_arguments


def test_blank_arguments_are_an_empty_object() -> None:
    assert decode_arguments("  ") == {}


def test_an_object_decodes() -> None:
    assert decode_arguments('{"path": "a", "n": 2.5, "deep": {"x": [1]}}') == {
        "path": "a",
        "n": 2.5,
        "deep": {"x": [1]},
    }


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"path":"a","path":"b"}', "'path' appears more than once"),
        ('{"o":{"k":1,"k":2}}', "'k' appears more than once"),
        ('{"n": NaN}', "NaN is not a JSON number"),
        ('{"n": -Infinity}', "-Infinity is not a JSON number"),
        ('{"n": 1e400}', "too large"),
        ("[1, 2]", "must be a JSON object, got list"),
        ('{"path": ', "not valid JSON"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_ambiguous_or_invalid_arguments_are_refused(raw: str, problem: str) -> None:
    with pytest.raises(ArgumentsError, match=problem):
        decode_arguments(raw)


def test_lone_surrogates_are_replaced() -> None:
    assert decode_arguments('{"p\\udc00": "a\\ud800"}') == {"p\ufffd": "a\ufffd"}


def test_encoding_is_canonical_json() -> None:
    assert encode_arguments({"path": "café", "n": 1}) == '{"path": "café", "n": 1}'
