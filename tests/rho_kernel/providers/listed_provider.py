"""A provider resolved for a model server's `/models` URL, as the provider tests build it."""

from __future__ import annotations

from rho_kernel.providers.resolve import ResolvedProvider


def provider(models_url: str, name: str = "prov", key_env: str | None = None) -> ResolvedProvider:
    """A chat-completions provider named `name` whose models are listed at `models_url` (its
    chat endpoint is the sibling `/chat/completions`), with the key in `key_env`."""
    return ResolvedProvider(
        name=name,
        endpoint=models_url.rsplit("/models", 1)[0] + "/chat/completions",
        api="chat_completions",
        api_key_env=key_env,
        default_model=None,
        models_endpoint=models_url,
    )
