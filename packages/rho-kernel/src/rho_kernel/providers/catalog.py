"""The model catalog: per-model prices, context windows, and the cost of a response.

Lookups go, in order, through the user's `[[models]]` entries (exact id; an entry that
names a provider applies only to that provider), the built-in table in `catalog_data`
(exact id), and then the built-in rows whose basename (the part after the last `/`)
equals the query's basename, when that match is unambiguous. Prices are USD per million
tokens.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rho_kernel.config.model import ModelConfig
from rho_kernel.providers.catalog_data import BUILTIN_MODELS, TEXT_ONLY_MODELS, ModelRow
from rho_kernel.providers.events import Usage

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """Prices of one model in USD per million tokens.

    `cached` is the cache-read input price; None (or 0) means cached input tokens are
    billed at the `input` price. A negative price (OpenRouter's `-1` "unknown" sentinel)
    means the cost cannot be computed.
    """

    input: float
    output: float
    cached: float | None = None

    @property
    def known(self) -> bool:
        """Whether every price is usable (none is a negative sentinel)."""
        return self.input >= 0 and self.output >= 0 and (self.cached is None or self.cached >= 0)

    def cost(self, usage: Usage) -> float | None:
        """The cost in USD of `usage` at these prices (ignores `usage.cost`).

        cost = (fresh·input + cached·rate + output_tokens·output) / 1e6, where cached =
        min(cached_tokens, input_tokens), fresh = input_tokens − cached, and rate is the
        cached price when it is set and positive, else the input price. None when a
        price is a negative sentinel.
        """
        if not self.known:
            return None
        input_tokens = max(0, usage.input_tokens)
        cached = min(max(0, usage.cached_tokens), input_tokens)
        fresh = input_tokens - cached
        rate = self.cached if self.cached is not None and self.cached > 0 else self.input
        output_tokens = max(0, usage.output_tokens)
        return (fresh * self.input + cached * rate + output_tokens * self.output) / 1e6


@dataclass(frozen=True, slots=True)
class _Row:
    price: ModelPrice | None
    context_window: int | None
    images: bool


def _basename(model: str) -> str:
    return model.rsplit("/", 1)[-1]


def _vendor(model: str) -> str | None:
    head, sep, _ = model.rpartition("/")
    return head.rsplit("/", 1)[-1] if sep else None


def _same_provider(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.casefold() == b.casefold()


def _builtin_rows(table: Mapping[str, ModelRow]) -> dict[str, _Row]:
    rows: dict[str, _Row] = {}
    for model_id, row in table.items():
        rows[model_id] = _Row(
            price=ModelPrice(input=row["input"], output=row["output"], cached=row["cached"]),
            context_window=row["context_window"],
            images=model_id not in TEXT_ONLY_MODELS,
        )
    return rows


class ModelCatalog:
    """Prices and context windows by model id, with the user's `[[models]]` on top.

    `overrides` are the merged `RhoConfig.models`; `builtin` replaces the built-in table
    (for tests or an embedding application), defaulting to `catalog_data.BUILTIN_MODELS`.
    """

    def __init__(
        self,
        overrides: Sequence[ModelConfig] = (),
        *,
        builtin: Mapping[str, ModelRow] | None = None,
    ) -> None:
        self._overrides: dict[str, list[ModelConfig]] = {}
        for entry in overrides:
            self._overrides.setdefault(entry.id, []).append(entry)
        self._rows = _builtin_rows(BUILTIN_MODELS if builtin is None else builtin)
        self._by_basename: dict[str, list[str]] = {}
        for model_id in self._rows:
            self._by_basename.setdefault(_basename(model_id), []).append(model_id)

    # ── built-in resolution ─────────────────────────────────────────────────

    def _builtin(
        self, model: str, provider: str | None, pick: Callable[[_Row], _T | None]
    ) -> _T | None:
        """`pick` of the built-in row for `model`: exact id, else an unambiguous basename.

        Basename candidates are the rows for which `pick` gives a value; the match is
        unambiguous when they all give the same value, or when exactly one of them has
        `provider` as its vendor prefix (`openai/…` for provider "openai").
        """
        row = self._rows.get(model)
        if row is not None:
            value = pick(row)
            if value is not None:
                return value
        candidates: list[tuple[str, _T]] = []
        for model_id in self._by_basename.get(_basename(model), ()):
            if model_id == model:
                continue
            value = pick(self._rows[model_id])
            if value is not None:
                candidates.append((model_id, value))
        if not candidates:
            return None
        first = candidates[0][1]
        if all(value == first for _, value in candidates):
            return first
        hinted = [v for model_id, v in candidates if _same_provider(_vendor(model_id), provider)]
        if len(hinted) == 1:
            return hinted[0]
        return None

    # ── user overrides ──────────────────────────────────────────────────────

    def _override_entries(self, model: str, provider: str | None) -> list[ModelConfig]:
        """The `[[models]]` entries for `model`, most specific first.

        Entries naming `provider` come first, then entries naming no provider; within
        each group the later entry wins. Entries naming another provider never apply.
        """
        entries = self._overrides.get(model, [])
        scoped = [e for e in reversed(entries) if _same_provider(e.provider, provider)]
        unscoped = [e for e in reversed(entries) if e.provider is None]
        return scoped + unscoped

    # ── public API ──────────────────────────────────────────────────────────

    def price(self, model: str, provider: str | None = None) -> ModelPrice | None:
        """The prices of `model` (served by `provider`, when known), or None if unknown.

        A `[[models]]` entry with both `input_price` and `output_price` is used as is; an
        entry with only one of them takes the other prices from the built-in row (and is
        skipped when there is none).
        """
        base: ModelPrice | None = None
        base_looked_up = False
        for entry in self._override_entries(model, provider):
            if entry.input_price is None and entry.output_price is None:
                continue
            if entry.input_price is not None and entry.output_price is not None:
                return ModelPrice(entry.input_price, entry.output_price, entry.cached_price)
            if not base_looked_up:
                base = self._builtin(model, provider, lambda row: row.price)
                base_looked_up = True
            if base is None:
                continue
            return ModelPrice(
                input=entry.input_price if entry.input_price is not None else base.input,
                output=entry.output_price if entry.output_price is not None else base.output,
                cached=entry.cached_price if entry.cached_price is not None else base.cached,
            )
        return self._builtin(model, provider, lambda row: row.price)

    def cost(self, model: str, usage: Usage, provider: str | None = None) -> float | None:
        """The cost in USD of one response's `usage`, or None when it cannot be known.

        A provider-reported `usage.cost` wins; otherwise the cost is computed from
        `price(model, provider)` (see `ModelPrice.cost`). None for an unknown model or a
        negative price sentinel; callers count None as 0.
        """
        if usage.cost is not None:
            return usage.cost
        price = self.price(model, provider)
        if price is None:
            return None
        result = price.cost(usage)
        if result is None or not math.isfinite(result):
            return None
        return result

    def context_window(self, model: str, provider: str | None = None) -> int | None:
        """The context window of `model` in tokens, or None if unknown.

        The first `[[models]]` entry (same order as `price`) that sets `context_window`
        wins, then the built-in row.
        """
        for entry in self._override_entries(model, provider):
            if entry.context_window is not None:
                return entry.context_window
        return self._builtin(model, provider, lambda row: row.context_window)

    def takes_images(self, model: str, provider: str | None = None) -> bool | None:
        """Whether `model` takes images in prompts, or None if unknown.

        The first `[[models]]` entry that sets `images` wins, then the built-in row."""
        for entry in self._override_entries(model, provider):
            if entry.images is not None:
                return entry.images
        return self._builtin(model, provider, lambda row: row.images)


__all__ = ["ModelCatalog", "ModelPrice"]
