"""How the agent loop retries a failed model request, and the failure it reports at the end.

Back-off (`initial_backoff_ms × 2^(attempt−1)`, or the server's `Retry-After`) is for real
overloads: 408/409/429/5xx, hung or cut-off streams. A refused connection to an endpoint on
this machine is different: nothing is listening, and waiting seconds will rarely change that.
It gets one quick retry (a local server that is restarting has a moment to come back) and
then the prompt fails, saying which endpoint refused and what to check.
"""

from __future__ import annotations

from rho_kernel.loop.result import AgentError, ProviderFailure
from rho_kernel.providers.advice import failure_hint
from rho_kernel.providers.events import ProviderError, join_hint
from rho_kernel.providers.resolve import ResolvedProvider, is_local_endpoint

QUICK_RETRY_SECS = 0.2
"""The wait before the one retry of a refused connection to a local endpoint."""

LOCAL_REFUSED_RETRIES = 1
"""Retries of a refused connection to a local endpoint."""


def _refused_locally(error: ProviderError) -> bool:
    return (
        error.kind == "connect" and error.reason == "refused" and is_local_endpoint(error.endpoint)
    )


def retry_limit(error: ProviderError, budget: int) -> int:
    """How many retries `error` allows in all, within `[agent] retry_budget` = `budget`."""
    if not error.retryable:
        return 0
    if _refused_locally(error):
        return min(budget, LOCAL_REFUSED_RETRIES)
    return budget


def retry_delay(error: ProviderError, attempt: int, initial_backoff_ms: int) -> float:
    """Seconds to wait before retry `attempt` (1-based) after `error`."""
    initial = initial_backoff_ms / 1000
    if _refused_locally(error):
        return min(QUICK_RETRY_SECS, initial)
    backoff: float = initial * 2 ** min(attempt - 1, 6)
    return max(backoff, error.retry_after or 0.0)


def provider_failure(
    error: ProviderError,
    attempts: int,
    provider: ResolvedProvider | None,
    model: str = "",
) -> AgentError:
    """The `AgentError` (category "client") a prompt ends with after `error`, the last of
    `attempts` requests: its message says what happened, how often, and what to do."""
    hint = failure_hint(error, provider, model=model, attempts=attempts)
    what = error.message.rstrip().rstrip(".")
    if attempts > 1:
        what = f"{what}; tried {attempts} times"
    endpoint = error.endpoint or (provider.shown_endpoint if provider is not None else "")
    failure = ProviderFailure(
        kind=error.kind,
        reason=error.reason,
        provider=error.provider or (provider.name if provider is not None else ""),
        endpoint=endpoint,
        status=error.status,
        attempts=attempts,
        retryable=error.retryable,
        hint=hint,
    )
    return AgentError(join_hint(what, hint), "client", failure=failure)


__all__ = [
    "LOCAL_REFUSED_RETRIES",
    "QUICK_RETRY_SECS",
    "provider_failure",
    "retry_delay",
    "retry_limit",
]
