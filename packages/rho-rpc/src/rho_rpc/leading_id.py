"""The id of a request too large to decode, read from the start of its line.

A line over the size limit is not decoded, but its first few KiB are kept. When that start is
a JSON object whose top-level `"id"` member comes before the huge part (as in
`{"jsonrpc":"2.0","id":7,"method":"prompt","params":{"message":"xxxx…`), the error answering
the line can carry that id. The start is walked member by member with the real JSON decoder,
so an `"id"` nested in `params` or written inside a string never counts.
"""

from __future__ import annotations

import codecs
import json.decoder
from collections.abc import Callable
from typing import Any

from rho_kernel import scrub_json
from rho_rpc.decode import STRICT_DECODER, skip_whitespace

# The decoder's string scanner (text, index after the quote) -> (value, end), which typeshed
# does not declare.
scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def leading_id(prefix: bytes) -> Any:
    """The value of the top-level `"id"` member found complete in `prefix`, else None.

    `prefix` is the start of a JSON text, cut anywhere (even inside a UTF-8 sequence). The
    value is returned as decoded (lone surrogates scrubbed); checking that it is a valid
    request id is the caller's job. When the member appears more than once the id is
    ambiguous, and None.
    """
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(prefix, final=False)
    except UnicodeDecodeError:
        return None
    return scrub_json(_scan_members(text))


def _scan_members(text: str) -> Any:
    index = skip_whitespace(text, 0)
    if not text.startswith("{", index):
        return None
    index = skip_whitespace(text, index + 1)
    found = None
    seen = False
    while text.startswith('"', index):
        try:
            key, index = scanstring(text, index + 1)
            index = skip_whitespace(text, index)
            if not text.startswith(":", index):
                break
            value, index = STRICT_DECODER.raw_decode(text, skip_whitespace(text, index + 1))
        except (ValueError, RecursionError):  # cut short, or not JSON: nothing more to learn
            break
        index = skip_whitespace(text, index)
        # A value counts only when something follows it: a number at the very end of the
        # prefix may be the first digits of a longer one.
        if not text.startswith((",", "}"), index):
            break
        if key == "id":
            if seen:
                return None
            found, seen = value, True
        if text.startswith("}", index):
            break
        index = skip_whitespace(text, index + 1)
    return found


__all__ = ["leading_id"]
