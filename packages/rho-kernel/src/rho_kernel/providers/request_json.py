"""A model request's JSON body, with each message encoded once for the whole session.

Every request of a session sends the whole conversation again, so encoding the body from
scratch costs more at every turn. The context fitter hands the same message dict for an
unchanged entry at every turn (see `rho_kernel.context.fitting`), so `RequestEncoder` keeps
the JSON text of the dicts it sent, by identity, and encodes only what is new.
The bytes are exactly those httpx would send for `json=body`.
"""

from __future__ import annotations

import json
from typing import Any

#: httpx's encoding of a `json=` body: compact, UTF-8, no NaN.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class RequestEncoder:
    """Encodes request bodies, reusing the JSON text of list items already sent.

    For each list in the body (by key), the items the last request's list began with are
    reused while they are the same objects in the same places (a conversation grows at its
    end): a cheap identity check, no look-up. After the first difference, each item is
    looked up by identity among those sent before (a fresh note in the middle must not
    make every later message new). Treat a dict as read-only once it has been sent (the
    fitter's cached wire messages are).
    """

    def __init__(self) -> None:
        #: key → the last request's list (kept alive, so that identities stay valid) and
        #: the JSON text of each of its items.
        self._last: dict[str, tuple[list[Any], list[str]]] = {}
        #: id → (an item sent before, kept alive, and its JSON text); pruned to the items
        #: of the last request when it grows past twice their number.
        self._known: dict[int, tuple[Any, str]] = {}
        #: How many list items were encoded rather than reused (for tests and benchmarks).
        self.encoded_items = 0

    def encode(self, body: dict[str, Any]) -> bytes:
        """The UTF-8 JSON of `body` (as `json.dumps` with httpx's options writes it)."""
        last: dict[str, tuple[list[Any], list[str]]] = {}
        members = []
        for key, value in body.items():
            if isinstance(value, list):
                texts = self._texts(value, self._last.get(key))
                last[key] = (list(value), texts)
                text = "[" + ",".join(texts) + "]"
            else:
                text = _ENCODER.encode(value)
            members.append(f"{_ENCODER.encode(key)}:{text}")
        self._last = last
        self._prune()
        return ("{" + ",".join(members) + "}").encode()

    @property
    def remembered_items(self) -> int:
        """How many items' JSON is kept for later requests (bounded: see `_known`)."""
        return len(self._known)

    def _texts(self, items: list[Any], before: tuple[list[Any], list[str]] | None) -> list[str]:
        """The JSON text of each item: the common start with `before` reused as it is, the
        rest looked up (or encoded, and remembered)."""
        kept = 0
        if before is not None:
            for old, new in zip(before[0], items, strict=False):
                if old is not new:
                    break
                kept += 1
        texts = before[1][:kept] if before is not None else []
        for item in items[kept:]:
            known = self._known.get(id(item))
            if known is None or known[0] is not item:
                known = (item, _ENCODER.encode(item))
                self._known[id(item)] = known
                self.encoded_items += 1
            texts.append(known[1])
        return texts

    def _prune(self) -> None:
        current = sum(len(items) for items, _ in self._last.values())
        if len(self._known) > 2 * current + 16:
            self._known = {
                id(item): (item, text)
                for items, texts in self._last.values()
                for item, text in zip(items, texts, strict=True)
            }


__all__ = ["RequestEncoder"]
