"""Providers, models, resilience and loop behaviours through the real `rho` process."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from rho_process import RhoProcess, stderr_lines  # type: ignore[import-not-found]

from rho_kernel.testing import (
    ErrorReply,
    HangReply,
    RawReply,
    ScriptedServer,
    SSEReply,
    fixture_reply,
    text_reply,
    tool_call_reply,
)
from rho_kernel.testing.server import free_port

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"


@pytest.fixture
def server():
    with ScriptedServer(models=["alpha-model", "beta-model"]) as scripted:
        yield scripted


def _config(project: Path, text: str) -> None:
    # Providers are the user's to choose (a project's need trust): write the user's file,
    # in the home directory the fixtures put next to the project.
    user_dir = project.parent / "home" / ".rho"
    user_dir.mkdir(parents=True, exist_ok=True)
    (user_dir / "config.toml").write_text(text)


def _provider_config(
    server: ScriptedServer, name: str = "scripted", api: str = "chat_completions"
) -> str:
    endpoint = server.responses_url if api == "responses" else server.chat_url
    return f'[[providers]]\nname = "{name}"\nendpoint = "{endpoint}"\napi = "{api}"\n'


def _ready(rho: RhoProcess) -> dict:
    message = rho.read()
    assert message["method"] == "ready", rho.stderr_text()
    return message["params"]


def _params(rho: RhoProcess, method: str) -> list[dict]:
    return [m["params"] for m in rho.seen if m.get("method") == method]


def _posts(server: ScriptedServer) -> list:
    """The model requests (a first run without a model also asks GET /models at startup)."""
    return [r for r in server.requests if r.method == "POST"]


# ── consent ─────────────────────────────────────────────────────────────────


def test_external_provider_needs_consent(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _config(project, '[[providers]]\npreset = "openrouter"\napi_key_env = "OPENROUTER_API_KEY"\n')
    refused = start_rho("--ephemeral")
    assert refused.finish() == 2
    stderr = refused.stderr_text()
    assert "External provider(s) configured" in stderr and "openrouter" in stderr
    assert "No local model server detected" in stderr
    assert "--accept-external-provider" in stderr and "Traceback" not in stderr
    assert refused.raw == []
    accepted = start_rho("--ephemeral", "--accept-external-provider")
    assert _ready(accepted)["provider"] == "openrouter"


def test_local_provider_alongside_drops_the_no_local_header(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _config(project, '[[providers]]\npreset = "lm-studio"\n\n[[providers]]\npreset = "groq"\n')
    refused = start_rho("--ephemeral")
    assert refused.finish() == 2
    stderr = refused.stderr_text()
    assert "groq" in stderr and "No local model server detected" not in stderr


def test_endpoint_flag_implies_consent(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _config(project, '[[providers]]\npreset = "openai"\n')
    rho = start_rho("--ephemeral", "--endpoint", "http://127.0.0.1:9/v1/chat/completions")
    assert _ready(rho)["provider"] == "127.0.0.1"


# ── models and providers ────────────────────────────────────────────────────


def test_set_model_with_provider_prefix_and_bare_discovery(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    with (
        ScriptedServer(models=["first-only"]) as first,
        ScriptedServer(models=["second-only"]) as second,
    ):
        _config(project, _provider_config(first, "one") + "\n" + _provider_config(second, "two"))
        rho = start_rho()
        assert _ready(rho)["provider"] == "one"
        switched = rho.call("setModel", {"model": "second-only"})["result"]
        assert (switched["model"], switched["provider"]) == ("second-only", "two")
        assert switched["contextWindow"] == 32768 and switched["estimatedUsed"] > 0
        second.add(text_reply("from two"))
        assert rho.call("prompt", {"message": "hi"})["result"]["reply"] == "from two"
        assert second.requests[-1].json["model"] == "second-only"

        forced = rho.call("setModel", {"model": "one:any/model:free"})["result"]
        assert (forced["model"], forced["provider"]) == ("any/model:free", "one")
        missing = rho.call("setModel", {"model": "nobody-serves-this"})
        assert (
            missing["error"]["code"] == -32602 and "provider:model" in missing["error"]["message"]
        )
        state = rho.call("getState")["result"]
        assert (state["model"], state["provider"]) == ("any/model:free", "one")
        path = Path(state["sessionPath"])
        assert rho.finish() == 0
        changes = [
            json.loads(line)["payload"]["ModelChange"]["model"]
            for line in path.read_text().splitlines()
            if '"ModelChange"' in line
        ]
        assert changes == ["second-only", "any/model:free"]


def test_list_models_and_providers(start_rho, project: Path, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    _config(
        project,
        _provider_config(server, "scripted")
        + '\n[[providers]]\nname = "gone"\nendpoint = "http://127.0.0.1:9/v1/chat/completions"\n',
    )
    rho = start_rho("--ephemeral")
    _ready(rho)
    listed = rho.call("listModels")["result"]
    assert listed["models"] == [
        {"id": "alpha-model", "provider": "scripted"},
        {"id": "beta-model", "provider": "scripted"},
    ]
    assert len(listed["errors"]) == 1 and "gone" in listed["errors"][0]
    providers = {p["name"]: p for p in rho.call("listProviders")["result"]["providers"]}
    assert providers["scripted"]["reachable"] is True and providers["scripted"]["active"] is True
    assert providers["gone"]["reachable"] is False and providers["gone"]["active"] is False
    assert providers["scripted"]["isExternal"] is False


# ── protocols and recorded streams ──────────────────────────────────────────


def test_responses_provider_from_config(start_rho, project: Path, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    _config(
        project, _provider_config(server, "resp", api="responses") + '\n[agent]\nmodel = "gpt-4o"\n'
    )
    server.add(fixture_reply(STREAMS / "responses--openai-gpt-4o-text.jsonl"))
    rho = start_rho("--ephemeral")
    _ready(rho)
    assert (
        rho.call("prompt", {"message": "capital?"})["result"]["reply"]
        == "The capital of France is Paris."
    )
    body = server.requests[0].json
    assert server.requests[0].path == "/v1/responses"
    assert body["store"] is False and "instructions" in body and "previous_response_id" not in body
    end = _params(rho, "agent/end")[0]
    assert end["usage"]["inputTokens"] == 278 and end["usage"]["outputTokens"] == 9


def test_recorded_reasoning_stream_streams_reasoning_deltas(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server) + "\n[agent]\nshow_reasoning = true\n")
    server.add(fixture_reply(STREAMS / "chat--deepseek-reasoner-reasoning-then-text.jsonl"))
    rho = start_rho("--ephemeral")
    _ready(rho)
    result = rho.call("prompt", {"message": "Hello"})["result"]
    reasoning = "".join(p["delta"] for p in _params(rho, "reasoning/delta"))
    assert len(reasoning) == 882
    assert result["reply"] == "Hello there! 😊 How can I help you today?"
    assert result["reasoning"] == reasoning


def test_reasoning_effort_is_sent(start_rho, project: Path, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server) + '\n[agent]\nreasoning_effort = "high"\n')
    server.add(text_reply("ok"))
    rho = start_rho("--ephemeral")
    _ready(rho)
    rho.call("prompt", {"message": "x"})
    assert _posts(server)[0].json["reasoning_effort"] == "high"


# ── resilience ──────────────────────────────────────────────────────────────


def test_first_token_timeout_retries(start_rho, project: Path, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    _config(
        project,
        _provider_config(server)
        + "\n[agent]\nfirst_token_timeout_secs = 0.5\ninitial_backoff_ms = 1\n",
    )
    server.add(HangReply(30), text_reply("second try"))
    rho = start_rho("--ephemeral")
    _ready(rho)
    assert rho.call("prompt", {"message": "x"})["result"]["reply"] == "second try"
    assert len(_posts(server)) == 2


def test_stream_that_never_stops_exhausts_the_retry_budget(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    _config(
        project,
        _provider_config(server)
        + "\n[agent]\nstream_idle_timeout_secs = 0.3\nretry_budget = 1\ninitial_backoff_ms = 1\n",
    )
    stalled = {"choices": [{"index": 0, "delta": {"content": "par"}}]}
    server.add(
        SSEReply([stalled, stalled], done=False, delay=5),
        SSEReply([stalled, stalled], done=False, delay=5),
    )
    rho = start_rho("--ephemeral")
    _ready(rho)
    failure = rho.call("prompt", {"message": "x"})["result"]["failure"]
    assert (failure["kind"], failure["attempts"]) == ("timeout", 2)
    assert _params(rho, "agent/error")[0]["failure"] == failure


def test_retry_after_is_respected(start_rho, project: Path, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server) + "\n[agent]\ninitial_backoff_ms = 1\n")
    server.add(
        ErrorReply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"}),
        text_reply("ok"),
    )
    rho = start_rho("--ephemeral")
    _ready(rho)
    started = time.monotonic()
    assert rho.call("prompt", {"message": "x"})["result"]["reply"] == "ok"
    assert time.monotonic() - started >= 0.95


# (what the server answers, what the error names)
PROVIDER_FAILURES = [
    (ErrorReply(401, {"error": {"message": "bad key"}}), ["scripted", "401", "bad key"]),
    (RawReply(200, b"<html>hi</html>", "text/html"), ["scripted", "text/html"]),
    (SSEReply(['{"choices": [{"delta": {"content": "x"']), ["scripted"]),
    (
        SSEReply(
            [
                {
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "tool_calls": [
                                    {"index": 0, "id": "c", "function": {"arguments": "{}"}}
                                ]
                            },
                        }
                    ]
                }
            ]
        ),
        ["scripted", "name"],
    ),
]


def test_provider_failures_are_clear_agent_errors(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    # One rho meets every failure in turn, a prompt each (a rho per failure cost ~0.7 s of
    # CPU each); each turn's error is checked as it comes and in the session file.
    _config(project, _provider_config(server) + "\n[agent]\nretry_budget = 0\n")
    rho = start_rho()
    _ready(rho)
    path = Path(rho.call("getState")["result"]["sessionPath"])
    errors: list[str] = []
    for index, (reply, fragments) in enumerate(PROVIDER_FAILURES):
        server.add(reply)
        error = rho.call("prompt", {"message": "x"})["result"]["error"]
        assert all(fragment in error for fragment in fragments), error
        assert _params(rho, "agent/error")[index]["error"] == error
        assert rho.call("getState")["result"]["busy"] is False
        errors.append(error)
    assert rho.finish() == 0
    assert "Traceback" not in rho.stderr_text()
    turn_errors = [
        json.loads(line) for line in path.read_text().splitlines() if "rho.turn_error.v1" in line
    ]
    assert [e["payload"]["Custom"]["data"]["error"] for e in turn_errors] == errors


def test_empty_200_with_no_choices_counts_as_empty(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server) + "\n[agent]\nmax_consecutive_empty = 1\n")
    server.add(SSEReply([{"id": "x", "choices": []}]))
    rho = start_rho("--ephemeral")
    _ready(rho)
    rho.call("prompt", {"message": "x"})
    assert _params(rho, "agent/end")[0]["finishReason"] == "consecutive_empty_responses"


# ── loop behaviours ─────────────────────────────────────────────────────────


def test_stuck_loop_nudge(start_rho, project: Path, server: ScriptedServer) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server) + "\n[agent]\nstuck_loop_threshold = 3\n")
    (project / "a.txt").write_text("same")
    server.add(
        *[tool_call_reply("read_file", {"path": "a.txt"}) for _ in range(3)], text_reply("ok")
    )
    rho = start_rho("--ephemeral")
    _ready(rho)
    rho.call("prompt", {"message": "x"})
    outputs = [p["output"] for p in _params(rho, "tool/result")]
    assert outputs[0] == outputs[1] and outputs[0].startswith("<context>")
    assert outputs[2].startswith("STUCK LOOP DETECTED:")
    assert _posts(server)[3].json["messages"][-1]["content"].startswith("STUCK LOOP DETECTED:")


def test_usage_notifications_cost_and_session_stats(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    _config(
        project,
        _provider_config(server)
        + '\n[agent]\nmodel = "priced-model"\n\n[[models]]\nid = "priced-model"\ninput_price = 2.0\noutput_price = 10.0\n',
    )
    (project / "a.txt").write_text("a")
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    server.add(
        tool_call_reply("read_file", {"path": "a.txt"}, usage=usage),
        text_reply("done", usage=usage),
    )
    rho = start_rho("--ephemeral")
    _ready(rho)
    rho.call("prompt", {"message": "x"})
    notes = _params(rho, "usage")
    assert [n["iteration"] for n in notes] == [1, 2]
    assert notes[0]["usage"] == {
        "inputTokens": 1000,
        "outputTokens": 100,
        "cachedTokens": 0,
        "cost": pytest.approx(0.003),
        "requestCount": 1,
    }
    assert notes[1]["context"]["estimatedUsed"] > notes[0]["context"]["estimatedUsed"] > 0
    assert notes[0]["context"]["contextWindow"] == 32768
    end = _params(rho, "agent/end")[0]
    assert end["usage"]["totalCost"] == pytest.approx(0.006)
    stats = rho.call("getSessionStats")["result"]
    assert stats["apiUsage"]["requestCount"] == 2 and stats["apiUsage"][
        "totalCost"
    ] == pytest.approx(0.006)
    assert stats["messageCount"] == 5 and stats["roleTokens"]["tool"] > 0
    assert stats["phaseTokens"]["exploration"] > 0 and stats["phaseTokens"]["conclusion"] > 0
    assert rho.call("getState")["result"]["phase"] == "conclusion"


def test_compact_and_system_prompt_flags(start_rho) -> None:  # type: ignore[no-untyped-def]
    compact = start_rho("--ephemeral", "--compact")
    _ready(compact)
    short = compact.call("getMessages")["result"]["messages"][0]["content"]
    normal = start_rho("--ephemeral")
    _ready(normal)
    full = normal.call("getMessages")["result"]["messages"][0]["content"]
    assert len(short) < len(full)
    custom = start_rho("--ephemeral", "-s", "Only answer in haiku.")
    _ready(custom)
    assert custom.call("getMessages")["result"]["messages"][0]["content"].startswith(
        "Only answer in haiku."
    )


def test_finish_reason_is_persisted_on_assistant_entries(
    start_rho, server: ScriptedServer, project: Path
) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server))
    (project / "a.txt").write_text("a")
    server.add(tool_call_reply("read_file", {"path": "a.txt"}), text_reply("done"))
    rho = start_rho()
    _ready(rho)
    rho.call("prompt", {"message": "x"})
    reasons = [
        m.get("finish_reason")
        for m in rho.call("getMessages")["result"]["messages"]
        if m["role"] == "assistant"
    ]
    assert reasons == ["tool_calls", "stop"]


# ── credentials in endpoint URLs ────────────────────────────────────────────


def _with_credentials(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://alice:s3cret-pw@{rest}?api_key=SECRET-KEY"


def _assert_no_secret(text: str) -> None:
    assert "s3cret-pw" not in text and "SECRET-KEY" not in text, text


def test_list_providers_shows_endpoints_masked(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    endpoint = _with_credentials(server.chat_url)
    _config(
        project, f'[agent]\nmodel = "m"\n\n[[providers]]\nname = "s"\nendpoint = "{endpoint}"\n'
    )
    rho = start_rho("--ephemeral")
    _ready(rho)
    [entry] = rho.call("listProviders")["result"]["providers"]
    assert entry["endpoint"] == server.chat_url.replace("http://", "http://***@") + "?api_key=***"
    server.add(text_reply("ok"))
    assert rho.call("prompt", {"message": "x"})["result"]["reply"] == "ok"
    assert _posts(server)[0].path == "/v1/chat/completions?api_key=SECRET-KEY"  # real URL used
    assert rho.finish() == 0
    _assert_no_secret(rho.stderr_text())


def test_consent_refusal_shows_endpoints_masked(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    endpoint = _with_credentials("https://api.example.com/v1/chat/completions")
    _config(project, f'[[providers]]\nname = "ext"\nendpoint = "{endpoint}"\n')
    refused = start_rho("--ephemeral")
    assert refused.finish() == 2
    stderr = refused.stderr_text()
    assert "ext (https://***@api.example.com/v1/chat/completions?api_key=***)" in stderr
    _assert_no_secret(stderr)


def test_provider_errors_show_the_endpoint_masked(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _config(project, "[agent]\nretry_budget = 0\n")
    endpoint = _with_credentials(f"http://127.0.0.1:{free_port()}/v1/chat/completions")
    rho = start_rho("-m", "m", "--endpoint", endpoint)
    _ready(rho)
    path = Path(rho.call("getState")["result"]["sessionPath"])
    error = rho.call("prompt", {"message": "x"})["result"]["error"]
    assert "http://***@127.0.0.1:" in error and "connection refused" in error
    assert rho.finish() == 0
    for text in (error, _params(rho, "agent/error")[0]["error"], rho.stderr_text()):
        _assert_no_secret(text)
    _assert_no_secret(path.read_text())


# ── lone surrogates from the model ──────────────────────────────────────────

# Raw SSE data as a provider sends it: JSON escapes, one half of 😀 per chunk.
_HIGH, _LOW = "\\ud83d", "\\ude00"


def _raw(delta: str, finish: str = "null") -> str:
    return f'{{"choices":[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]}}'


def test_split_and_lone_surrogates_from_the_model_keep_the_session_working(
    start_rho, project: Path, server: ScriptedServer
) -> None:  # type: ignore[no-untyped-def]
    _config(project, _provider_config(server) + '\n[agent]\nmodel = "m"\n')
    server.add(
        SSEReply(
            [_raw(f'{{"content":"smile {_HIGH}"}}'), _raw(f'{{"content":"{_LOW}!"}}', '"stop"')]
        ),
        SSEReply(
            [_raw(f'{{"content":"odd {_HIGH}"}}'), _raw(f'{{"content":" {_LOW}"}}', '"stop"')]
        ),
        text_reply("fine"),
    )
    rho = start_rho()
    _ready(rho)
    path = Path(rho.call("getState")["result"]["sessionPath"])
    assert rho.call("prompt", {"message": "one"})["result"]["reply"] == "smile 😀!"
    assert "".join(p["delta"] for p in _params(rho, "message/delta")) == "smile 😀!"
    assert rho.call("prompt", {"message": "two"})["result"]["reply"] == "odd \ufffd \ufffd"
    assert rho.call("prompt", {"message": "three"})["result"]["reply"] == "fine"
    history = _posts(server)[2].json["messages"]
    assert [m["content"] for m in history if m["role"] == "assistant"] == [
        "smile 😀!",
        "odd \ufffd \ufffd",
    ]
    assert rho.finish() == 0
    assert "smile 😀!" in path.read_text(encoding="utf-8")
    assert "Traceback" not in rho.stderr_text()


# ── settings that cannot work stop startup ──────────────────────────────────


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--token-budget", "100"], "--token-budget must be at least 256"),
        (["--max-iterations", "0"], "--max-iterations must be at least 1"),
        (["--endpoint", "localhost:1234/v1/chat/completions"], "not an http:// or https:// URL"),
        (["--endpoint", "http:///v1/chat/completions"], "has no host"),
        (
            ["--endpoint", "ftp://me:s3cret-pw@h.example/v1?key=SECRET-KEY"],
            "'ftp://***@h.example/v1?key=***' is not an http",
        ),
    ],
    ids=["token-budget", "max-iterations", "no-scheme", "no-host", "masked"],
)
def test_flags_that_cannot_work_stop_before_ready(start_rho, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    rho = start_rho("--ephemeral", *args)
    assert rho.finish() == 2
    stderr = rho.stderr_text()
    assert stderr.startswith("rho: error: ") and message in stderr, stderr
    assert rho.raw == [] and "Traceback" not in stderr
    _assert_no_secret(stderr)


def test_api_no_plugin_provides_stops_before_ready(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _config(
        project,
        '[[providers]]\nname = "odd"\napi = "carrier_pigeon"\n'
        'endpoint = "http://localhost:9/v1/pigeon"\n',
    )
    rho = start_rho("--ephemeral", "-m", "m")
    assert rho.finish() == 2
    stderr = rho.stderr_text()
    assert stderr.startswith("rho: error: provider 'odd' uses api \"carrier_pigeon\"")
    assert "chat_completions" in stderr and rho.raw == []


def test_unset_api_key_variable_is_a_warning_without_values(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    _config(
        project,
        '[agent]\nmodel = "m"\n\n[[providers]]\nname = "keyed"\n'
        'endpoint = "http://localhost:9/v1/chat/completions"\napi_key_env = "RHO_TEST_EMPTY"\n',
    )
    rho = start_rho("--ephemeral", env={"RHO_TEST_EMPTY": ""})
    _ready(rho)
    assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert "rho: warning: provider 'keyed'" in stderr and "RHO_TEST_EMPTY" in stderr


# ── first run: no model named ───────────────────────────────────────────────


def test_first_run_uses_the_model_the_local_server_has_loaded(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    listing = {
        "object": "list",
        "data": [
            {"id": "text-embedding-nomic-embed-text-v1.5", "type": "embeddings", "state": "loaded"},
            {"id": "qwen2.5-7b-instruct", "type": "llm", "state": "not-loaded"},
            {"id": "qwen3-coder-30b", "type": "llm", "state": "loaded"},
        ],
    }
    with ScriptedServer([text_reply("hi")], models_body=listing) as lm_studio:
        rho = start_rho("--ephemeral", "--endpoint", lm_studio.chat_url)
        assert _ready(rho)["model"] == "qwen3-coder-30b"
        rho.call("prompt", {"message": "x"})
        assert _posts(lm_studio)[0].json["model"] == "qwen3-coder-30b"
        assert rho.finish() == 0
    assert [line for line in stderr_lines(rho.stderr_text()) if "warning" in line] == []


def test_first_run_with_an_empty_listing_chooses_no_model_and_says_so(
    start_rho, project: Path
) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer([text_reply("hi")]) as lm:
        _config(project, f'[[providers]]\nname = "lm"\nendpoint = "{lm.chat_url}"\n')
        rho = start_rho("--ephemeral")
        ready = _ready(rho)
        problem = ready["modelProblem"]
        assert ready["model"] is None and "claude" not in json.dumps(ready)
        assert problem.startswith(f"no model is loaded at {lm.chat_url}: its model list (")
        assert "is empty" in problem and "--model ID" in problem and "[agent] model" in problem
        state = rho.call("getState")["result"]
        assert (state["model"], state["modelProblem"]) == (None, problem)
        failed = rho.call("prompt", {"message": "hello"})["result"]
        assert failed["error"] == problem and failed["turnId"].startswith("turn_")
        assert _params(rho, "agent/error")[-1]["error"] == problem
        assert _posts(lm) == []  # nothing was sent to a model nobody chose
        assert rho.finish() == 0
    stderr = rho.stderr_text()
    assert f"rho: warning: {problem}\n" in stderr and stderr.count(problem) == 1


def test_without_a_server_the_prompt_says_nothing_answers_and_how_to_choose_a_model(
    start_rho, project: Path
) -> None:  # type: ignore[no-untyped-def]
    endpoint = f"http://127.0.0.1:{free_port()}/v1/chat/completions"
    rho = start_rho("--ephemeral", "--endpoint", endpoint)
    ready = _ready(rho)
    assert ready["model"] is None
    said = f"no model is loaded at {endpoint}: nothing answers there (connection refused)"
    assert ready["modelProblem"].startswith(said)
    failed = rho.call("prompt", {"message": "hello"})["result"]
    assert failed["error"].startswith(said) and "--endpoint" in failed["error"]
    assert "failure" not in failed  # no request was made: nothing failed at the provider
    assert rho.finish() == 0


def test_a_model_loaded_after_the_start_is_taken_by_the_next_prompt(
    start_rho, project: Path
) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer([text_reply("hi")]) as lm:
        rho = start_rho("--ephemeral", "--endpoint", lm.chat_url)
        assert _ready(rho)["model"] is None
        assert "error" in rho.call("prompt", {"message": "too early"})["result"]
        lm.models_body = {"data": [{"id": "qwen3-coder-30b", "state": "loaded"}]}
        answered = rho.call("prompt", {"message": "now"})["result"]
        state = rho.call("getState")["result"]
        assert rho.finish() == 0
        [post] = _posts(lm)
    assert answered["reply"] == "hi" and post.json["model"] == "qwen3-coder-30b"
    assert state["model"] == "qwen3-coder-30b" and "modelProblem" not in state
    assert "using the model provider" in rho.stderr_text()


def test_set_model_chooses_one_when_none_is_loaded(start_rho, project: Path) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer([text_reply("hi")]) as lm:
        rho = start_rho("--ephemeral", "--endpoint", lm.chat_url)
        assert _ready(rho)["model"] is None
        chosen = rho.call("setModel", {"model": "127.0.0.1:picked-model"})["result"]
        state = rho.call("getState")["result"]
        rho.call("prompt", {"message": "hello"})
        assert rho.finish() == 0
        [post] = _posts(lm)
    assert chosen["model"] == state["model"] == post.json["model"] == "picked-model"
    assert "modelProblem" not in state
