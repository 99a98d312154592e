"""decode_message: strict UTF-8 JSON, standard numbers, bounded batches, scrubbed text."""

from __future__ import annotations

import json

import pytest

from rho_rpc.decode import BatchTooLarge, ParseError, decode_message


def test_a_request_decodes_as_json_loads_would() -> None:
    line = b' {"jsonrpc":"2.0","method":"m","id":1.5,"params":{"a":[1,true,null,"\\u00e9"]}} '
    assert decode_message(line) == json.loads(line)


def test_lone_surrogates_become_replacement_characters_keys_included() -> None:
    line = b'{"id":"a\\ud800","method":"\\udc00","params":{"k\\uDBFF":["\\ud83d\\ude00"]}}'
    assert decode_message(line) == {
        "id": "a\ufffd",
        "method": "\ufffd",
        "params": {"k\ufffd": ["\U0001f600"]},
    }
    batch = decode_message(b'[{"id":"\\ud800"},"\\udfff"]')
    assert batch == [{"id": "\ufffd"}, "\ufffd"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"NaN", "NaN is not a JSON number"),
        (b'{"id":Infinity}', "Infinity is not a JSON number"),
        (b"[-Infinity]", "-Infinity is not a JSON number"),
        (b'{"a":{"b":[1e400]}}', "number 1e400 is out of range"),
        (b"[1,-1.5E+308000]", "number -1.5E+308000 is out of range"),
        (b"1" + b"0" * 400 + b".0", "number 1" + "0" * 23 + "… is out of range"),
        (b"1" + b"0" * 5000, "a number has too many digits"),
    ],
)
def test_non_standard_and_overflowing_numbers_are_parse_errors(line: bytes, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        decode_message(line)
    assert str(caught.value) == message


def test_tiny_numbers_are_not_overflow() -> None:
    assert decode_message(b"[1e-400, 1.7976931348623157e308]") == [0.0, 1.7976931348623157e308]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
def test_utf16_and_utf32_are_parse_errors_naming_utf8(encoding: str) -> None:
    with pytest.raises(ParseError, match="the protocol is UTF-8"):
        decode_message('{"id":1}'.encode(encoding))


def test_invalid_utf8_is_a_parse_error_naming_the_byte() -> None:
    with pytest.raises(ParseError, match="byte 0xff at offset 8 is not valid UTF-8"):
        decode_message(b'{"id":"a\xff"}')


def test_a_byte_order_mark_on_a_line_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="byte order mark"):
        decode_message("\ufeff{}".encode())


def test_batches_up_to_the_limit_decode() -> None:
    assert decode_message(b"[ 1 , 2 ,3 ]", max_batch=3) == [1, 2, 3]
    assert decode_message(b" [ ] ", max_batch=3) == []


def test_a_batch_over_the_limit_stops_decoding_at_limit_plus_one() -> None:
    # Members after the fourth are never looked at: not even their syntax.
    with pytest.raises(BatchTooLarge, match="at most 3 requests"):
        decode_message(b"[1,2,3,4,this is not json", max_batch=3)


@pytest.mark.parametrize(
    "line",
    [b"[1,]", b"[1 2]", b"[1", b"[1]]", b"[1] x", b"[,1]", b"[", b'[{"a":1}'],
)
def test_malformed_batches_are_parse_errors(line: bytes) -> None:
    with pytest.raises(ParseError):
        decode_message(line, max_batch=10)
    with pytest.raises(ValueError):
        json.loads(line)


def test_deep_nesting_is_a_parse_error_in_and_out_of_batches() -> None:
    for line in (b"[" * 100_000, b'{"a":' * 100_000, b"[[" + b"[" * 100_000):
        with pytest.raises(ParseError, match="nested too deeply"):
            decode_message(line)


def test_deep_nesting_with_a_surrogate_is_a_parse_error_not_a_crash() -> None:
    depth = 600  # decodes, but scrubbing it recursively runs out of stack
    line = b'{"a":' + b"[" * depth + b'"\\ud800"' + b"]" * depth + b"}"
    assert decode_message(line.replace(b"\\ud800", b"x"))
    with pytest.raises(ParseError, match="nested too deeply"):
        decode_message(line)


def test_a_repeated_key_at_any_depth_is_reported_with_what_the_id_is() -> None:
    from rho_rpc.decode import RepeatedKey

    top = decode_message(b'{"id":1,"method":"m","method":"n"}')
    assert top == RepeatedKey({"id": 1, "method": "n"}, "method", id_repeated=False)
    nested = decode_message(b'{"id":2,"params":{"a":[{"b":1,"b":2}]}}')
    assert isinstance(nested, RepeatedKey) and nested.key == "b" and not nested.id_repeated
    assert nested.message["id"] == 2
    ambiguous = decode_message(b'{"id":1,"params":{"x":0,"x":0},"id":2}')
    assert isinstance(ambiguous, RepeatedKey) and ambiguous.id_repeated
    # An "id" repeated in a nested object does not make the request's id ambiguous.
    inner = decode_message(b'{"params":{"id":1,"id":2},"id":3}')
    assert isinstance(inner, RepeatedKey) and not inner.id_repeated and inner.key == "id"


def test_repeated_keys_in_a_batch_mark_only_their_member() -> None:
    from rho_rpc.decode import RepeatedKey

    batch = decode_message(b'[{"a":1},{"a":1,"a":2},{"k\\ud800":1,"k\\ud800":2}]')
    assert batch[0] == {"a": 1}
    assert batch[1] == RepeatedKey({"a": 2}, "a", id_repeated=False)
    assert batch[2] == RepeatedKey({"k\ufffd": 2}, "k\ufffd", id_repeated=False)


def test_a_repeated_key_does_not_hide_a_parse_error_later_in_the_line() -> None:
    with pytest.raises(ParseError):
        decode_message(b'{"a":1,"a":2} x')
    with pytest.raises(ParseError):
        decode_message(b'[{"a":1,"a":2},NaN]')


def test_minus_zero_is_told_apart_from_zero() -> None:
    from rho_rpc.decode import NEGATIVE_ZERO

    decoded = decode_message(b'{"id":-0,"n":[0,-0]}')
    assert decoded["id"] is NEGATIVE_ZERO and decoded["id"] == 0
    assert type(decoded["n"][0]) is int and decoded["n"][1] is NEGATIVE_ZERO


def test_keys_that_differ_only_in_lone_surrogates_count_as_repeated() -> None:
    from rho_rpc.decode import RepeatedKey

    line = b'{"id":4,"params":{"x":[{"k\\ud800":1,"k\\udc00":2}]}}'
    decoded = decode_message(line)
    assert isinstance(decoded, RepeatedKey) and decoded.key == "k\ufffd"
    assert decoded.message["id"] == 4 and not decoded.id_repeated
    # A valid pair is one character, and distinct from a lone surrogate.
    assert decode_message(b'{"\\ud83d\\ude00":1,"\\ud83d":2}') == {"\U0001f600": 1, "\ufffd": 2}
