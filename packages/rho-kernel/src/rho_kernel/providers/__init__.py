"""Model providers: the service contract, stream events, provider resolution and consent.

The protocol clients (`chat_completions`, `responses`, `models`) import httpx and are loaded
on first use; import them from their modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.providers.consent import ConsentRequired, consent_message
    from rho_kernel.providers.events import (
        ModelRequest,
        ModelResponse,
        ProviderError,
        ReasoningDelta,
        StreamEvent,
        TextDelta,
        Usage,
    )
    from rho_kernel.providers.resolve import (
        DEFAULT_ENDPOINT,
        DEFAULT_MODEL,
        PRESETS,
        ResolvedProvider,
        configured_providers,
        is_local_endpoint,
        resolve_model,
        resolve_provider,
    )
    from rho_kernel.providers.service import LlmService, ServiceFactory
    from rho_kernel.providers.urls import endpoint_problem, mask_url

_ORIGIN = exports_of(
    {
        "rho_kernel.providers.consent": ("ConsentRequired", "consent_message"),
        "rho_kernel.providers.events": (
            "ModelRequest",
            "ModelResponse",
            "ProviderError",
            "ReasoningDelta",
            "StreamEvent",
            "TextDelta",
            "Usage",
        ),
        "rho_kernel.providers.resolve": (
            "DEFAULT_ENDPOINT",
            "DEFAULT_MODEL",
            "PRESETS",
            "ResolvedProvider",
            "configured_providers",
            "is_local_endpoint",
            "resolve_model",
            "resolve_provider",
        ),
        "rho_kernel.providers.service": ("LlmService", "ServiceFactory"),
        "rho_kernel.providers.urls": ("endpoint_problem", "mask_url"),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "DEFAULT_ENDPOINT",
    "DEFAULT_MODEL",
    "PRESETS",
    "ConsentRequired",
    "LlmService",
    "ModelRequest",
    "ModelResponse",
    "ProviderError",
    "ReasoningDelta",
    "ResolvedProvider",
    "ServiceFactory",
    "StreamEvent",
    "TextDelta",
    "Usage",
    "configured_providers",
    "consent_message",
    "endpoint_problem",
    "is_local_endpoint",
    "mask_url",
    "resolve_model",
    "resolve_provider",
]
