"""The on-disk line shapes: exact JSON round trips, every variant, version checks, rendering."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall
from rho_kernel.session.entries import (
    ATTACHED,
    FULL,
    PINNED,
    BranchSummaryPayload,
    Compacted,
    CompactionPayload,
    CompactionSummary,
    CustomMessagePayload,
    CustomPayload,
    Entry,
    Header,
    LabelPayload,
    LeafMovedPayload,
    MessagePayload,
    ModelChangePayload,
    Outlined,
    ResolutionChange,
    SessionEndedPayload,
    SessionError,
    SessionInfoPayload,
    Summarized,
    UnknownPayload,
    UnknownResolution,
    dump_line,
    new_id,
    parse_line,
    parse_resolution,
    render_entry,
)

TIMESTAMP = '{"secs_since_epoch":1777859536,"nanos_since_epoch":123456789}'


def entry_line(payload: str, resolution: str = '"Full"', parent: str = "null") -> str:
    """An Entry line as the Rust implementation writes it."""
    return (
        f'{{"type":"Entry","id":"a1b2c3d4","parent_id":{parent},"timestamp":{TIMESTAMP},'
        f'"resolution":{resolution},"payload":{payload}}}'
    )


def round_trip(line: str) -> str:
    parsed = parse_line(line)
    assert parsed is not None
    return dump_line(parsed.to_json())


def test_new_id_is_eight_lower_hex_chars() -> None:
    ids = {new_id() for _ in range(200)}
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    assert len(ids) > 190


def test_header_round_trips_to_the_exact_line() -> None:
    line = (
        '{"type":"Header","id":"4b021d5d","version":2,"created_at_secs":1777859536,'
        '"cwd":"/home/user/project","parent_session":null}'
    )
    assert round_trip(line) == line
    header = parse_line(line)
    assert isinstance(header, Header)
    assert (header.id, header.version, header.cwd) == ("4b021d5d", 2, "/home/user/project")


def test_entry_round_trips_to_the_exact_line() -> None:
    line = entry_line('{"Message":{"role":"user","content":"fix the bug"}}', parent='"e5f6a7b8"')
    assert round_trip(line) == line


def test_resolution_line_round_trips_to_the_exact_line() -> None:
    line = '{"type":"Resolution","entry":"a1b2c3d4","resolution":{"Outlined":{"outline":"read_file: a.rs (3 lines)"}},"cursor":null}'
    assert round_trip(line) == line
    change = parse_line(line)
    assert isinstance(change, ResolutionChange)
    assert change.resolution == Outlined(outline="read_file: a.rs (3 lines)")


def test_non_ascii_is_written_as_utf8_and_lone_surrogates_stay_valid() -> None:
    assert dump_line({"t": "héllo ✓"}) == '{"t":"héllo ✓"}'
    odd = dump_line({"t": "a\ud800b"})
    odd.encode("utf-8")
    assert json.loads(odd) == {"t": "a\ud800b"}


@pytest.mark.parametrize(
    ("on_disk", "expected"),
    [
        ('"Full"', FULL),
        ('"Attached"', ATTACHED),
        ('"Pinned"', PINNED),
        ('{"Compacted":{"into":"deadbeef"}}', Compacted(into="deadbeef")),
        ('{"Outlined":{"outline":"o"}}', Outlined(outline="o")),
        ('{"Summarized":{"summary":"s"}}', Summarized(summary="s")),
    ],
)
def test_every_resolution_variant_round_trips(on_disk: str, expected: Any) -> None:
    line = entry_line('{"SessionInfo":{"name":"n"}}', resolution=on_disk)
    entry = parse_line(line)
    assert isinstance(entry, Entry)
    assert entry.resolution == expected
    assert round_trip(line) == line


def test_unknown_resolution_is_kept_verbatim_and_renders_nothing() -> None:
    line = entry_line('{"Message":{"role":"user","content":"x"}}', resolution='{"Folded":{"n":1}}')
    entry = parse_line(line)
    assert isinstance(entry, Entry)
    assert isinstance(entry.resolution, UnknownResolution)
    assert render_entry(entry) is None
    assert round_trip(line) == line


def test_malformed_known_resolution_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_resolution({"Compacted": {}})
    with pytest.raises(ValueError):
        parse_line(entry_line('{"SessionInfo":{"name":"n"}}', resolution="[1,2]"))


FULL_SUMMARY = (
    '{"original_request":"fix the bug","current_request":"and add a test",'
    '"tool_calls":{"read_file":["src/main.rs"]},"key_findings":{"read_file":["120 lines"]},'
    '"phases":[{"phase":"exploration","tool_calls":{"read_file":["src/main.rs"]},'
    '"key_findings":{},"user_messages":["fix the bug"]}],"tokens_compacted":900,'
    '"entry_count":7,"time_span":{"secs":12,"nanos":5},"notes":null}'
)

PAYLOADS = [
    ('{"Message":{"role":"system","content":"you are a coding assistant"}}', MessagePayload, FULL),
    (
        '{"Message":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function",'
        '"function":{"name":"read_file","arguments":"{\\"path\\":\\"a.rs\\"}"}}],"finish_reason":"tool_calls"}}',
        MessagePayload,
        FULL,
    ),
    (
        '{"Message":{"role":"tool","content":"boom","tool_call_id":"call_1","is_error":true}}',
        MessagePayload,
        FULL,
    ),
    (
        '{"Message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}',
        MessagePayload,
        FULL,
    ),
    (
        f'{{"Compaction":{{"summary":{FULL_SUMMARY},"first_kept":"0badf00d","tokens_before":1234}}}}',
        CompactionPayload,
        FULL,
    ),
    (
        f'{{"BranchSummary":{{"summary":{FULL_SUMMARY},"from_id":"0badf00d"}}}}',
        BranchSummaryPayload,
        FULL,
    ),
    ('{"ModelChange":{"model":"gpt-4o"}}', ModelChangePayload, ATTACHED),
    ('{"Label":{"target_id":"0badf00d","label":"checkpoint"}}', LabelPayload, ATTACHED),
    ('{"Label":{"target_id":"0badf00d","label":null}}', LabelPayload, ATTACHED),
    ('{"SessionInfo":{"name":"refactor"}}', SessionInfoPayload, ATTACHED),
    ('{"LeafMoved":{"from":"0badf00d","to":"a1b2c3d4"}}', LeafMovedPayload, ATTACHED),
    ('{"LeafMoved":{"from":null,"to":"a1b2c3d4"}}', LeafMovedPayload, ATTACHED),
    (
        '{"Custom":{"kind":"rho.turn_error.v1","data":{"category":"client","error":"x"}}}',
        CustomPayload,
        ATTACHED,
    ),
    ('{"SessionEnded":{"reason":"transport EOF"}}', SessionEndedPayload, ATTACHED),
    (
        '{"CustomMessage":{"kind":"acme.notes.v1","content":[{"Text":{"text":"remember"}}]}}',
        CustomMessagePayload,
        FULL,
    ),
]


@pytest.mark.parametrize(("payload", "kind", "default"), PAYLOADS)
def test_every_payload_variant_loads_and_round_trips(
    payload: str, kind: type, default: Any
) -> None:
    line = entry_line(payload)
    entry = parse_line(line)
    assert isinstance(entry, Entry)
    assert isinstance(entry.payload, kind)
    assert entry.payload.default_resolution == default
    assert json.loads(round_trip(line)) == json.loads(line)
    assert entry.model_dump() == entry.to_json()


def test_leaf_moved_reads_the_from_key() -> None:
    entry = parse_line(entry_line('{"LeafMoved":{"from":"0badf00d","to":"a1b2c3d4"}}'))
    assert isinstance(entry, Entry)
    assert isinstance(entry.payload, LeafMovedPayload)
    assert (entry.payload.from_, entry.payload.to) == ("0badf00d", "a1b2c3d4")


def test_partial_compaction_summary_loads_with_defaults() -> None:
    line = entry_line(
        '{"Compaction":{"summary":{"original_request":"fix it","tokens_compacted":10,'
        '"entry_count":2},"first_kept":"0badf00d","tokens_before":10}}'
    )
    entry = parse_line(line)
    assert isinstance(entry, Entry)
    assert isinstance(entry.payload, CompactionPayload)
    summary = entry.payload.summary
    assert summary.current_request is None
    assert summary.phases == []
    assert summary.time_span.secs == 0
    assert summary.original_request == "fix it"


def test_unknown_payload_variant_is_kept_opaque_and_renders_nothing() -> None:
    line = entry_line('{"Hologram":{"depth":3}}')
    entry = parse_line(line)
    assert isinstance(entry, Entry)
    assert isinstance(entry.payload, UnknownPayload)
    assert entry.payload.default_resolution == ATTACHED
    assert render_entry(entry) is None
    assert round_trip(line) == line


def test_malformed_known_payload_is_an_error() -> None:
    with pytest.raises(ValueError):
        parse_line(entry_line('{"ModelChange":{}}'))


def test_tool_message_without_is_error_defaults_to_false() -> None:
    entry = parse_line(entry_line('{"Message":{"role":"tool","content":"ok","tool_call_id":"c"}}'))
    assert isinstance(entry, Entry)
    assert entry.message is not None
    assert entry.message.is_error is False


def test_unknown_fields_are_ignored_and_timestamp_is_optional() -> None:
    line = (
        '{"type":"Entry","id":"a1b2c3d4","parent_id":null,"resolution":"Full","future":1,'
        '"payload":{"Message":{"role":"user","content":"hi","mood":"great"}}}'
    )
    entry = parse_line(line)
    assert isinstance(entry, Entry)
    assert entry.timestamp.secs_since_epoch == 0
    assert entry.timestamp.nanos_since_epoch == 0
    assert entry.message == ChatMessage.user("hi")


def test_header_versions_one_and_two_are_supported_and_three_is_not() -> None:
    for version in (1, 2):
        header = Header(id="x", version=version, created_at_secs=0, cwd="/")
        header.check_supported()
    with pytest.raises(SessionError, match="version 3"):
        Header(id="x", version=3, created_at_secs=0, cwd="/").check_supported()


def test_line_of_unknown_type_is_skipped_and_garbage_is_an_error() -> None:
    assert parse_line('{"type":"Cursor","id":"c"}') is None
    for bad in ("[1]", '{"id":"x"}', "{not json", '{"type":"Entry","id":"x"}'):
        with pytest.raises(ValueError):
            parse_line(bad)


# ── Rendering ─────────────────────────────────────────────────────────────────


def make(payload: Any, resolution: Any = None) -> Entry:
    return Entry.new(None, payload, resolution)


CALL = ToolCall(id="call_1", function=FunctionCall(name="read_file", arguments='{"path":"a"}'))


def test_full_and_pinned_messages_render_verbatim() -> None:
    message = ChatMessage.user("hello")
    assert render_entry(make(MessagePayload(message=message))) is message
    assert render_entry(make(MessagePayload(message=message), PINNED)) is message


def test_attached_and_compacted_render_nothing() -> None:
    payload = MessagePayload(message=ChatMessage.user("hello"))
    assert render_entry(make(payload, ATTACHED)) is None
    assert render_entry(make(payload, Compacted(into="x"))) is None
    assert render_entry(make(ModelChangePayload(model="m"))) is None


def test_outlined_tool_result_keeps_its_call_id() -> None:
    tool = ChatMessage.tool_result("call_1", "x" * 1000, True)
    rendered = render_entry(make(MessagePayload(message=tool), Outlined(outline="read_file: a")))
    assert rendered is not None
    assert (rendered.role, rendered.content, rendered.tool_call_id) == (
        "tool",
        "read_file: a",
        "call_1",
    )
    assert rendered.is_error is True


def test_summarized_assistant_keeps_its_tool_calls() -> None:
    assistant = ChatMessage.assistant("long reasoning", [CALL])
    rendered = render_entry(
        make(MessagePayload(message=assistant), Summarized(summary="Requested: read_file(a)"))
    )
    assert rendered is not None
    assert rendered.role == "assistant"
    assert rendered.content == "Requested: read_file(a)"
    assert rendered.tool_calls == [CALL]


def test_outlined_user_message_becomes_a_user_message() -> None:
    rendered = render_entry(
        make(MessagePayload(message=ChatMessage.system("sys")), Outlined(outline="o"))
    )
    assert rendered == ChatMessage.user("o")


def test_compaction_renders_as_a_user_message() -> None:
    summary = CompactionSummary(
        original_request="fix the bug",
        current_request="now add a test",
        tokens_compacted=900,
        entry_count=7,
        notes="All tests passed.",
    )
    rendered = render_entry(make(CompactionPayload(summary=summary, first_kept="x")))
    assert rendered is not None
    assert rendered.role == "user"
    assert rendered.content == (
        "[Compacted: 7 entries, 900 tokens]\n"
        'Current request: "now add a test"\n'
        'Initial request: "fix the bug"\n'
        "All tests passed."
    )
    same = CompactionSummary(original_request="a", current_request="a", entry_count=1)
    branch = render_entry(make(BranchSummaryPayload(summary=same, from_id="x")))
    assert branch is not None
    assert branch.content == '[Compacted: 1 entries, 0 tokens]\nCurrent request: "a"'


def test_custom_message_renders_its_text_as_a_user_message() -> None:
    payload = CustomMessagePayload(
        kind="acme.notes.v1", content=[{"Text": {"text": "remember this"}}]
    )
    assert render_entry(make(payload)) == ChatMessage.user("remember this")
    assert render_entry(make(CustomPayload(kind="acme.notes.v1", data=1))) is None
