"""First run: the model a local server reports loaded, asked with the standard library."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from listed_provider import provider  # type: ignore[import-not-found]

from rho_kernel.providers.events import ProviderError
from rho_kernel.providers.local_model import fetch_loaded_model, loaded_model
from rho_kernel.providers.resolve import ResolvedProvider
from rho_kernel.testing.server import ScriptedServer, free_port

LM_STUDIO_V0 = {
    "object": "list",
    "data": [
        {"id": "text-embedding-nomic-embed-text-v1.5", "type": "embeddings", "state": "loaded"},
        {"id": "qwen2.5-7b-instruct", "type": "llm", "state": "not-loaded"},
        {"id": "qwen3-coder-30b", "type": "llm", "state": "loaded"},
    ],
}
LM_STUDIO_V1 = {
    "models": [
        {"type": "llm", "key": "google/gemma-3-12b", "loaded_instances": []},
        {"type": "llm", "key": "openai/gpt-oss-20b", "loaded_instances": [{"id": "gpt-oss"}]},
    ]
}
OLLAMA_TAGS = {
    "models": [
        {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2019393189},
        {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b"},
    ]
}


@pytest.mark.parametrize(
    ("payload", "model"),
    [
        (LM_STUDIO_V0, "qwen3-coder-30b"),
        (LM_STUDIO_V1, "openai/gpt-oss-20b"),
        (OLLAMA_TAGS, "llama3.2:latest"),
        ({"object": "list", "data": [{"id": "a"}, {"id": "b"}]}, "a"),
        (
            {
                "data": [
                    {"id": "x", "status": {"value": "unloaded"}},
                    {"id": "y", "status": "loaded"},
                ]
            },
            "y",
        ),
        ({"data": [{"id": "x"}, {"id": "y", "loaded": True}]}, "y"),
        # Embedding models cannot chat: passed over unless they are all there is.
        ({"data": [{"id": "nomic-embed-text"}, {"id": "chat-model"}]}, "chat-model"),
        ({"data": [{"id": "nomic-embed-text"}]}, "nomic-embed-text"),
        (["bare-id"], "bare-id"),
        ({"data": [{"id": ""}, 3, None, {"name": "named"}]}, "named"),
        ({"data": []}, None),
        ({"error": "nope"}, None),
        ("text", None),
    ],
)
def test_loaded_model_prefers_an_entry_marked_loaded(payload: Any, model: str | None) -> None:
    assert loaded_model(payload) == model


def local(models_url: str, key_env: str | None = None) -> ResolvedProvider:
    return provider(models_url, "local", key_env)


def test_fetch_asks_the_models_endpoint_with_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_KEY", "sk-local")
    with ScriptedServer(models_body=LM_STUDIO_V0) as server:
        assert fetch_loaded_model(local(server.models_url, "LOCAL_KEY")) == "qwen3-coder-30b"
    [request] = server.requests
    assert (request.method, request.path) == ("GET", "/v1/models")
    assert request.headers["authorization"] == "Bearer sk-local"


def test_fetch_of_an_empty_list_is_none() -> None:
    with ScriptedServer() as server:
        assert fetch_loaded_model(local(server.models_url)) is None


@pytest.mark.parametrize(
    ("server_args", "reason"),
    [
        ({"models_status": 404, "models_body": {"error": "no"}}, "HTTP 404"),
        ({"models_body": b"<html>"}, "JSON"),
        ({"models": ["m"], "models_delay": 30}, "timed out"),
    ],
    ids=["status", "not-json", "slow"],
)
def test_fetch_failures_say_what_happened(server_args: dict[str, Any], reason: str) -> None:
    with ScriptedServer(**server_args) as server:
        url = server.models_url
        with pytest.raises(ProviderError) as info:
            fetch_loaded_model(local(url), timeout=0.5)
    assert url in info.value.message and reason in info.value.message


def test_fetch_from_a_closed_port_is_connection_refused() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1/models"
    with pytest.raises(ProviderError, match="connection refused") as info:
        fetch_loaded_model(local(url))
    assert url in info.value.message


def test_fetch_error_masks_credentials_in_the_url() -> None:
    url = f"http://me:pa55word@127.0.0.1:{free_port()}/v1/models?key=SECRET-KEY"
    with pytest.raises(ProviderError) as info:
        fetch_loaded_model(local(url))
    assert "pa55word" not in info.value.message and "SECRET-KEY" not in info.value.message
    assert "http://***@127.0.0.1:" in info.value.message


def test_fetch_does_not_import_httpx() -> None:
    with ScriptedServer(models=["m"]) as server:
        probe = (
            "import sys\n"
            "from rho_kernel.providers.local_model import fetch_loaded_model\n"
            "from rho_kernel.providers.resolve import ResolvedProvider\n"
            f"p = ResolvedProvider('l', '', 'chat_completions', None, None, {server.models_url!r})\n"
            "assert fetch_loaded_model(p) == 'm'\n"
            "print('httpx' in sys.modules)\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
