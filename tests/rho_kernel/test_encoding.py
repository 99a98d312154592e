"""Scrubbing lone surrogates so that every string rho handles can be encoded as UTF-8."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rho_kernel.encoding import REPLACEMENT, has_surrogates, scrub_json, scrub_surrogates


def test_text_without_surrogates_is_returned_unchanged() -> None:
    text = "plain ☃ text"
    assert scrub_surrogates(text) is text


def test_a_surrogate_pair_is_joined_into_its_character() -> None:
    assert scrub_surrogates(json.loads('"a\\ud83d\\ude00b"')) == "a😀b"


def test_lone_surrogates_become_the_replacement_character() -> None:
    assert scrub_surrogates("x\ud800y\udfff") == f"x{REPLACEMENT}y{REPLACEMENT}"


def test_surrogate_escaped_file_name_bytes_are_replaced() -> None:
    name = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
    assert scrub_surrogates(name) == f"caf{REPLACEMENT}.txt"


def test_json_values_are_scrubbed_everywhere_keys_included() -> None:
    value = {"k\ud800": ["\udc00", 1, None, {"n": "ok"}], "id": 3}
    scrubbed = scrub_json(value)
    assert scrubbed == {f"k{REPLACEMENT}": [REPLACEMENT, 1, None, {"n": "ok"}], "id": 3}
    json.dumps(scrubbed, ensure_ascii=False).encode("utf-8")


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)))
def test_scrubbed_text_always_encodes_as_utf8(text: str) -> None:
    scrubbed = scrub_surrogates(text)
    scrubbed.encode("utf-8")
    assert not has_surrogates(scrubbed)
    if not has_surrogates(text):
        assert scrubbed == text


def test_unique_keys_refuses_a_repeated_key_at_any_depth() -> None:
    import json

    import pytest

    from rho_kernel.encoding import RepeatedKeyError, unique_keys

    assert json.loads('{"a":{"b":1},"c":[{"b":2}]}', object_pairs_hook=unique_keys) == {
        "a": {"b": 1},
        "c": [{"b": 2}],
    }
    for text, key in [
        ('{"a":1,"a":1}', "a"),
        ('{"x":[{"k":1,"y":0,"k":2}]}', "k"),
        ('{"\\u0069d":1,"id":2}', "id"),  # the same key once unescaped
    ]:
        with pytest.raises(RepeatedKeyError) as caught:
            json.loads(text, object_pairs_hook=unique_keys)
        assert caught.value.key == key
    with pytest.raises(RepeatedKeyError, match="'" + "k" * 64 + "…' appears more than once"):
        long = "k" * 500
        json.loads(f'{{"{long}":1,"{long}":2}}', object_pairs_hook=unique_keys)
