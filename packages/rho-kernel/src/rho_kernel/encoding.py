"""Text that can always be encoded: lone UTF-16 surrogates replaced at rho's boundaries.

JSON allows `"\\ud800"`, and Python decodes it (and undecodable file names) into strings
holding lone surrogates, which UTF-8 cannot encode. Such a string written to stdout, a session
file or a model request fails there, far from where it came in. rho scrubs text where it
enters (RPC input, model streams, tool results, session entries): a valid surrogate pair is
joined into its character and a lone surrogate becomes U+FFFD.
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


__all__ = ["REPLACEMENT", "has_surrogates", "scrub_json", "scrub_surrogates"]
