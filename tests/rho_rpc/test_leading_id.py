"""leading_id: the top-level id read from the start of a line too large to decode."""

from __future__ import annotations

import pytest

from rho_rpc.leading_id import leading_id


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":7,"method":"prompt","params":{"message":"xxxx', 7),
        (b' { "id" : "abc" , "params":{"message":"xx', "abc"),
        (b'{"method":"m","id":-2.5e3,"params":[1,2', -2500.0),
        (b'{"id":null,"params":{"', None),
        (b'{"i\\u0064":"escaped key","params":"', "escaped key"),
        (b'{"params":{"a":[{"b":"}"}],"c":"\\""},"id":"after params","x":"', "after params"),
        (b'{"id":"a\\ud800","params":"', "a\ufffd"),
        (b'{"id":5}', 5),
    ],
)
def test_the_top_level_id_is_found(prefix: bytes, expected: object) -> None:
    assert leading_id(prefix) == expected


@pytest.mark.parametrize(
    "prefix",
    [
        b'{"params":{"id":3,"message":"xxxx',  # nested: not the request's id
        b'{"message":"\\"id\\":4, xxxx',  # inside a string
        b'{"params":["id",5,"xxxx',
        b'{"jsonrpc":"2.0","params":{"message":"xxxx","id":6',  # id after the huge part
        b'{"id":12',  # may be the start of 1234…
        b'{"id":"unterminated',
        b'{"id":tru',
        b'{"id":NaN,"params":"',
        b'{"id":1e999,"params":"',
        b'[{"id":8,"method":"m"},{"id":9',  # a batch: no single id
        b'"id":1,',
        b"",
        b'{"id" 1,"params":"',
        b'{id:1,"params":"',
        b'{"id":1\x00,"params":"',
        b'{"id":1,"id":2,"params":"',  # repeated: ambiguous
        b'{"id":1,"x":{"y":0},"id":1,"params":"',  # repeated, even with the same value
        b'\xff{"id":1,"params":"',
        b'{"x":' + b"[" * 5000,
    ],
)
def test_no_id_when_it_cannot_be_read(prefix: bytes) -> None:
    assert leading_id(prefix) is None


def test_a_prefix_cut_inside_a_utf8_sequence_still_yields_the_id() -> None:
    prefix = '{"id":"é","params":{"message":"€€'.encode()[:-1]
    assert leading_id(prefix) == "é"


def test_an_invalid_id_type_is_returned_for_the_caller_to_refuse() -> None:
    assert leading_id(b'{"id":{"a":1},"params":"') == {"a": 1}
