"""The built-in provider factories contributed by the kernel (plugin `rho.providers`).

Importing this module does not import httpx: a protocol module is loaded when its first
service is created.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial

from rho_kernel.plugins import hookimpl
from rho_kernel.providers.service import LlmService, ServiceFactory


def _create(
    module: str,
    class_name: str,
    endpoint: str,
    api_key: str | None,
    provider_name: str,
    *,
    first_token_timeout: float = 0,
    idle_timeout: float = 0,
) -> LlmService:
    service_class: Callable[..., LlmService] = getattr(importlib.import_module(module), class_name)
    return service_class(
        endpoint,
        api_key,
        provider_name,
        first_token_timeout=first_token_timeout,
        idle_timeout=idle_timeout,
    )


def chat_completions_factory() -> ServiceFactory:
    """The "chat_completions" protocol: OpenAI Chat Completions over SSE.

    `create(endpoint, api_key, provider_name, *, first_token_timeout=0, idle_timeout=0)`
    returns a `ChatCompletionsService` (timeouts in seconds, 0 = off).
    """
    return ServiceFactory(
        api="chat_completions",
        create=partial(_create, "rho_kernel.providers.chat_completions", "ChatCompletionsService"),
    )


def responses_factory() -> ServiceFactory:
    """The "responses" protocol: OpenAI Responses over SSE (stateless, `store: false`).

    `create(...)` as for `chat_completions_factory`, returning a `ResponsesService`.
    """
    return ServiceFactory(
        api="responses",
        create=partial(_create, "rho_kernel.providers.responses", "ResponsesService"),
    )


@hookimpl
def rho_register_provider_services() -> list[ServiceFactory]:
    """The kernel's own protocol services."""
    return [chat_completions_factory(), responses_factory()]


__all__ = ["chat_completions_factory", "responses_factory", "rho_register_provider_services"]
