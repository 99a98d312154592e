"""The lines of a session file: the header, entries, and resolution changes.

A session file is JSONL. Its first non-blank line is a `Header`; every later line is an
`Entry` (one node of the session tree) or, in format v2, a `Resolution` line that changes
the resolution of an earlier entry. Resolutions and payloads use serde's external tagging
(`"Full"`, `{"Compacted": {"into": id}}`, `{"Message": {...}}`), because the files are
shared with the Rust implementation.

Every model here has `to_json()`, which builds the exact on-disk form directly (the write
path never goes through pydantic's serialiser), and reading goes through pydantic with
unknown fields ignored so that older and newer files keep loading.
"""

from __future__ import annotations

import json
import os
import time
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, model_serializer

from rho_kernel.messages import ChatMessage

CURRENT_VERSION = 2
"""The format version written in new session headers."""

SUPPORTED_VERSIONS = (1, 2)
"""Header versions this implementation can read."""


class SessionError(Exception):
    """A session file cannot be read, or a session operation is not possible."""


def new_id() -> str:
    """A fresh session or entry id: 8 lower-hex chars, the first 4 bytes of a UUIDv4.

    Those 4 bytes of a UUIDv4 are plain random bytes (the version and variant bits live
    further on), so they are drawn directly.
    """
    return os.urandom(4).hex()


def dump_line(record: dict[str, Any]) -> str:
    """Serialise one line's JSON object compactly (no trailing newline).

    Non-ASCII text is written as UTF-8; a string holding a lone surrogate (which UTF-8
    cannot encode) falls back to `\\u` escapes so the file stays valid UTF-8.
    """
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, separators=(",", ":"), allow_nan=False)
    return text


class _OnDisk(BaseModel):
    """Base for the immutable on-disk models; unknown fields are ignored on read."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


# ── Timestamps ────────────────────────────────────────────────────────────────


class Timestamp(_OnDisk):
    """A Rust `SystemTime` as serde writes it: seconds and nanoseconds since the epoch."""

    secs_since_epoch: int = 0
    nanos_since_epoch: int = 0

    @classmethod
    def now(cls) -> Timestamp:
        """The current wall-clock time."""
        secs, nanos = divmod(time.time_ns(), 1_000_000_000)
        return cls.model_construct(secs_since_epoch=secs, nanos_since_epoch=nanos)

    def to_json(self) -> dict[str, int]:
        """The on-disk form."""
        return {
            "secs_since_epoch": self.secs_since_epoch,
            "nanos_since_epoch": self.nanos_since_epoch,
        }


# ── Resolutions ───────────────────────────────────────────────────────────────


class _Resolution(_OnDisk):
    """Base of the resolution variants: how an entry is rendered into the model's context."""

    def to_json(self) -> Any:
        """The on-disk (externally tagged) form."""
        raise NotImplementedError

    @model_serializer
    def _serialize(self) -> Any:
        return self.to_json()


class Full(_Resolution):
    """The entry is rendered verbatim."""

    def to_json(self) -> str:
        """The on-disk form: `"Full"`."""
        return "Full"


class Attached(_Resolution):
    """The entry is kept in the tree for tools and extensions but not rendered."""

    def to_json(self) -> str:
        """The on-disk form: `"Attached"`."""
        return "Attached"


class Pinned(_Resolution):
    """Rendered verbatim, like Full, and protected from downgrade and eviction."""

    def to_json(self) -> str:
        """The on-disk form: `"Pinned"`."""
        return "Pinned"


class Compacted(_Resolution):
    """Replaced in the context by the Compaction entry `into`; not rendered itself."""

    into: str

    def to_json(self) -> dict[str, Any]:
        """The on-disk form: `{"Compacted": {"into": id}}`."""
        return {"Compacted": {"into": self.into}}


class Outlined(_Resolution):
    """Rendered as a structural outline instead of the full content."""

    outline: str

    def to_json(self) -> dict[str, Any]:
        """The on-disk form: `{"Outlined": {"outline": text}}`."""
        return {"Outlined": {"outline": self.outline}}


class Summarized(_Resolution):
    """Rendered as a one-line summary instead of the full content."""

    summary: str

    def to_json(self) -> dict[str, Any]:
        """The on-disk form: `{"Summarized": {"summary": text}}`."""
        return {"Summarized": {"summary": self.summary}}


class UnknownResolution(_Resolution):
    """A resolution variant this version does not know; kept verbatim, never rendered."""

    raw: Any

    def to_json(self) -> Any:
        """The on-disk form, exactly as it was read."""
        return self.raw


Resolution = Full | Attached | Pinned | Compacted | Outlined | Summarized | UnknownResolution
"""Any resolution variant."""

# Made without validation (they have no fields), so that no schema is built at import.
FULL = Full.model_construct()
ATTACHED = Attached.model_construct()
PINNED = Pinned.model_construct()

_UNIT_RESOLUTIONS: dict[str, Resolution] = {"Full": FULL, "Attached": ATTACHED, "Pinned": PINNED}
_TAGGED_RESOLUTIONS: dict[str, type[_Resolution]] = {
    "Compacted": Compacted,
    "Outlined": Outlined,
    "Summarized": Summarized,
}


def parse_resolution(value: Any) -> Resolution:
    """Read a resolution from its on-disk form (a model instance is returned as is).

    An unknown variant becomes `UnknownResolution`; a malformed known one raises ValueError.
    """
    if isinstance(value, _Resolution):
        return value  # type: ignore[return-value]
    if isinstance(value, str):
        unit = _UNIT_RESOLUTIONS.get(value)
        return unit if unit is not None else UnknownResolution(raw=value)
    if isinstance(value, dict) and len(value) == 1:
        ((tag, body),) = value.items()
        variant = _TAGGED_RESOLUTIONS.get(tag)
        if variant is None:
            return UnknownResolution(raw=value)
        return variant.model_validate(body)  # type: ignore[return-value]
    raise ValueError(
        'must be a name such as "Full" or an object of one key such as {"Outlined": …}'
    )


ResolutionField = Annotated[Resolution, PlainValidator(parse_resolution)]


# ── Compaction summaries ──────────────────────────────────────────────────────


class TimeSpan(_OnDisk):
    """A Rust `Duration` as serde writes it."""

    secs: int = 0
    nanos: int = 0


class CompactionPhase(_OnDisk):
    """One phase segment (exploration, execution, verification, conclusion) of a summary."""

    phase: str = ""
    tool_calls: dict[str, list[str]] = Field(default_factory=dict)
    key_findings: dict[str, list[str]] = Field(default_factory=dict)
    user_messages: list[str] = Field(default_factory=list)


class CompactionSummary(_OnDisk):
    """What a Compaction or BranchSummary entry says about the entries it replaces.

    Every field has a default so partial records from older writers load.
    """

    original_request: str | None = None
    current_request: str | None = None
    tool_calls: dict[str, list[str]] = Field(default_factory=dict)
    key_findings: dict[str, list[str]] = Field(default_factory=dict)
    phases: list[CompactionPhase] = Field(default_factory=list)
    tokens_compacted: int = 0
    entry_count: int = 0
    time_span: TimeSpan = Field(default_factory=TimeSpan)
    notes: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The on-disk form (all fields, in the Rust declaration order)."""
        return self.model_dump(mode="json")

    def render(self) -> str:
        """The text of the synthetic user message that stands in for the compacted entries.

        `[Compacted: N entries, T tokens, span S]` (no span when it is 0), the current and (when different) initial
        request, per phase segment its user messages (`User: "…"`) and a `**Phase:**` line of
        its tools and findings (or, without segments, the older `Tool activity:` /
        `Key findings:` lines when there are none), then the notes.
        """
        span = self.time_span
        shown = f", span {_duration(span)}" if span.secs or span.nanos else ""
        lines = [f"[Compacted: {self.entry_count} entries, {self.tokens_compacted} tokens{shown}]"]
        if self.current_request:
            lines.append(f'Current request: "{self.current_request}"')
        if self.original_request and self.original_request != self.current_request:
            lines.append(f'Initial request: "{self.original_request}"')
        for phase in self.phases:
            lines.extend(f'User: "{text}"' for text in phase.user_messages)
            if phase.tool_calls or phase.key_findings:
                lines.append(_phase_line(phase.phase, phase.tool_calls, phase.key_findings))
        if not self.phases:
            if self.tool_calls:
                lines.append(f"Tool activity: {_grouped(self.tool_calls)}")
            if self.key_findings:
                lines.append(f"Key findings: {_grouped(self.key_findings)}")
        if self.notes:
            lines.append(self.notes)
        return "\n".join(lines)


def _grouped(items: dict[str, list[str]]) -> str:
    """`tool: a, b; other: c` (a tool without items is named alone)."""
    return "; ".join(
        f"{key}: {', '.join(values)}" if values else key for key, values in items.items()
    )


def _phase_line(phase: str, calls: dict[str, list[str]], findings: dict[str, list[str]]) -> str:
    """`**Exploration:** read_file: a.py, b.py (×2). Found: read_file: 120 lines.`"""
    title = phase.capitalize() if phase else "Tool activity"
    parts = [f"**{title}:**"]
    if calls:
        parts.append(_sentence(_grouped(calls)))
    if findings:
        parts.append(_sentence(f"Found: {_grouped(findings)}"))
    return " ".join(parts)


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _duration(span: TimeSpan) -> str:
    """A duration the way Rust's `Debug` shows it: `0ns`, `12ms`, `3.5s`."""
    if span.secs:
        return f"{span.secs + span.nanos / 1e9:.3f}".rstrip("0").rstrip(".") + "s"
    if span.nanos >= 1_000_000:
        return f"{span.nanos / 1e6:.3f}".rstrip("0").rstrip(".") + "ms"
    if span.nanos >= 1_000:
        return f"{span.nanos / 1e3:.3f}".rstrip("0").rstrip(".") + "µs"
    return f"{span.nanos}ns"


# ── Payloads ──────────────────────────────────────────────────────────────────


class _Payload(_OnDisk):
    """Base of the payload variants: what an entry holds."""

    tag: ClassVar[str]
    default_resolution: ClassVar[Resolution] = ATTACHED

    @classmethod
    def from_body(cls, body: Any) -> _Payload:
        """Read the variant from the body under its tag."""
        return cls.model_validate(body)

    def body(self) -> Any:
        """The on-disk body under the tag."""
        raise NotImplementedError

    def to_json(self) -> Any:
        """The on-disk (externally tagged) form: `{tag: body}`."""
        return {self.tag: self.body()}

    def render(self) -> ChatMessage | None:
        """The message this payload contributes at Full resolution, or None."""
        return None

    @model_serializer
    def _serialize(self) -> Any:
        return self.to_json()


class MessagePayload(_Payload):
    """A conversation message (system, user, assistant, or tool result)."""

    tag: ClassVar[str] = "Message"
    default_resolution: ClassVar[Resolution] = FULL

    message: ChatMessage

    @classmethod
    def from_body(cls, body: Any) -> MessagePayload:
        """Read the message; a tool message without `is_error` (older files) gets False."""
        payload = cls.model_validate({"message": body})  # one validation, not two
        message = payload.message
        if message.role == "tool" and message.is_error is None:
            message.is_error = False
        return payload

    def body(self) -> dict[str, Any]:
        """The message record (`ChatMessage.to_record()`)."""
        return self.message.to_record()

    def render(self) -> ChatMessage:
        """The message itself."""
        return self.message


class CompactionPayload(_Payload):
    """A summary of older path entries, which are marked `Compacted{into: this entry}`."""

    tag: ClassVar[str] = "Compaction"
    default_resolution: ClassVar[Resolution] = FULL

    summary: CompactionSummary = Field(default_factory=CompactionSummary)
    first_kept: str
    tokens_before: int = 0

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {
            "summary": self.summary.to_json(),
            "first_kept": self.first_kept,
            "tokens_before": self.tokens_before,
        }

    def render(self) -> ChatMessage:
        """A user message carrying the rendered summary."""
        return ChatMessage.user(self.summary.render())


class BranchSummaryPayload(_Payload):
    """A summary of an abandoned branch, starting at `from_id`."""

    tag: ClassVar[str] = "BranchSummary"
    default_resolution: ClassVar[Resolution] = FULL

    summary: CompactionSummary = Field(default_factory=CompactionSummary)
    from_id: str

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"summary": self.summary.to_json(), "from_id": self.from_id}

    def render(self) -> ChatMessage:
        """A user message carrying the rendered summary."""
        return ChatMessage.user(self.summary.render())


class ModelChangePayload(_Payload):
    """The model was changed mid-session."""

    tag: ClassVar[str] = "ModelChange"

    model: str

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"model": self.model}


class LabelPayload(_Payload):
    """A label (bookmark) on another entry; `label=None` removes it."""

    tag: ClassVar[str] = "Label"

    target_id: str
    label: str | None = None

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"target_id": self.target_id, "label": self.label}


class SessionInfoPayload(_Payload):
    """Session-level metadata such as a display name."""

    tag: ClassVar[str] = "SessionInfo"

    name: str

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"name": self.name}


class LeafMovedPayload(_Payload):
    """The leaf moved from `from_` (`"from"` on disk) to `to` (written by `branch_to`)."""

    tag: ClassVar[str] = "LeafMoved"
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True, defer_build=True)

    from_: str | None = Field(default=None, alias="from")
    to: str

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"from": self.from_, "to": self.to}


class CustomPayload(_Payload):
    """Extension state that stays out of the model's context; `kind` is `<author>.<feature>.v<n>`."""

    tag: ClassVar[str] = "Custom"

    kind: str
    data: Any = None

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"kind": self.kind, "data": self.data}


class SessionEndedPayload(_Payload):
    """The session was closed gracefully."""

    tag: ClassVar[str] = "SessionEnded"

    reason: str = ""

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"reason": self.reason}


class CustomMessagePayload(_Payload):
    """Extension content that is rendered into the context as a user message.

    `content` is a list of serde-tagged blocks (`{"Text": {"text": s}}`), kept as read so
    that blocks of kinds this version does not know survive a round trip.
    """

    tag: ClassVar[str] = "CustomMessage"
    default_resolution: ClassVar[Resolution] = FULL

    kind: str
    content: list[Any] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """The text of all text blocks, joined."""
        parts: list[str] = []
        for block in self.content:
            if isinstance(block, dict):
                inner = block.get("Text")
                if isinstance(inner, dict) and isinstance(inner.get("text"), str):
                    parts.append(inner["text"])
        return "".join(parts)

    def body(self) -> dict[str, Any]:
        """The on-disk body."""
        return {"kind": self.kind, "content": self.content}

    def render(self) -> ChatMessage:
        """A user message with the block text."""
        return ChatMessage.user(self.text)


class UnknownPayload(_Payload):
    """A payload variant this version does not know: kept verbatim, renders nothing."""

    tag: ClassVar[str] = ""

    raw: Any

    def to_json(self) -> Any:
        """The on-disk form, exactly as it was read."""
        return self.raw


Payload = (
    MessagePayload
    | CompactionPayload
    | BranchSummaryPayload
    | ModelChangePayload
    | LabelPayload
    | SessionInfoPayload
    | LeafMovedPayload
    | CustomPayload
    | SessionEndedPayload
    | CustomMessagePayload
    | UnknownPayload
)
"""Any payload variant."""

PAYLOAD_TYPES: dict[str, type[_Payload]] = {
    cls.tag: cls
    for cls in (
        MessagePayload,
        CompactionPayload,
        BranchSummaryPayload,
        ModelChangePayload,
        LabelPayload,
        SessionInfoPayload,
        LeafMovedPayload,
        CustomPayload,
        SessionEndedPayload,
        CustomMessagePayload,
    )
}
"""Known payload variants by their on-disk tag."""


def parse_payload(value: Any) -> Payload:
    """Read a payload from its on-disk form (a model instance is returned as is).

    An unknown variant becomes `UnknownPayload`; a malformed known one raises ValueError.
    """
    if isinstance(value, _Payload):
        return value  # type: ignore[return-value]
    if isinstance(value, dict) and len(value) == 1:
        ((tag, body),) = value.items()
        variant = PAYLOAD_TYPES.get(tag)
        if variant is not None:
            return variant.from_body(body)  # type: ignore[return-value]
    return UnknownPayload(raw=value)


PayloadField = Annotated[Payload, PlainValidator(parse_payload)]


# ── Lines ─────────────────────────────────────────────────────────────────────


class Header(_OnDisk):
    """The first line of a session file."""

    id: str
    version: int = CURRENT_VERSION
    created_at_secs: int
    cwd: str
    parent_session: str | None = None

    def check_supported(self) -> None:
        """Raise SessionError if this implementation cannot read the header's version."""
        if self.version not in SUPPORTED_VERSIONS:
            supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
            raise SessionError(
                f"unsupported session format version {self.version} (supported: {supported})"
            )

    def to_json(self) -> dict[str, Any]:
        """The on-disk form."""
        return {
            "type": "Header",
            "id": self.id,
            "version": self.version,
            "created_at_secs": self.created_at_secs,
            "cwd": self.cwd,
            "parent_session": self.parent_session,
        }

    @model_serializer
    def _serialize(self) -> dict[str, Any]:
        return self.to_json()


class Entry(_OnDisk):
    """One node of the session tree."""

    id: str
    parent_id: str | None = None
    timestamp: Timestamp = Field(default_factory=Timestamp)
    resolution: ResolutionField
    payload: PayloadField

    @classmethod
    def new(
        cls, parent_id: str | None, payload: Payload, resolution: Resolution | None = None
    ) -> Entry:
        """A fresh entry stamped now, at the payload's default resolution unless given.

        The id is random and may collide with an existing one, which the session checks.
        """
        if resolution is None:
            resolution = payload.default_resolution
        # Parts that are models already: validating them would return them as they are,
        # and building the validator costs more than a start's whole session needs.
        checked = isinstance(payload, _Payload) and isinstance(resolution, _Resolution)
        make = cls.model_construct if checked else cls
        return make(
            id=new_id(),
            parent_id=parent_id,
            timestamp=Timestamp.now(),
            resolution=resolution,
            payload=payload,
        )

    @property
    def message(self) -> ChatMessage | None:
        """The message, for a Message entry."""
        payload = self.payload
        return payload.message if isinstance(payload, MessagePayload) else None

    def to_json(self) -> dict[str, Any]:
        """The on-disk form."""
        return {
            "type": "Entry",
            "id": self.id,
            "parent_id": self.parent_id,
            "timestamp": self.timestamp.to_json(),
            "resolution": self.resolution.to_json(),
            "payload": self.payload.to_json(),
        }

    @model_serializer
    def _serialize(self) -> dict[str, Any]:
        return self.to_json()


class ResolutionChange(_OnDisk):
    """A v2 line changing an earlier entry's resolution; replayed in file order, last wins."""

    entry: str
    resolution: ResolutionField
    cursor: Any = None

    def to_json(self) -> dict[str, Any]:
        """The on-disk form (`"type": "Resolution"`)."""
        return {
            "type": "Resolution",
            "entry": self.entry,
            "resolution": self.resolution.to_json(),
            "cursor": self.cursor,
        }

    @model_serializer
    def _serialize(self) -> dict[str, Any]:
        return self.to_json()


Line = Header | Entry | ResolutionChange
"""Any line of a session file."""

_LINE_TYPES: dict[str, type[_OnDisk]] = {
    "Entry": Entry,
    "Resolution": ResolutionChange,
    "Header": Header,
}


def parse_line(text: str | bytes) -> Line | None:
    """Parse one line of a session file.

    Returns None for a line whose `type` this version does not know (written by a newer
    rho), so it can be skipped. Raises ValueError (JSON or validation errors included) for
    a line that cannot be read. The header's version is not checked here (see
    `Header.check_supported`).
    """
    record = json.loads(text)
    if not isinstance(record, dict):
        raise ValueError("line is not a JSON object")
    kind = record.get("type")
    if not isinstance(kind, str):
        raise ValueError("line has no string 'type' field")
    line_type = _LINE_TYPES.get(kind)
    if line_type is None:
        return None
    return line_type.model_validate(record)  # type: ignore[return-value]


def default_resolution(payload: Payload) -> Resolution:
    """The resolution a new entry with this payload gets when none is given."""
    return payload.default_resolution


def render_entry(entry: Entry) -> ChatMessage | None:
    """The message an entry contributes to the model's context, or None.

    Full and Pinned render the payload as is; Attached, Compacted and unknown resolutions
    render nothing. Outlined and Summarized replace the content with their text: a tool
    message keeps its `tool_call_id`, an assistant message keeps its `tool_calls`, and
    anything else becomes a user message. Payloads that are metadata render nothing at any
    resolution.
    """
    resolution = entry.resolution
    if isinstance(resolution, Full | Pinned):
        return entry.payload.render()
    if isinstance(resolution, Outlined):
        text = resolution.outline
    elif isinstance(resolution, Summarized):
        text = resolution.summary
    else:
        return None
    payload = entry.payload
    if isinstance(payload, MessagePayload):
        message = payload.message
        if message.role == "tool":
            return ChatMessage(
                role="tool",
                content=text,
                tool_call_id=message.tool_call_id,
                is_error=message.is_error,
            )
        if message.role == "assistant":
            return ChatMessage(role="assistant", content=text, tool_calls=message.tool_calls)
        return ChatMessage.user(text)
    if payload.render() is None:
        return None
    return ChatMessage.user(text)


__all__ = [
    "ATTACHED",
    "CURRENT_VERSION",
    "FULL",
    "PAYLOAD_TYPES",
    "PINNED",
    "SUPPORTED_VERSIONS",
    "Attached",
    "BranchSummaryPayload",
    "Compacted",
    "CompactionPayload",
    "CompactionPhase",
    "CompactionSummary",
    "CustomMessagePayload",
    "CustomPayload",
    "Entry",
    "Full",
    "Header",
    "LabelPayload",
    "LeafMovedPayload",
    "Line",
    "MessagePayload",
    "ModelChangePayload",
    "Outlined",
    "Payload",
    "Pinned",
    "Resolution",
    "ResolutionChange",
    "SessionEndedPayload",
    "SessionError",
    "SessionInfoPayload",
    "Summarized",
    "TimeSpan",
    "Timestamp",
    "UnknownPayload",
    "UnknownResolution",
    "default_resolution",
    "dump_line",
    "new_id",
    "parse_line",
    "parse_payload",
    "parse_resolution",
    "render_entry",
]
