"""A model request's JSON body, with each message encoded once for the whole session.

Every request of a session sends the whole conversation again, so encoding the body from
scratch costs more at every turn. The context fitter hands the same message dict for an
unchanged entry at every turn (see `rho_kernel.context.fitting`), so `RequestEncoder` keeps
the JSON text of the dicts of the last request by identity, and encodes only what is new.
The bytes are exactly those httpx would send for `json=body`.
"""

from __future__ import annotations

import json
from typing import Any

#: httpx's encoding of a `json=` body: compact, UTF-8, no NaN.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class RequestEncoder:
    """Encodes request bodies, reusing the JSON text of list items already sent.

    An item is reused only while it is the same object as in the previous request: treat a
    dict as read-only once it has been sent (the fitter's cached wire messages are).
    """

    def __init__(self) -> None:
        #: id → (the item, kept alive so that its id is not reused, and its JSON text).
        self._texts: dict[int, tuple[Any, str]] = {}
        #: How many list items were encoded rather than reused (for tests and benchmarks).
        self.encoded_items = 0

    def encode(self, body: dict[str, Any]) -> bytes:
        """The UTF-8 JSON of `body` (as `json.dumps` with httpx's options writes it)."""
        kept: dict[int, tuple[Any, str]] = {}
        members = []
        for key, value in body.items():
            text = self._list(value, kept) if isinstance(value, list) else _ENCODER.encode(value)
            members.append(f"{_ENCODER.encode(key)}:{text}")
        self._texts = kept  # only what the last request sent stays
        return ("{" + ",".join(members) + "}").encode()

    def _list(self, items: list[Any], kept: dict[int, tuple[Any, str]]) -> str:
        parts = []
        for item in items:
            known = self._texts.get(id(item))
            if known is not None and known[0] is item:
                text = known[1]
            else:
                text = _ENCODER.encode(item)
                self.encoded_items += 1
            kept[id(item)] = (item, text)
            parts.append(text)
        return "[" + ",".join(parts) + "]"


__all__ = ["RequestEncoder"]
