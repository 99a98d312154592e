"""Cache hints through the real `rho` process: each preset's requests, as its server receives
them, carry the hints the provider takes (a session's `prompt_cache_key` for OpenAI,
`session_id` and Anthropic breakpoints through OpenRouter) and nothing for the others; the
key is the session's, after a resume too; marked messages keep redaction and images, and the
session replays as before."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]
from sandboxes import user_config  # type: ignore[import-not-found]

from rho_kernel.providers.cache_hints import session_cache_key
from rho_kernel.testing import (
    ScriptedServer,
    fixture_reply,
    text_reply,
    tool_calls_reply,
)

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"
SECRET = "sk-proj-" + "Qv7" * 16
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f6e6a10000000049454e44ae426082"
    )
).decode()
MARK = {"type": "ephemeral"}


def _posts(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.method == "POST"]


def _start(start_rho: Any, *args: str) -> RhoProcess:
    rho = start_rho(*args)
    ready = rho.read()
    assert ready["method"] == "ready", rho.stderr_text()
    return rho


def _session(rho: RhoProcess) -> tuple[str, str]:
    state = rho.call("getState")["result"]
    return state["sessionId"], state["sessionPath"]


def _reply(rho: RhoProcess, message: str, **params: Any) -> str:
    answer = rho.call("prompt", {"message": message, **params}, timeout=60)
    assert "result" in answer, answer
    return answer["result"]["reply"]


# ── OpenAI: one key per session ─────────────────────────────────────────────


def test_openai_requests_carry_the_sessions_key_across_requests_sessions_and_a_resume(
    start_rho: Any, server: ScriptedServer, home: Path
) -> None:
    user_config(
        home,
        f'[[providers]]\npreset = "openai"\nendpoint = "{server.responses_url}"\n'
        'default_model = "gpt-5"\n',
    )
    function_call = STREAMS / "responses--openai-gpt-5.5-function-call.jsonl"
    text = STREAMS / "responses--openai-gpt-4o-text.jsonl"
    server.add(fixture_reply(function_call), fixture_reply(text), fixture_reply(text))
    rho = _start(start_rho)
    first, path = _session(rho)
    assert _reply(rho, "multiply") == "The capital of France is Paris."
    keys = [body.get("prompt_cache_key") for body in _posts(server)]
    assert keys == [session_cache_key(first)] * 2  # the tool round and the answer
    assert "result" in rho.call("newSession")
    second, _ = _session(rho)
    _reply(rho, "again")
    assert _posts(server)[2]["prompt_cache_key"] == session_cache_key(second) != keys[0]
    assert rho.finish() == 0

    server.add(fixture_reply(text))
    resumed = _start(start_rho, "--session", path)
    assert _session(resumed)[0] == first
    _reply(resumed, "once more")
    assert _posts(server)[3]["prompt_cache_key"] == keys[0]
    assert resumed.finish() == 0


# ── OpenRouter: Anthropic's breakpoints ─────────────────────────────────────


def _marks(messages: list[dict[str, Any]]) -> list[int]:
    """The positions of the messages carrying a breakpoint (each on one text part)."""
    found = []
    for index, message in enumerate(messages):
        content = message["content"]
        marked = [p for p in content if "cache_control" in p] if isinstance(content, list) else []
        if marked:
            assert len(marked) == 1 and marked[0]["type"] == "text", message
            assert marked[0]["cache_control"] == MARK
            found.append(index)
    return found


def _unmarked(message: dict[str, Any]) -> dict[str, Any]:
    """A message as it is sent without breakpoints: a marked text alone is a string again."""
    content = message["content"]
    if isinstance(content, list):
        parts = [{k: v for k, v in p.items() if k != "cache_control"} for p in content]
        content = parts[0]["text"] if [p["type"] for p in parts] == ["text"] else parts
    return {**message, "content": content}


def test_openrouter_marks_the_system_prompt_the_previous_end_and_the_last_message(
    start_rho: Any, server: ScriptedServer, home: Path, project: Path
) -> None:
    user_config(
        home,
        f'[[providers]]\npreset = "openrouter"\nendpoint = "{server.chat_url}"\n'
        'default_model = "anthropic/claude-sonnet-4"\n',
    )
    (project / "a.txt").write_text("plain\n")
    (project / "b.txt").write_text(f"OPENAI_API_KEY={SECRET}\n")
    reads = [("read_file", {"path": name, "hashline": False}) for name in ("a.txt", "b.txt")]
    server.add(tool_calls_reply(reads), text_reply("read"), text_reply("a red pixel"))
    server.add(text_reply("still red"), text_reply("bye"))
    rho = _start(start_rho)
    session, path = _session(rho)
    assert _reply(rho, "read both") == "read"
    image = {"mediaType": "image/png", "data": PIXEL}
    assert _reply(rho, "what is this?", images=[image]) == "a red pixel"
    _reply(rho, "and now?")
    _reply(rho, "bye")
    assert rho.finish() == 0

    server.add(text_reply("welcome back"))
    resumed = _start(start_rho, "--session", path)
    assert _reply(resumed, "resumed") == "welcome back"
    assert resumed.finish() == 0

    bodies = _posts(server)
    assert len(bodies) == 6
    before: list[dict[str, Any]] = []
    for number, body in enumerate(bodies):
        messages = body["messages"]
        assert body["session_id"] == session_cache_key(session), number
        assert "prompt_cache_key" not in body
        # The system prompt, where the request before ended (what it cached) and the end.
        ends = [len(before) - 1] if before else []
        assert _marks(messages) == [0, *ends, len(messages) - 1], number
        assert messages[0]["role"] == "system"
        # The conversation only grows: each request begins with the one before.
        sent = [_unmarked(m) for m in messages]
        assert sent[: len(before)] == before, number
        assert all(isinstance(m["content"], str) for m in sent if m["role"] != "user")
        before = sent
    # Redaction holds in a marked tool result (the last message of the second request).
    [plain, secret] = [m for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert plain["content"] == "<context>\nplain\n<context:end>"
    assert secret["content"] == [
        {"type": "text", "text": "<context>\nOPENAI_API_KEY=[REDACTED]\n<context:end>"}
        | {"cache_control": MARK}
    ]
    assert all(SECRET not in r.body.decode() for r in server.requests)
    # The image stays after its text, marked while it ends a request, plain afterwards.
    pixel = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}}
    assert bodies[2]["messages"][-1]["content"] == [
        {"type": "text", "text": "what is this?", "cache_control": MARK},
        pixel,
    ]
    [asked] = [
        m for m in bodies[4]["messages"] if isinstance(m["content"], list) and pixel in m["content"]
    ]
    assert asked["content"] == [{"type": "text", "text": "what is this?"}, pixel]
    # The session holds the conversation as it was, with no breakpoint in it.
    assert "cache_control" not in Path(path).read_text()


def test_openrouter_sends_other_models_the_session_id_alone(
    start_rho: Any, server: ScriptedServer, home: Path
) -> None:
    user_config(
        home,
        f'[[providers]]\npreset = "openrouter"\nendpoint = "{server.chat_url}"\n'
        'default_model = "openai/gpt-4o"\n',
    )
    server.add(fixture_reply(STREAMS / "chat--openai-gpt-4.1-nano-text.jsonl"))
    rho = _start(start_rho, "--ephemeral")
    session, _ = _session(rho)
    assert _reply(rho, "a holiday").startswith("**Holiday Name:** Harmony Day")
    [body] = _posts(server)
    assert body["session_id"] == session_cache_key(session)
    assert "prompt_cache_key" not in body
    assert all(isinstance(m["content"], str) for m in body["messages"])
    assert rho.finish() == 0


# ── everything else: nothing ────────────────────────────────────────────────

#: Providers whose requests carry no hint: local servers, the other presets, and OpenAI
#: switched off (each name → its entry's lines).
PLAIN = {
    "lm-studio": 'preset = "lm-studio"',
    "ollama": 'preset = "ollama"',
    "groq": 'preset = "groq"',
    "zai": 'preset = "zai"',
    "zai-coding": 'preset = "zai-coding"\nname = "zai-coding"',
    "llama": 'name = "llama"',
    "openai-off": 'preset = "openai"\nname = "openai-off"\ncache_hints = false',
}
CHAT_KEYS = {"model", "messages", "stream", "stream_options", "tools", "max_tokens"}


@pytest.mark.usefixtures("run_anyway")
def test_local_servers_and_other_presets_get_no_hint(
    start_rho: Any, server: ScriptedServer, home: Path
) -> None:
    entries = []
    for name, lines in PLAIN.items():
        endpoint = server.responses_url if name == "openai-off" else server.chat_url
        entries.append(f'[[providers]]\n{lines}\nendpoint = "{endpoint}"\n')
    user_config(home, "\n".join(entries))
    rho = start_scripted(start_rho, server, "--ephemeral")  # `--endpoint`: a local server
    text = STREAMS / "responses--openai-gpt-4o-text.jsonl"
    for name in ["", *PLAIN]:
        if name:
            assert "result" in rho.call("setModel", {"model": f"{name}:some-model"})
        server.add(fixture_reply(text) if name == "openai-off" else text_reply("hi"))
        _reply(rho, f"hello {name}")
        body = _posts(server)[-1]
        if name == "openai-off":
            assert "prompt_cache_key" not in body and "session_id" not in body
            assert b"cache_control" not in server.requests[-1].body
        else:
            assert set(body) == CHAT_KEYS, name
            assert all(isinstance(m["content"], str) for m in body["messages"]), name
    assert rho.finish() == 0
