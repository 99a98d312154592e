"""Unreadable session lines are described in rho's words: line, entry kind, field, problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_kernel.session import Session, SessionError
from rho_kernel.session.loading import RawLine, replay

HEADER = {"type": "Header", "id": "0000beef", "version": 2, "created_at_secs": 1, "cwd": "/p"}


def line(payload: Any = None, **over: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "Entry",
        "id": "e1",
        "parent_id": None,
        "timestamp": {"secs_since_epoch": 1, "nanos_since_epoch": 0},
        "resolution": "Full",
        "payload": payload
        if payload is not None
        else {"Message": {"role": "user", "content": "x"}},
    }
    record.update(over)
    return record


def described(record: Any) -> str:
    data = record if isinstance(record, bytes) else json.dumps(record).encode()
    result = replay([RawLine(7, data, True)])
    assert result.skipped == [7]
    return result.first_error


CASES = [
    (
        line({"Message": {"role": "wizard", "content": "x"}}),
        "Message entry: role must be 'system', 'user', 'assistant' or 'tool' (found \"wizard\")",
    ),
    (line(id=5), "Message entry: id must be a string (found 5)"),
    (line(resolution={"Outlined": {}}), "Message entry: resolution.outline is missing"),
    (line({"Compaction": {"summary": {}}}), "Compaction entry: first_kept is missing"),
    (line({"Label": {"label": "x"}}), "Label entry: target_id is missing"),
    (line({"LeafMoved": {"from": "x"}}), "LeafMoved entry: to is missing"),
    (
        line({"Compaction": {"first_kept": "x", "tokens_before": "many"}}),
        'Compaction entry: tokens_before must be an integer (found "many")',
    ),
    (
        line(timestamp={"secs_since_epoch": "x"}),
        'Message entry: timestamp.secs_since_epoch must be an integer (found "x")',
    ),
    (
        line(
            {
                "Message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": "c", "type": "function", "function": {"name": 1}}],
                }
            }
        ),
        "Message entry: tool_calls[0].function.name must be a string (found 1)",
    ),
    (
        line({"Message": {"role": "user", "content": 5}}),
        "Message entry: content must be a string or a list (found 5)",
    ),
    (line({"Message": 7}), "Message entry: payload must be an object (found 7)"),
    (
        line(resolution=[1]),
        'Message entry: resolution must be a name such as "Full" or an object of one key',
    ),
    (
        {"type": "Resolution", "entry": "a", "resolution": {"Compacted": {}}},
        "Resolution line: resolution.into is missing",
    ),
    (b'{"type":"Entry","id":"a"', "the line is not valid JSON (expecting ',' delimiter at column"),
    (b"[1, 2]", "the line is not a JSON object"),
    (b'{"id": "a"}', "the line has no string 'type' field"),
    (b"[" * 5000 + b"]" * 5000, "the line is nested too deeply"),
]


@pytest.mark.parametrize(("record", "expected"), CASES)
def test_each_problem_is_named_by_kind_field_and_problem(record: Any, expected: str) -> None:
    text = described(record)
    assert text.startswith(expected), text
    for word in ("pydantic", "validation error", "For further information", "type="):
        assert word not in text


def test_the_warning_names_the_line_and_never_quotes_pydantic(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    records = [HEADER, line(), line({"Message": {"role": "wizard", "content": "x"}}, id="e2")]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    warnings: list[str] = []
    Session.open(path, on_warning=warnings.append).close()
    [warning] = warnings
    assert "skipped 1 unreadable line (first: line 3: Message entry: role must be" in warning
    assert "errors.pydantic.dev" not in warning and "validation error" not in warning


def test_an_unreadable_header_is_described_too(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "Header", "id": "a", "cwd": "/p"}) + "\n")
    with pytest.raises(SessionError) as caught:
        Session.open(path)
    message = str(caught.value)
    assert "line 1: the session header cannot be read: created_at_secs is missing" in message
    assert "pydantic" not in message


def test_values_from_the_file_are_escaped_and_cut(tmp_path: Path) -> None:
    forged = "user\nrho: error: forged\x1b[31m" + "x" * 500
    text = described(line({"Message": {"role": forged, "content": "x"}}))
    assert "\n" not in text and "\x1b" not in text and len(text) < 200
    tag = "Evil\ntag" + "y" * 300
    text = described(line({tag: {}}, resolution=7))
    assert "\n" not in text and len(text) < 250


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["Message", "Compaction", "Label", "LeafMoved", "BranchSummary", "Custom"]),
    _JSON,
    _JSON,
)
def test_any_malformed_entry_is_one_printable_line_in_rho_words(
    tag: str, body: Any, resolution: Any
) -> None:
    data = json.dumps(line({tag: body}, resolution=resolution)).encode()
    result = replay([RawLine(7, data, True)])
    if not result.skipped:
        return  # it happened to be readable
    text = result.first_error
    assert text.isprintable() and len(text) < 400
    assert "pydantic" not in text and "validation error" not in text
