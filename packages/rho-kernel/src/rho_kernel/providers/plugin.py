"""The built-in provider factories contributed by the kernel.

Importing this module does not import httpx: a protocol module is loaded when its first
service is created.
"""

from __future__ import annotations

from rho_kernel.plugins import hookimpl
from rho_kernel.providers.service import LlmService, ServiceFactory


def _create_chat_completions(
    endpoint: str,
    api_key: str | None,
    provider_name: str,
    *,
    first_token_timeout: float = 0,
    idle_timeout: float = 0,
) -> LlmService:
    from rho_kernel.providers.chat_completions import ChatCompletionsService

    return ChatCompletionsService(
        endpoint,
        api_key,
        provider_name,
        first_token_timeout=first_token_timeout,
        idle_timeout=idle_timeout,
    )


def chat_completions_factory() -> ServiceFactory:
    """The factory for the "chat_completions" protocol (OpenAI Chat Completions over SSE).

    `create(endpoint, api_key, provider_name)` returns a `ChatCompletionsService`; it also
    accepts the keyword arguments `first_token_timeout` and `idle_timeout` (seconds, 0 = off).
    """
    return ServiceFactory(api="chat_completions", create=_create_chat_completions)


def _create_responses(
    endpoint: str,
    api_key: str | None,
    provider_name: str,
    *,
    first_token_timeout: float = 0,
    idle_timeout: float = 0,
) -> LlmService:
    from rho_kernel.providers.responses import ResponsesService

    return ResponsesService(
        endpoint,
        api_key,
        provider_name,
        first_token_timeout=first_token_timeout,
        idle_timeout=idle_timeout,
    )


def responses_factory() -> ServiceFactory:
    """The factory for the "responses" protocol (OpenAI Responses over SSE, stateless).

    `create(endpoint, api_key, provider_name)` returns a `ResponsesService`; it also accepts
    the keyword arguments `first_token_timeout` and `idle_timeout` (seconds, 0 = off).
    """
    return ServiceFactory(api="responses", create=_create_responses)


@hookimpl
def rho_register_provider_services() -> list[ServiceFactory]:
    """The kernel's own protocol services."""
    return [chat_completions_factory(), responses_factory()]


__all__ = ["chat_completions_factory", "responses_factory", "rho_register_provider_services"]
