"""Encoding outgoing messages: standard JSON in UTF-8, whatever the value holds.

Lone surrogates are replaced rather than allowed to fail the write. Values that have no JSON
form (NaN, infinities, objects json cannot encode, cycles) raise instead of producing
invalid output; `json_safe` gives a stand-in for them when something must still be sent.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rho_kernel import scrub_surrogates

#: One encoder for every message (`json.dumps` with options makes a new one per call).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)

#: What encoding a value that is not JSON raises.
NOT_JSON = (TypeError, ValueError, RecursionError)


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON of `value`, lone surrogates replaced by U+FFFD.

    Raises one of `NOT_JSON` when `value` holds NaN, an infinity, a cycle, or an object json
    cannot encode.
    """
    text = _ENCODER.encode(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return scrub_surrogates(text).encode("utf-8")


def json_safe(value: Any) -> Any:
    """`value` with NaN and infinities as None and objects json cannot encode as their str().

    Raises RecursionError for a cyclic or absurdly deep value.
    """
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {_safe_key(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return str(value)


def _safe_key(key: Any) -> Any:
    return key if key is None or isinstance(key, (str, int)) else str(key)


__all__ = ["NOT_JSON", "encode_json", "json_safe"]
