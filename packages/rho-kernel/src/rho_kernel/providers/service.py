"""The service interface each wire protocol implements, and the factory plugins contribute."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rho_kernel.providers.events import ModelRequest, StreamEvent


class LlmService(Protocol):
    """A streaming model client for one endpoint.

    `stream` yields `TextDelta` and `ReasoningDelta` events as they arrive and ends with one
    `ModelResponse`; failures raise `ProviderError`.
    """

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


class ServiceCreator(Protocol):
    """`create(endpoint, api_key, provider_name, *, first_token_timeout, idle_timeout)`.

    Returns the service for one endpoint (`api_key` None when the provider has none); the
    timeouts are seconds (0 disables) and turn hung streams into retryable `ProviderError`s.
    """

    def __call__(
        self,
        endpoint: str,
        api_key: str | None,
        provider_name: str,
        *,
        first_token_timeout: float,
        idle_timeout: float,
    ) -> LlmService: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceFactory:
    """Builds an `LlmService` for a wire protocol: `ServiceFactory(api=..., create=...)`.

    `api` names the protocol (e.g. "chat_completions"; a provider's `api` selects it) and
    `create` is a `ServiceCreator`.
    """

    api: str
    create: ServiceCreator


__all__ = ["LlmService", "ServiceCreator", "ServiceFactory"]
