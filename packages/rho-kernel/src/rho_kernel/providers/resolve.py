"""Which provider and model a run talks to: presets, CLI overrides, config, defaults."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from rho_kernel.config.model import ProviderConfig, RhoConfig
from rho_kernel.providers.urls import is_local_endpoint, mask_url
from rho_kernel.security.credentials import register_credential

DEFAULT_ENDPOINT = "http://localhost:1234/v1/chat/completions"
DEFAULT_MODEL = "anthropic/claude-sonnet-4"
MODEL_ENV = "RHO_MODEL"


if TYPE_CHECKING:  # names for annotations only: nothing to build at startup
    from typing import TypeAlias

    CacheStyle: TypeAlias = Literal["off", "prompt_cache_key", "openrouter", "cache_control"]
    """Which hints for its prompt cache a provider takes (`providers.cache_hints`): none;
    OpenAI's `prompt_cache_key`; OpenRouter's `session_id`, with breakpoints for Anthropic's
    models; breakpoints for every model."""

    CacheSetting: TypeAlias = (
        Literal["auto", "off", "prompt_cache_key", "openrouter", "cache_control"] | bool
    )
    """`[[providers]] cache_hints` as written: "auto" (or true), a style by name, or "off" (or
    false)."""


@dataclass(frozen=True, slots=True)
class Preset:
    """A built-in provider preset. `cache_hints` is the style of cache hints the provider
    takes (`providers.cache_hints`), which `cache_hints = "auto"` gives an entry naming it."""

    name: str
    endpoint: str
    api: str = "chat_completions"
    models_endpoint: str | None = None
    key_env_hint: str | None = None
    cache_hints: CacheStyle = "off"


PRESETS: dict[str, Preset] = {
    "lm-studio": Preset("lm-studio", "http://localhost:1234/v1/chat/completions"),
    "ollama": Preset("ollama", "http://localhost:11434/v1/chat/completions"),
    "openrouter": Preset(
        "openrouter",
        "https://openrouter.ai/api/v1/chat/completions",
        key_env_hint="OPENROUTER_API_KEY",
        cache_hints="openrouter",
    ),
    "openai": Preset(
        "openai",
        "https://api.openai.com/v1/responses",
        api="responses",
        key_env_hint="OPENAI_API_KEY",
        cache_hints="prompt_cache_key",
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


ProviderOrigin = Literal["flag", "config", "default"]
"""How a provider was chosen: `--endpoint`, a config entry, or rho's default endpoint."""


@dataclass(frozen=True, slots=True)
class ResolvedProvider:
    """A provider ready to use: where to send requests, which protocol, and which key.

    `origin` says how it was chosen ("flag": `--endpoint`; "config": a `[[providers]]` or
    `[provider]` entry; "default": nothing was configured), so advice can fit what was given.
    `cache_hints` is the style of cache hints its requests carry (`providers.cache_hints`).
    """

    name: str
    endpoint: str
    api: str
    api_key_env: str | None
    default_model: str | None
    models_endpoint: str
    origin: ProviderOrigin = "config"
    cache_hints: CacheStyle = "off"

    @property
    def api_key(self) -> str | None:
        """The key read from `api_key_env` now (None when unset or empty); the variable is
        registered as a credential (`rho_kernel.security.credentials`) as it is read."""
        if not self.api_key_env:
            return None
        register_credential(self.api_key_env)
        return os.environ.get(self.api_key_env) or None

    @property
    def shown_endpoint(self) -> str:
        """The endpoint as shown to people: credentials in the URL masked (see `mask_url`)."""
        return mask_url(self.endpoint)

    @property
    def shown_models_endpoint(self) -> str:
        """The models URL as shown to people, credentials masked."""
        return mask_url(self.models_endpoint)

    @property
    def is_local(self) -> bool:
        """Whether the endpoint is on this machine (localhost or a loopback address)."""
        return is_local_endpoint(self.endpoint)


#: The styles of the endpoints' hosts rho recognises (for "auto" without a preset that has one).
_HOST_STYLES: dict[str, CacheStyle] = {
    "api.openai.com": "prompt_cache_key",
    "openrouter.ai": "openrouter",
}


def endpoint_cache_style(endpoint: str) -> CacheStyle:
    """The style of an endpoint's host: OpenAI's API and OpenRouter (and its subdomains)
    are recognised; anything else, a local server included, takes none."""
    try:
        host = (urlsplit(endpoint.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return "off"
    for known, style in _HOST_STYLES.items():
        if host == known or (style == "openrouter" and host.endswith("." + known)):
            return style
    return "off"


def cache_style(
    setting: CacheSetting, preset_style: CacheStyle | None, endpoint: str
) -> CacheStyle:
    """The style of a provider: `setting` when it names one (false: "off"); for "auto"
    (or true), the preset's style when the entry names a preset that has one, else the
    style of the endpoint's host."""
    if setting is False or setting == "off":
        return "off"
    if setting is True or setting == "auto":
        if preset_style is not None and preset_style != "off":
            return preset_style
        return endpoint_cache_style(endpoint)
    return setting


def derive_models_endpoint(endpoint: str) -> str:
    """Strip a trailing `/chat/completions` or `/responses` and append `/models`."""
    base = endpoint.rstrip("/")
    for suffix in ("/chat/completions", "/responses"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return f"{base}/models"


def resolve_entry(entry: ProviderConfig, index: int = 0) -> ResolvedProvider:
    """Apply the preset (explicit fields win) and fill in the derived fields."""
    preset = PRESETS.get(entry.preset) if entry.preset else None
    endpoint = entry.endpoint or (preset.endpoint if preset else None) or DEFAULT_ENDPOINT
    api = entry.api or (preset.api if preset else "chat_completions")
    if entry.models_endpoint:
        models = entry.models_endpoint
    elif preset and preset.models_endpoint and endpoint == preset.endpoint:
        models = preset.models_endpoint
    else:
        models = derive_models_endpoint(endpoint)
    name = (
        entry.name
        or (preset.name if preset else None)
        or entry.type
        or urlsplit(endpoint).hostname
        or f"provider-{index}"
    )
    return ResolvedProvider(
        name=name,
        endpoint=endpoint,
        api=api,
        api_key_env=entry.api_key_env,
        default_model=entry.default_model,
        models_endpoint=models,
        cache_hints=cache_style(
            entry.cache_hints, preset.cache_hints if preset else None, endpoint
        ),
    )


_UNSUPPORTED_TYPES = frozenset(
    {"anthropic", "google", "gemini", "cohere", "anyscale", "perplexity", "bedrock", "vertex"}
)


def provider_warnings(config: RhoConfig) -> list[str]:
    """Startup hints about the provider entries: unknown presets, missing keys, foreign types."""
    warnings: list[str] = []
    entries = config.providers or ([config.provider] if config.provider else [])
    for entry in entries:
        label = entry.name or entry.preset or mask_url(entry.endpoint or "") or "provider"
        preset = PRESETS.get(entry.preset) if entry.preset else None
        if entry.preset and preset is None:
            known = ", ".join(PRESETS)
            warnings.append(
                f"provider '{label}': unknown preset '{entry.preset}' ignored (known: {known})"
            )
        if preset and preset.key_env_hint and not entry.api_key_env:
            warnings.append(
                f"provider '{label}': no api_key_env set; this provider usually needs "
                f'api_key_env = "{preset.key_env_hint}"'
            )
        if entry.type and entry.type.lower() in _UNSUPPORTED_TYPES:
            warnings.append(
                f"provider '{label}': type '{entry.type}' has its own wire format, which rho does "
                "not speak; the endpoint must implement Chat Completions or Responses"
            )
    return warnings


def missing_key_warnings(providers: Sequence[ResolvedProvider]) -> list[str]:
    """One warning per provider whose `api_key_env` names an unset or empty variable.

    The warning names the variable and the provider, never a value.
    """
    warnings: list[str] = []
    seen: set[tuple[str, str]] = set()
    for provider in providers:
        variable = provider.api_key_env
        if not variable or (provider.name, variable) in seen:
            continue
        seen.add((provider.name, variable))
        value = os.environ.get(variable)
        if value:
            continue
        state = "is not set" if value is None else "is empty"
        warnings.append(
            f"provider '{provider.name}': api_key_env names the environment variable "
            f"{variable}, which {state}; requests to this provider go out without an API key"
        )
    return warnings


def configured_providers(config: RhoConfig) -> list[ResolvedProvider]:
    """Every configured provider, resolved (the legacy `[provider]` when no `[[providers]]`)."""
    entries = config.providers or ([config.provider] if config.provider else [])
    return [resolve_entry(entry, index) for index, entry in enumerate(entries)]


def resolve_provider(
    config: RhoConfig, *, endpoint: str | None = None, api_key_env: str | None = None
) -> ResolvedProvider:
    """The active provider: `--endpoint`, else `agent.provider`, else the first, else the default."""
    if endpoint:
        return ResolvedProvider(
            name=urlsplit(endpoint).hostname or "endpoint",
            endpoint=endpoint,
            api="chat_completions",
            api_key_env=api_key_env,
            default_model=None,
            models_endpoint=derive_models_endpoint(endpoint),
            origin="flag",
            cache_hints=endpoint_cache_style(endpoint),
        )
    providers = configured_providers(config)
    chosen: ResolvedProvider | None = None
    if config.agent.provider:
        chosen = next((p for p in providers if p.name == config.agent.provider), None)
        if chosen is None:
            names = ", ".join(p.name for p in providers) or "none configured"
            raise ValueError(
                f'[agent] provider = "{config.agent.provider}" names no configured provider ({names})'
            )
    elif providers:
        chosen = providers[0]
    if chosen is None:
        default = resolve_entry(
            ProviderConfig.model_construct(name="local", endpoint=DEFAULT_ENDPOINT)
        )
        chosen = replace(default, origin="default")
    if api_key_env:
        chosen = replace(chosen, api_key_env=api_key_env)
    return chosen


def named_model(
    config: RhoConfig, provider: ResolvedProvider, *, cli_model: str | None = None
) -> str | None:
    """The model named anywhere: CLI → agent.model → the active provider's default → the
    first provider's default → RHO_MODEL; None when nothing names one."""
    if cli_model:
        return cli_model
    if config.agent.model:
        return config.agent.model
    if provider.default_model:
        return provider.default_model
    for other in configured_providers(config):
        if other.default_model:
            return other.default_model
    return os.environ.get(MODEL_ENV) or None


def resolve_model(
    config: RhoConfig, provider: ResolvedProvider, *, cli_model: str | None = None
) -> str:
    """`named_model`, else the built-in `DEFAULT_MODEL`."""
    return named_model(config, provider, cli_model=cli_model) or DEFAULT_MODEL


__all__ = [
    "DEFAULT_ENDPOINT",
    "DEFAULT_MODEL",
    "PRESETS",
    "Preset",
    "ProviderOrigin",
    "ResolvedProvider",
    "cache_style",
    "configured_providers",
    "derive_models_endpoint",
    "endpoint_cache_style",
    "is_local_endpoint",
    "missing_key_warnings",
    "named_model",
    "provider_warnings",
    "resolve_entry",
    "resolve_model",
    "resolve_provider",
]
