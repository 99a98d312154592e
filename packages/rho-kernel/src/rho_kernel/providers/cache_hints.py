"""Cache hints: what one request carries for the provider's prompt cache (the session's key,
the hints, the breakpoints on its messages), for the providers that take them.

A provider caches the longest beginning a request shares with the requests before it; some
take hints that make the cache hit more often:

- **OpenAI** (Chat Completions and Responses) sends a request to a machine chosen from a
  hash of the prompt's first tokens combined with `prompt_cache_key`: one stable key per
  session keeps a session's requests on the machines that hold its prefix.
- **OpenRouter** takes `session_id`, its sticky-routing key (at most 256 characters), for
  every model; and, for Anthropic's models, which cache nothing unasked, explicit
  breakpoints: `"cache_control": {"type": "ephemeral"}` on a content part caches the prompt
  up to and including that part (at most 4 a request).

Anything else gets no hint: a strict server refuses a field it does not know.

Which hints a provider takes is its style (`ResolvedProvider.cache_hints`, from its
`[[providers]] cache_hints`, its preset and its endpoint's host: `resolve.cache_style`);
`request_hints` turns it into the `CacheHints` of a request, which the agent loop puts on
`ModelRequest.cache` and each protocol service renders in its own shape (`Breakpoints` marks
the messages). Breakpoints are placed by rho alone: a message's parts (`TextPart`,
`ImagePart`) keep only their declared fields, so nothing stored or received brings one.

The key (`session_cache_key`) is a one-way hash of the session id: the same for every
request of a session, after a resume too, different for another session, and it tells the
provider nothing about the project, the user or the machine.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rho_kernel.providers.resolve import CacheStyle, ResolvedProvider

#: What a breakpoint says: cache the prompt up to here, for the provider's default time.
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}

MAX_BREAKPOINTS = 4
"""The most breakpoints Anthropic takes in one request (rho places at most three)."""


@dataclass(frozen=True, slots=True)
class CacheHints:
    """The cache hints one request carries (`ModelRequest.cache`).

    `prompt_cache_key` is OpenAI's field, `session_id` OpenRouter's (both top-level, both
    `session_cache_key` of the session), and `breakpoints` asks for `cache_control` marks on
    the messages (Chat Completions only; see `breakpoint_positions`). A service renders
    those its wire protocol has and ignores the others.
    """

    prompt_cache_key: str | None = None
    session_id: str | None = None
    breakpoints: bool = False


def takes_breakpoints(model: str) -> bool:
    """Whether OpenRouter serves `model` from Anthropic (`anthropic/…`, or an alias such as
    `~anthropic/…-latest`): the models that cache only at explicit breakpoints."""
    return model.strip().lstrip("~").lower().startswith("anthropic/")


@functools.lru_cache(maxsize=64)
def session_cache_key(session_id: str) -> str:
    """The cache key of a session: `rho-` and 32 hex digits of a SHA-256 of its id."""
    import hashlib  # on the first request, not at startup

    digest = hashlib.sha256(f"rho prompt cache key\n{session_id}".encode()).hexdigest()
    return f"rho-{digest[:32]}"


def request_hints(
    provider: ResolvedProvider | None, model: str, session_id: str
) -> CacheHints | None:
    """The hints a request of session `session_id` to `model` on `provider` carries (None:
    none, for a provider whose style is "off" or an unknown provider)."""
    style: CacheStyle = provider.cache_hints if provider is not None else "off"
    return _hints(style, model, session_id)


@functools.lru_cache(maxsize=64)
def _hints(style: CacheStyle, model: str, session_id: str) -> CacheHints | None:
    if style == "prompt_cache_key":
        return CacheHints(prompt_cache_key=session_cache_key(session_id))
    if style == "openrouter":
        key = session_cache_key(session_id)
        return CacheHints(session_id=key, breakpoints=takes_breakpoints(model))
    if style == "cache_control":
        return CacheHints(breakpoints=True)
    return None


# ── breakpoints ─────────────────────────────────────────────────────────────


def _last_text_part(content: Any) -> int | None:
    """The index of the last text part with some text of a list `content`, or None."""
    if not isinstance(content, list):
        return None
    for index in range(len(content) - 1, -1, -1):
        part = content[index]
        if isinstance(part, dict) and part.get("type") == "text":
            text = part.get("text")
            if isinstance(text, str) and text:
                return index
    return None


def can_carry(message: dict[str, Any]) -> bool:
    """Whether a message can take a breakpoint: it has some text (a breakpoint sits on a
    text part, and Anthropic refuses one on an empty text; an assistant message holding
    only tool calls has none)."""
    content = message.get("content")
    if isinstance(content, str):
        return bool(content)
    return _last_text_part(content) is not None


def breakpoint_positions(messages: list[dict[str, Any]]) -> list[int]:
    """Where a request's breakpoints go, in order, each on a message that `can_carry` one:

    - the end of the system prompt (the last of the leading system messages): it and the
      tool definitions before it are the part every request shares;
    - the end of the request before this one, which a growing conversation sent last: the
      last message before the last assistant message. Its prefix was cached by that request,
      so this one reads it whatever the turn added since (Anthropic looks back only about
      20 content blocks from a breakpoint for an earlier hit);
    - the last message: the whole of this request, for the next one to read.

    At most three, never twice the same message.
    """
    positions: list[int] = []
    start = 0
    system: int | None = None
    while start < len(messages) and messages[start].get("role") in ("system", "developer"):
        if can_carry(messages[start]):
            system = start
        start += 1
    if system is not None:
        positions.append(system)
    last = _carrier_before(messages, len(messages), start)
    if last is None:
        return positions
    assistant = next(
        (i for i in range(last, start - 1, -1) if messages[i].get("role") == "assistant"), None
    )
    if assistant is not None:
        previous = _carrier_before(messages, assistant, start)
        if previous is not None:
            positions.append(previous)
    positions.append(last)
    return positions


def _carrier_before(messages: list[dict[str, Any]], end: int, start: int) -> int | None:
    """The last index in [start, end) of a message that can carry a breakpoint."""
    for index in range(end - 1, start - 1, -1):
        if can_carry(messages[index]):
            return index
    return None


def marked(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of `message` (which `can_carry` a breakpoint) with one on its last text part:
    text content becomes one text part; list content keeps its parts (images too) in order."""
    content = message["content"]
    if isinstance(content, str):
        parts: list[Any] = [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]
    else:
        index = _last_text_part(content)
        assert index is not None, "marked() needs a message that can carry a breakpoint"
        parts = list(content)
        parts[index] = {**content[index], "cache_control": dict(EPHEMERAL)}
    return {**message, "content": parts}


class Breakpoints:
    """Marks a request's messages with breakpoints (`breakpoint_positions`), without
    touching the messages given: a marked message is a copy.

    The copies of the last request are kept by the identity of their originals (which are
    read-only once sent, see `request_json`), so that a message marked again (the system
    prompt, at every request) is the same object, whose JSON the request encoder reuses.
    """

    def __init__(self) -> None:
        self._copies: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}

    def apply(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`messages` with breakpoints: a new list when any is placed, else `messages`."""
        positions = breakpoint_positions(messages)
        if not positions:
            self._copies = {}
            return messages
        out = list(messages)
        copies: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
        for position in positions:
            original = messages[position]
            kept = self._copies.get(id(original))
            copy = kept[1] if kept is not None and kept[0] is original else marked(original)
            copies[id(original)] = (original, copy)
            out[position] = copy
        self._copies = copies
        return out


__all__ = [
    "EPHEMERAL",
    "MAX_BREAKPOINTS",
    "Breakpoints",
    "CacheHints",
    "breakpoint_positions",
    "can_carry",
    "marked",
    "request_hints",
    "session_cache_key",
    "takes_breakpoints",
]
