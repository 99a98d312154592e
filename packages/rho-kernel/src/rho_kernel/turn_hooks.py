"""The hooks asked as a turn starts and as it would end: `rho_prompt_starting` may refuse a
prompt or add context to it, `rho_turn_ending` may continue a turn with a message.

Both may be `async def`; each answer is awaited in plugin order, and an implementation that
raises is reported and counts as no answer.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rho_kernel import hookspecs

if TYPE_CHECKING:
    from rho_kernel.plugins import PluginHost
    from rho_kernel.runtime import Runtime


@dataclass(frozen=True, slots=True)
class PromptContext:
    """Text a plugin adds to the prompt starting (a `rho_prompt_starting` answer): the model
    gets it right after the user's message, as a message of its own naming the plugin, and
    the session keeps it. Added in 0.3."""

    text: str


@dataclass(frozen=True, slots=True)
class PromptStart:
    """What the plugins said as a prompt starts: the first refusal, and the context each
    added as (plugin, text)."""

    refusal: str | None = None
    context: tuple[tuple[str, str], ...] = ()


async def _answers(plugins: PluginHost, hook: Any, **kwargs: Any) -> list[tuple[str, Any]]:
    """Every plugin's answer to `hook`, awaitables awaited in plugin order."""
    answers: list[tuple[str, Any]] = []
    for plugin, answer in plugins.call_each(hook, **kwargs):
        if inspect.isawaitable(answer):
            try:
                answer = await answer
            except Exception as exc:  # a broken plugin answers nothing
                plugins.report(f"{plugin}: {hook.__name__} failed: {exc}")
                continue
        answers.append((plugin, answer))
    return answers


async def prompt_start(plugins: PluginHost, runtime: Runtime, message: str) -> PromptStart:
    """Ask `rho_prompt_starting` about the prompt `message`."""
    refusals: list[str] = []
    context: list[tuple[str, str]] = []
    hook = hookspecs.rho_prompt_starting
    for plugin, answer in await _answers(plugins, hook, runtime=runtime, message=message):
        if isinstance(answer, PromptContext):
            if answer.text.strip():
                context.append((plugin, answer.text))
        elif answer:
            refusals.append(str(answer))
    return PromptStart(refusals[0] if refusals else None, tuple(context))


async def turn_ending(
    plugins: PluginHost, runtime: Runtime, reply: str, continued: int
) -> list[str]:
    """The messages the turn continues with (none: it ends), from `rho_turn_ending`."""
    hook = hookspecs.rho_turn_ending
    answers = await _answers(plugins, hook, runtime=runtime, reply=reply, continued=continued)
    return [str(answer) for _, answer in answers if isinstance(answer, str) and answer.strip()]


def context_message(plugin: str, text: str) -> str:
    """The message that gives the model a plugin's context."""
    return f"Context added by {plugin} to the message above:\n{text}"


__all__ = ["PromptContext", "PromptStart", "context_message", "prompt_start", "turn_ending"]
