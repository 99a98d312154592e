"""Text that can always be encoded: lone UTF-16 surrogates replaced at rho's boundaries.

JSON allows `"\\ud800"`, and Python decodes it (and undecodable file names) into strings
holding lone surrogates, which UTF-8 cannot encode. Such a string written to stdout, a session
file or a model request fails there, far from where it came in. rho scrubs text where it
enters (RPC input, model streams, tool results, session entries): a valid surrogate pair is
joined into its character and a lone surrogate becomes U+FFFD.

JSON that two readers could understand differently is refused where rho decodes it (tool
arguments, RPC requests): `unique_keys` is the `object_pairs_hook` that refuses a key repeated
in one object, which one reader resolves to the first value and another to the last.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Whether `text` holds any surrogate code point (paired or not)."""
    return _SURROGATE.search(text) is not None


def scrub_surrogates(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates replaced by U+FFFD.

    Returns `text` itself (no copy) when it holds no surrogate, which is the common case.
    """
    if not has_surrogates(text):
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return _SURROGATE.sub(REPLACEMENT, joined)


def scrub_json(value: Any) -> Any:
    """A decoded JSON value with every string (keys included) scrubbed; shares unchanged parts."""
    if isinstance(value, str):
        return scrub_surrogates(value)
    if isinstance(value, list):
        return [scrub_json(item) for item in value]
    if isinstance(value, dict):
        return {scrub_surrogates(key): scrub_json(item) for key, item in value.items()}
    return value


class RepeatedKeyError(ValueError):
    """A JSON object holds `key` more than once."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key {quoted_key(key)} appears more than once")
        self.key = key


#: Longest stretch of a key quoted in a message.
_QUOTED_KEY = 64


def quoted_key(key: str) -> str:
    """`key` quoted for a message (repr, cut after 64 characters)."""
    return repr(key if len(key) <= _QUOTED_KEY else key[:_QUOTED_KEY] + "…")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of `pairs` (a `json` `object_pairs_hook`); raises `RepeatedKeyError` when a
    key appears more than once."""
    decoded = dict(pairs)
    if len(decoded) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKeyError(key)
            seen.add(key)
    return decoded


__all__ = [
    "REPLACEMENT",
    "RepeatedKeyError",
    "has_surrogates",
    "quoted_key",
    "scrub_json",
    "scrub_surrogates",
    "unique_keys",
]
