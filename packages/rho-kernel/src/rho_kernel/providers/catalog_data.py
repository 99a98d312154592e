"""The built-in model table: prices and context windows of well-known models.

Prices are USD per million tokens as published by the vendors (list prices for the
standard tier; for open-weight models served through OpenRouter, a typical upstream
price). They change over time and this table is maintained by hand: a `[[models]]`
entry in `~/.rho/config.toml` or `<project>/.rho/config.toml` overrides any row here.

Keys are the ids providers use. OpenRouter-style ids (`vendor/model`) also match a bare
`model` query, and bare ids also match a `vendor/model` query, through the catalog's
basename rule, so each model needs only one row (dated Anthropic ids are listed as well
because their basename differs).

Row fields: `input`, `output` and `cached` (cache-read input; None = billed as input)
prices, and `context_window` in tokens. Every model of the table takes images in prompts
except those in `TEXT_ONLY_MODELS`.
"""

from __future__ import annotations

from typing import TypedDict


class ModelRow(TypedDict):
    """One row of the built-in table."""

    input: float
    output: float
    cached: float | None
    context_window: int


BUILTIN_MODELS: dict[str, ModelRow] = {
    # ── OpenAI ──────────────────────────────────────────────────────────────
    "gpt-4o": {"input": 2.50, "output": 10.00, "cached": 1.25, "context_window": 128_000},
    "gpt-4o-mini": {"input": 0.15, "output": 0.60, "cached": 0.075, "context_window": 128_000},
    "gpt-4.1": {"input": 2.00, "output": 8.00, "cached": 0.50, "context_window": 1_047_576},
    "gpt-4.1-mini": {"input": 0.40, "output": 1.60, "cached": 0.10, "context_window": 1_047_576},
    "gpt-4.1-nano": {"input": 0.10, "output": 0.40, "cached": 0.025, "context_window": 1_047_576},
    "o3": {"input": 2.00, "output": 8.00, "cached": 0.50, "context_window": 200_000},
    "o3-mini": {"input": 1.10, "output": 4.40, "cached": 0.55, "context_window": 200_000},
    "o4-mini": {"input": 1.10, "output": 4.40, "cached": 0.275, "context_window": 200_000},
    "gpt-5": {"input": 1.25, "output": 10.00, "cached": 0.125, "context_window": 400_000},
    "gpt-5-mini": {"input": 0.25, "output": 2.00, "cached": 0.025, "context_window": 400_000},
    "gpt-5-nano": {"input": 0.05, "output": 0.40, "cached": 0.005, "context_window": 400_000},
    # ── Anthropic (OpenRouter ids, then the native dated ids) ────────────────
    "anthropic/claude-sonnet-4": {
        "input": 3.00,
        "output": 15.00,
        "cached": 0.30,
        "context_window": 200_000,
    },
    "anthropic/claude-sonnet-4.5": {
        "input": 3.00,
        "output": 15.00,
        "cached": 0.30,
        "context_window": 200_000,
    },
    "anthropic/claude-opus-4": {
        "input": 15.00,
        "output": 75.00,
        "cached": 1.50,
        "context_window": 200_000,
    },
    "anthropic/claude-opus-4.1": {
        "input": 15.00,
        "output": 75.00,
        "cached": 1.50,
        "context_window": 200_000,
    },
    "anthropic/claude-3.7-sonnet": {
        "input": 3.00,
        "output": 15.00,
        "cached": 0.30,
        "context_window": 200_000,
    },
    "anthropic/claude-3.5-haiku": {
        "input": 0.80,
        "output": 4.00,
        "cached": 0.08,
        "context_window": 200_000,
    },
    "claude-sonnet-4-20250514": {
        "input": 3.00,
        "output": 15.00,
        "cached": 0.30,
        "context_window": 200_000,
    },
    "claude-opus-4-20250514": {
        "input": 15.00,
        "output": 75.00,
        "cached": 1.50,
        "context_window": 200_000,
    },
    "claude-3-5-haiku-20241022": {
        "input": 0.80,
        "output": 4.00,
        "cached": 0.08,
        "context_window": 200_000,
    },
    # ── DeepSeek (first-party API; V3.2 pricing) ────────────────────────────
    "deepseek-chat": {"input": 0.28, "output": 0.42, "cached": 0.028, "context_window": 128_000},
    "deepseek-reasoner": {
        "input": 0.28,
        "output": 0.42,
        "cached": 0.028,
        "context_window": 128_000,
    },
    # ── Google (prompts up to 200k tokens) ──────────────────────────────────
    "google/gemini-2.5-pro": {
        "input": 1.25,
        "output": 10.00,
        "cached": 0.125,
        "context_window": 1_048_576,
    },
    "google/gemini-2.5-flash": {
        "input": 0.30,
        "output": 2.50,
        "cached": 0.03,
        "context_window": 1_048_576,
    },
    "google/gemini-2.5-flash-lite": {
        "input": 0.10,
        "output": 0.40,
        "cached": 0.01,
        "context_window": 1_048_576,
    },
    # ── Open-weight models (typical OpenRouter upstream price) ───────────────
    "meta-llama/llama-3.3-70b-instruct": {
        "input": 0.13,
        "output": 0.40,
        "cached": None,
        "context_window": 131_072,
    },
    "qwen/qwen3-coder": {
        "input": 0.22,
        "output": 0.95,
        "cached": None,
        "context_window": 262_144,
    },
    "qwen/qwen-2.5-72b-instruct": {
        "input": 0.12,
        "output": 0.39,
        "cached": None,
        "context_window": 32_768,
    },
}
"""The built-in rows by model id."""


__all__ = ["BUILTIN_MODELS", "ModelRow"]

#: The models of the table that take no images in prompts.
TEXT_ONLY_MODELS = frozenset(
    {
        "o3-mini",
        "deepseek-chat",
        "deepseek-reasoner",
        "meta-llama/llama-3.3-70b-instruct",
        "qwen/qwen3-coder",
        "qwen/qwen-2.5-72b-instruct",
    }
)
