"""Images attached to a prompt through the real `rho`: checked, sent to the model in the
provider's shape, kept in the session, and refused for a model known to take none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rho_process import RhoProcess, start_scripted  # type: ignore[import-not-found]

from rho_kernel.testing import ScriptedServer, fixture_reply, text_reply

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"

#: A 1×1 PNG.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PIXEL_URL = f"data:image/png;base64,{PIXEL}"


def _posts(server: ScriptedServer) -> list[Any]:
    return [r for r in server.requests if r.method == "POST"]


def test_an_image_reaches_the_model_after_the_text_and_stays_in_the_session(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho: RhoProcess = start_scripted(start_rho, server)
    server.add(text_reply("a red pixel"), text_reply("still red"))
    image = {"mediaType": "image/png", "data": PIXEL}
    answer = rho.call("prompt", {"message": "what is this?", "images": [image]})
    assert answer["result"]["reply"] == "a red pixel"
    sent = [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": PIXEL_URL}},
    ]
    assert _posts(server)[0].json["messages"][-1]["content"] == sent
    assert rho.call("prompt", {"message": "and now?"})["result"]["reply"] == "still red"
    history = _posts(server)[1].json["messages"]
    assert history[-3]["content"] == sent  # the earlier turn is sent again with its image
    messages = rho.call("getMessages")["result"]["messages"]
    assert next(m["content"] for m in messages if m["role"] == "user") == sent
    assert rho.finish() == 0


def test_responses_carry_the_image_as_input_image(
    start_rho: Any, server: ScriptedServer, home: Path
) -> None:
    (home / ".rho").mkdir(exist_ok=True)
    (home / ".rho" / "config.toml").write_text(
        f'[[providers]]\nname = "r"\nendpoint = "{server.responses_url}"\napi = "responses"\n'
    )
    rho = start_rho("-m", "scripted-model", "--ephemeral")
    assert rho.read()["method"] == "ready", rho.stderr_text()
    server.add(fixture_reply(STREAMS / "responses--openai-gpt-4o-text.jsonl"))
    image = {"mediaType": "image/png", "data": PIXEL}
    answer = rho.call("prompt", {"message": "look", "images": [image]})
    assert answer["result"].get("reply") == "The capital of France is Paris.", answer
    [user] = [i for i in _posts(server)[0].json["input"] if i.get("role") == "user"]
    assert user["content"] == [
        {"type": "input_text", "text": "look"},
        {"type": "input_image", "image_url": PIXEL_URL},
    ]


def test_a_model_known_to_take_no_images_refuses_the_prompt_and_sends_nothing(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = start_rho("--endpoint", server.chat_url, "-m", "deepseek-chat", "--ephemeral")
    assert rho.read()["method"] == "ready"
    image = {"mediaType": "image/png", "data": PIXEL}
    result = rho.call("prompt", {"message": "look", "images": [image]})["result"]
    assert "deepseek-chat takes no images" in result["error"]
    assert _posts(server) == []
    kept = rho.call("getMessages")["result"]["messages"]
    assert [m for m in kept if m["role"] != "system"] == []  # nothing was kept


def test_an_image_that_is_not_what_it_claims_is_invalid_params(
    start_rho: Any, server: ScriptedServer
) -> None:
    rho = start_scripted(start_rho, server, "--ephemeral")
    cases = [
        ({"mediaType": "image/jpeg", "data": PIXEL}, "images[0]: the image's data is not JPEG"),
        ({"mediaType": "image/svg+xml", "data": PIXEL}, "are not taken"),
        ({"mediaType": "image/png", "data": "not base64!"}, "not valid base64"),
    ]
    for image, expected in cases:
        error = rho.call("prompt", {"message": "look", "images": [image]})["error"]
        assert error["code"] == -32602 and expected in error["message"], error
    steer = rho.call("prompt", {"message": "x", "steer": True, "images": [cases[0][0]]})
    assert steer["error"]["code"] == -32602
    assert _posts(server) == []
    assert rho.finish() == 0
