"""How a compaction strategy asks the session's model: one request, no tools, text back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rho_kernel.loop.compaction import ModelCall
from rho_kernel.providers.events import ModelRequest, ModelResponse, ProviderError

if TYPE_CHECKING:
    from rho_kernel.cancel import CancelToken
    from rho_kernel.providers.service import LlmService


#: Told about every response a compaction's model request gets (its usage is counted there).
ResponseSink = Callable[[ModelResponse], Awaitable[None]]


def model_call(
    service: LlmService,
    model: str,
    cancel: CancelToken | None = None,
    on_response: ResponseSink | None = None,
) -> ModelCall:
    """A `ModelCall` sending `[system, user]` to `model` through `service`.

    No retries and no live events: a failure raises, and the compactor falls back to the
    mechanical summary. `cancel` (the running turn's token) interrupts the request.
    `on_response` is awaited with each response before its text is returned, so that the
    request's tokens and cost are counted.
    """

    async def ask(system: str, prompt: str, max_tokens: int) -> str:
        request = ModelRequest(
            model=model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            max_tokens=max_tokens,
        )
        if cancel is not None:
            response = await cancel.run(_answer(service, request))
        else:
            response = await _answer(service, request)
        if on_response is not None:
            await on_response(response)
        return response.text

    return ask


async def _answer(service: LlmService, request: ModelRequest) -> ModelResponse:
    async for event in service.stream(request):
        if isinstance(event, ModelResponse):
            return event
    raise ProviderError("the model stream ended without a response", kind="decode")


__all__ = ["ResponseSink", "model_call"]
