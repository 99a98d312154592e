"""The service interface each wire protocol implements, and the factory plugins contribute."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Protocol

from rho_kernel.providers.events import ModelRequest, StreamEvent


class LlmService(Protocol):
    """A streaming model client for one endpoint.

    `stream` yields `TextDelta` and `ReasoningDelta` events as they arrive and ends with one
    `ModelResponse`; failures raise `ProviderError`.
    """

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ServiceFactory:
    """Builds an `LlmService` for a wire protocol (`api`, e.g. "chat_completions").

    `create(endpoint, api_key, provider_name, *, first_token_timeout, idle_timeout)` returns
    the service; the timeouts are seconds (0 disables) and turn hung streams into retryable
    `ProviderError`s.
    """

    api: str
    create: Callable[..., LlmService]


__all__ = ["LlmService", "ServiceFactory"]
