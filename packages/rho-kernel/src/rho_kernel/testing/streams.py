"""Helpers for testing a protocol service: build a request, drain its stream."""

from __future__ import annotations

from typing import Any

from rho_kernel import LlmService, ModelRequest, ModelResponse, StreamEvent


def model_request(**overrides: Any) -> ModelRequest:
    """A minimal request (model "m", one user message "hi"), with any field overridden."""
    values: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    values.update(overrides)
    return ModelRequest(**values)


async def collect_stream(
    service: LlmService, request: ModelRequest | None = None
) -> tuple[list[StreamEvent], ModelResponse]:
    """Drain `service.stream(request)`: the deltas, and the one final `ModelResponse`.

    Fails (AssertionError) unless the stream ends with exactly one response.
    """
    events: list[StreamEvent] = [e async for e in service.stream(request or model_request())]
    final = events.pop() if events else None
    assert isinstance(final, ModelResponse), f"stream ended with {final!r}, not a ModelResponse"
    assert not any(isinstance(event, ModelResponse) for event in events)
    return events, final


__all__ = ["collect_stream", "model_request"]
