"""Which providers take cache hints, and which: a provider's style, from its preset, its
endpoint's host and its `cache_hints` setting."""

from __future__ import annotations

from typing import Any

import pytest

from rho_kernel.config.model import ProviderConfig, RhoConfig
from rho_kernel.providers.cache_hints import takes_breakpoints
from rho_kernel.providers.resolve import (
    PRESETS,
    cache_style,
    endpoint_cache_style,
    resolve_entry,
    resolve_provider,
)

# ── which provider takes which ──────────────────────────────────────────────


@pytest.mark.parametrize(
    ("endpoint", "style"),
    [
        ("https://api.openai.com/v1/responses", "prompt_cache_key"),
        ("https://API.OpenAI.com./v1/chat/completions", "prompt_cache_key"),
        ("https://openrouter.ai/api/v1/chat/completions", "openrouter"),
        ("https://eu.openrouter.ai/api/v1/chat/completions", "openrouter"),
        # Look-alikes are not the provider.
        ("https://api.openai.com.evil.example/v1/responses", "off"),
        ("https://evil.example/api.openai.com/v1/responses", "off"),
        ("https://api.openai.com@evil.example/v1/responses", "off"),
        ("https://notopenrouter.ai/api/v1/chat/completions", "off"),
        ("https://openrouter.ai.evil.example/api/v1/chat/completions", "off"),
        ("https://eu.api.openai.com/v1/responses", "off"),
        # Local servers and other providers take nothing.
        ("http://localhost:1234/v1/chat/completions", "off"),
        ("http://127.0.0.1:11434/v1/chat/completions", "off"),
        ("https://api.groq.com/openai/v1/chat/completions", "off"),
        ("https://api.deepseek.com/v1/chat/completions", "off"),
        ("http://[::1", "off"),
        ("", "off"),
    ],
)
def test_endpoint_cache_style_recognises_only_the_providers_hosts(
    endpoint: str, style: str
) -> None:
    assert endpoint_cache_style(endpoint) == style


PRESET_STYLES = {
    "lm-studio": "off",
    "ollama": "off",
    "openrouter": "openrouter",
    "openai": "prompt_cache_key",
    "groq": "off",
    "zai": "off",
    "zai-coding": "off",
}


def test_every_preset_has_its_style() -> None:
    assert set(PRESET_STYLES) == set(PRESETS)
    for name, style in PRESET_STYLES.items():
        assert resolve_entry(ProviderConfig(preset=name)).cache_hints == style, name


def test_a_preset_keeps_its_style_at_another_endpoint_and_auto_follows_the_host() -> None:
    openai = ProviderConfig(preset="openai", endpoint="http://127.0.0.1:9/v1/responses")
    assert resolve_entry(openai).cache_hints == "prompt_cache_key"
    host = ProviderConfig(name="o", endpoint="https://api.openai.com/v1/chat/completions")
    assert resolve_entry(host).cache_hints == "prompt_cache_key"
    local = ProviderConfig(preset="lm-studio", endpoint="https://openrouter.ai/api/v1/x")
    assert resolve_entry(local).cache_hints == "openrouter"  # a preset without a style


@pytest.mark.parametrize(
    ("setting", "style"),
    [
        ("auto", "prompt_cache_key"),
        (True, "prompt_cache_key"),
        (False, "off"),
        ("off", "off"),
        ("cache_control", "cache_control"),
        ("openrouter", "openrouter"),
        ("prompt_cache_key", "prompt_cache_key"),
    ],
)
def test_the_setting_decides_over_the_preset(setting: Any, style: str) -> None:
    entry = ProviderConfig(preset="openai", cache_hints=setting)
    assert resolve_entry(entry).cache_hints == style


def test_an_explicit_style_applies_to_any_endpoint() -> None:
    gateway = "http://127.0.0.1:4000/v1/chat/completions"
    assert cache_style("cache_control", None, gateway) == "cache_control"
    assert cache_style("prompt_cache_key", None, gateway) == "prompt_cache_key"
    assert cache_style("auto", None, gateway) == "off"


def test_the_endpoint_flag_follows_the_host() -> None:
    config = RhoConfig()
    flag = resolve_provider(config, endpoint="https://api.openai.com/v1/chat/completions")
    assert flag.cache_hints == "prompt_cache_key"
    assert resolve_provider(config, endpoint="http://127.0.0.1:1/v1").cache_hints == "off"
    assert resolve_provider(config).cache_hints == "off"  # rho's default: a local server


@pytest.mark.parametrize(
    ("model", "takes"),
    [
        ("anthropic/claude-sonnet-4", True),
        ("Anthropic/Claude-Opus-4.1", True),
        ("~anthropic/claude-sonnet-latest", True),
        ("openai/gpt-4o", False),
        ("claude-sonnet-4-20250514", False),  # not an OpenRouter id
        ("google/gemini-2.5-pro", False),
        ("x/anthropic/claude", False),
    ],
)
def test_breakpoints_are_for_anthropics_models(model: str, takes: bool) -> None:
    assert takes_breakpoints(model) is takes
