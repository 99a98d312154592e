"""`setModel`, `setReasoningEffort`, `listModels` and `listProviders`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rho_rpc.protocol.base import Params, Result, Wire


class SetModelParams(Params):
    """`setModel`: switch model — a bare id (found on the provider that lists it) or `provider:id`."""

    model: str = Field(
        min_length=1, description='A model id, or "provider:model" to skip discovery.'
    )


class SetModelResult(Result):
    """`setModel` result: the new model and the context it lands in."""

    model: str
    provider: str
    contextWindow: int
    estimatedUsed: int
    utilizationPercent: float


class SetReasoningEffortParams(Params):
    """`setReasoningEffort`: how hard a reasoning model thinks, from the next request on."""

    effort: Literal["low", "medium", "high"] | None = Field(
        description='"low", "medium" or "high", sent as the request\'s reasoning effort; '
        "null sends none (the model's own default)."
    )


class SetReasoningEffortResult(Result):
    """`setReasoningEffort` result: the effort in force now."""

    effort: str | None = Field(description="The reasoning effort sent from now on; null: none.")


class ModelEntry(Wire):
    """A model a provider serves."""

    id: str
    provider: str


class ListModelsResult(Result):
    """`listModels` result: every model of every configured provider."""

    models: list[ModelEntry]
    errors: list[str] = Field(default_factory=list, description="Providers whose listing failed.")


class ProviderEntry(Wire):
    """A configured provider."""

    name: str
    endpoint: str
    api: str
    isExternal: bool
    reachable: bool
    active: bool


class ListProvidersResult(Result):
    """`listProviders` result (reachability checked concurrently, a short timeout each)."""

    providers: list[ProviderEntry]


__all__ = [
    "ListModelsResult",
    "ListProvidersResult",
    "ModelEntry",
    "ProviderEntry",
    "SetModelParams",
    "SetModelResult",
    "SetReasoningEffortParams",
    "SetReasoningEffortResult",
]
