"""The built-in provider presets and the rules that name a provider entry and find its
endpoint, on plain values: what `rho_kernel.providers.resolve` applies to a validated
`[[providers]]` entry, and what a start reads from the raw config files before the config
is validated (`rho_kernel.early_start`). Imports nothing beyond the standard library's URL
parsing."""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

DEFAULT_ENDPOINT = "http://localhost:1234/v1/chat/completions"
DEFAULT_MODEL = "anthropic/claude-sonnet-4"
MODEL_ENV = "RHO_MODEL"


class Preset(NamedTuple):
    """A built-in provider preset."""

    name: str
    endpoint: str
    api: str = "chat_completions"
    models_endpoint: str | None = None
    key_env_hint: str | None = None


PRESETS: dict[str, Preset] = {
    "lm-studio": Preset("lm-studio", "http://localhost:1234/v1/chat/completions"),
    "ollama": Preset("ollama", "http://localhost:11434/v1/chat/completions"),
    "openrouter": Preset(
        "openrouter",
        "https://openrouter.ai/api/v1/chat/completions",
        key_env_hint="OPENROUTER_API_KEY",
    ),
    "openai": Preset(
        "openai",
        "https://api.openai.com/v1/responses",
        api="responses",
        key_env_hint="OPENAI_API_KEY",
    ),
    "groq": Preset(
        "groq", "https://api.groq.com/openai/v1/chat/completions", key_env_hint="GROQ_API_KEY"
    ),
    "zai": Preset(
        "zai",
        "https://api.z.ai/api/paas/v4/chat/completions",
        models_endpoint="https://api.z.ai/api/v1/models",
        key_env_hint="ZAI_API_KEY",
    ),
    "zai-coding": Preset(
        "zai", "https://api.z.ai/api/coding/paas/v4/chat/completions", key_env_hint="ZAI_API_KEY"
    ),
}


def entry_endpoint(endpoint: str | None, preset: str | None) -> str:
    """A provider entry's endpoint: its own, else its preset's, else rho's default."""
    known = PRESETS.get(preset) if preset else None
    return endpoint or (known.endpoint if known else None) or DEFAULT_ENDPOINT


def entry_name(
    name: str | None, preset: str | None, kind: str | None, endpoint: str, index: int
) -> str:
    """A provider entry's name: its own, else its preset's, else its `type`, else its
    endpoint's host, else `provider-<index>`."""
    known = PRESETS.get(preset) if preset else None
    return (
        name
        or (known.name if known else None)
        or kind
        or urlsplit(endpoint).hostname
        or f"provider-{index}"
    )


def flag_provider_name(endpoint: str) -> str:
    """The name of the provider `--endpoint` gives: the endpoint's host."""
    return urlsplit(endpoint).hostname or "endpoint"


def is_local_endpoint(endpoint: str) -> bool:
    """True for localhost, *.localhost, 127.0.0.0/8, 0.0.0.0 and ::1 (False for a bad URL)."""
    try:
        host = (urlsplit(endpoint).hostname or "").lower()
    except ValueError:
        return False
    return (
        host in ("localhost", "::1", "0:0:0:0:0:0:0:1", "0.0.0.0")
        or host.endswith(".localhost")
        or host.startswith("127.")
    )


__all__ = [
    "DEFAULT_ENDPOINT",
    "DEFAULT_MODEL",
    "MODEL_ENV",
    "PRESETS",
    "Preset",
    "entry_endpoint",
    "entry_name",
    "flag_provider_name",
    "is_local_endpoint",
]
