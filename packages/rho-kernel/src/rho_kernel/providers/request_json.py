"""A model request's JSON body, with each message encoded once for the whole session.

Every request of a session sends the whole conversation again, so encoding the body from
scratch costs more at every turn. The context fitter hands the same message dict for an
unchanged entry at every turn (see `rho_kernel.context.fitting`), so `RequestEncoder` keeps
the UTF-8 JSON of the dicts it sent, by identity, and encodes only what is new; a body is
then one join of those bytes.
The bytes are exactly those httpx would send for `json=body`.
"""

from __future__ import annotations

import json
from itertools import compress
from operator import is_not
from typing import Any

#: httpx's encoding of a `json=` body: compact, UTF-8, no NaN.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class RequestEncoder:
    """Encodes request bodies, reusing the JSON of list items already sent.

    For each list in the body (by key), an item that is the same object in the same place as
    in the last request's list (a conversation grows at its end, and a shortened message is
    replaced in place) is reused after an identity check made in C, without a look-up; any
    other is looked up by identity among those sent before (a fresh note near the start
    must not make every later message new). Treat a dict as read-only once it has been
    sent (the fitter's cached wire messages are).
    """

    def __init__(self) -> None:
        #: key → the last request's list (kept alive, so that identities stay valid) and
        #: the UTF-8 JSON of each of its items.
        self._last: dict[str, tuple[list[Any], list[bytes]]] = {}
        #: id → (an item sent before, kept alive, and its UTF-8 JSON); pruned to the items
        #: of the last request when it grows past twice their number.
        self._known: dict[int, tuple[Any, bytes]] = {}
        #: How many list items were encoded rather than reused (for tests and benchmarks).
        self.encoded_items = 0

    def encode(self, body: dict[str, Any]) -> bytes:
        """The UTF-8 JSON of `body` (as `json.dumps` with httpx's options writes it)."""
        last: dict[str, tuple[list[Any], list[bytes]]] = {}
        members = []
        for key, value in body.items():
            if isinstance(value, list):
                texts = self._texts(value, self._last.get(key))
                last[key] = (list(value), texts)
                text = b"[" + b",".join(texts) + b"]"
            else:
                text = _ENCODER.encode(value).encode()
            members.append(_ENCODER.encode(key).encode() + b":" + text)
        self._last = last
        self._prune()
        return b"{" + b",".join(members) + b"}"

    @property
    def remembered_items(self) -> int:
        """How many items' JSON is kept for later requests (bounded: see `_known`)."""
        return len(self._known)

    def _texts(self, items: list[Any], before: tuple[list[Any], list[bytes]] | None) -> list[bytes]:
        """The UTF-8 JSON of each item: an item in the same place as in the last request's
        list reused after an identity check (made in C, by `map`), any other looked up."""
        before_items, before_texts = before if before is not None else ([], [])
        shared = min(len(before_items), len(items))
        texts = before_texts[:shared]
        for position in compress(range(shared), map(is_not, before_items, items)):
            texts[position] = self._text(items[position])
        texts.extend(self._text(item) for item in items[shared:])
        return texts

    def _text(self, item: Any) -> bytes:
        """The UTF-8 JSON of `item`: remembered by identity, or encoded (and remembered)."""
        known = self._known.get(id(item))
        if known is None or known[0] is not item:
            known = (item, _ENCODER.encode(item).encode())
            self._known[id(item)] = known
            self.encoded_items += 1
        return known[1]

    def _prune(self) -> None:
        current = sum(len(items) for items, _ in self._last.values())
        if len(self._known) > 2 * current + 16:
            self._known = {
                id(item): (item, text)
                for items, texts in self._last.values()
                for item, text in zip(items, texts, strict=True)
            }


__all__ = ["RequestEncoder"]
