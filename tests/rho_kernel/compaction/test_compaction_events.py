"""Every compaction that writes a summary is told to the observers: during a prompt (the
threshold, a cut-off reply) and through `Runtime.compact`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_kernel import ContextCompacted, hookimpl, tool
from rho_kernel.config.model import RhoConfig
from rho_kernel.messages import ChatMessage
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_kernel.session import CompactionPayload, Session
from rho_kernel.testing import (
    RecordingObserver,
    ScriptedServer,
    in_memory_session,
    run_prompt,
    text_reply,
    tool_call_reply,
)


@tool(risk="read")
def big(letter: str) -> str:
    """Return a lot of one letter."""
    return (letter * 79 + "\n") * 50


def _config(threshold: int) -> RhoConfig:
    return RhoConfig.model_validate(
        {
            "agent": {
                "token_budget": 4096,
                "completion_reserve": 512,
                "auto_compact_threshold": threshold,
            }
        }
    )


def _compactions(observer: RecordingObserver) -> list[ContextCompacted]:
    found = [args[0] for name, args in observer.events if name == "on_context_compacted"]
    assert all(isinstance(event, ContextCompacted) for event in found)
    return found


def _summaries(session: Session) -> list[Any]:
    return [e for e in session.path_entries() if isinstance(e.payload, CompactionPayload)]


async def test_auto_compaction_is_announced(project: Path) -> None:
    session = in_memory_session(project)
    observer = RecordingObserver()
    with ScriptedServer(
        [
            tool_call_reply("big", {"letter": "A"}),
            tool_call_reply("big", {"letter": "B"}),
            text_reply("done"),
        ]
    ) as server:
        await run_prompt(
            "read everything", endpoint=server.chat_url, root=project, tools=[big],
            config=_config(50), session=session, observers=[observer],
        )  # fmt: skip
    (event,) = _compactions(observer)
    (summary,) = _summaries(session)
    assert event.trigger == "auto" and event.strategy == event.requested == "mechanical"
    assert event.entries_compacted == 2 and event.summary_id == summary.id
    assert 0 < event.tokens_after < event.tokens_before
    # Announced between the tool batch that filled the context and the next request.
    names = observer.names()
    last_usage = max(index for index, name in enumerate(names) if name == "on_usage")
    assert names.index("on_context_compacted") < last_usage


async def test_compaction_for_a_cut_off_reply_is_announced(project: Path) -> None:
    session = in_memory_session(project)
    session.append_message(ChatMessage.user("earlier question"))
    session.append_message(ChatMessage.assistant("x" * 3000))
    observer = RecordingObserver()
    with ScriptedServer(
        [text_reply("part one, ", finish_reason="length"), text_reply("part two")]
    ) as server:
        await run_prompt(
            "explain", endpoint=server.chat_url, root=project, session=session,
            config=_config(0), observers=[observer],
        )  # fmt: skip
    (event,) = _compactions(observer)
    assert event.trigger == "truncated" and event.entries_compacted > 0


async def test_no_compaction_no_announcement(project: Path) -> None:
    observer = RecordingObserver()
    with ScriptedServer([text_reply("hi")]) as server:
        await run_prompt(
            "hello", endpoint=server.chat_url, root=project, config=_config(50),
            observers=[observer],
        )  # fmt: skip
    assert _compactions(observer) == []


class _Announcements:
    """A plugin whose observer records the compactions it is told of."""

    def __init__(self) -> None:
        self.observer = RecordingObserver()

    @hookimpl
    def rho_register_observers(self) -> list[object]:
        return [self.observer]


async def test_a_manual_compaction_is_announced(project: Path) -> None:
    plugin = _Announcements()
    runtime = Runtime.build(
        RuntimeOptions(
            cwd=project, root=project, model="m", endpoint="http://127.0.0.1:9/v1",
            ephemeral=True, config=RhoConfig(), entry_points=False,
            plugin_objects=[("announcements", plugin)],
        )
    )  # fmt: skip
    session = runtime.session
    for turn in range(3):
        session.append_message(ChatMessage.user(f"question {turn}"))
        session.append_message(ChatMessage.assistant(f"answer {turn} " + "y" * 400))
    try:
        outcome = await runtime.compact()
        nothing = await runtime.compact()  # nothing left worth folding: no announcement
    finally:
        await runtime.close_connections()
    assert outcome.compacted and not nothing.compacted
    (event,) = _compactions(plugin.observer)
    assert event == outcome.event("manual")
    assert (event.entries_compacted, event.tokens_before, event.tokens_after) == (
        outcome.entries_compacted, outcome.tokens_before, outcome.tokens_after
    )  # fmt: skip
