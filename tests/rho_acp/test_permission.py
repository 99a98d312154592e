"""What a client's answer to a permission request decides: only a choice of an offered
option runs the call; anything else denies it, saying why in rho's words."""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError
from acp.schema import RequestPermissionResponse
from pydantic import ValidationError

from rho_acp.permission import ALLOW_ALWAYS, ALLOW_ONCE, REJECT_ONCE, ask, malformed, remembering
from rho_kernel import SuggestedRule

OFFERED = [ALLOW_ONCE, REJECT_ONCE]


def _answered(raw: Any) -> Any:
    async def send() -> Any:
        if isinstance(raw, Exception):
            raise raw
        return RequestPermissionResponse.model_validate(raw)

    return send


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ({}, "the editor's answer to the permission request has no outcome"),
        ("allow", "was a string, not an object with an outcome"),
        ([1, 2], "was an array, not an object with an outcome"),
        (None, "was null, not an object with an outcome"),
        ({"outcome": None}, "has outcome as null, which ACP does not allow"),
        ({"outcome": {"outcome": "yes"}}, "has outcome.outcome 'yes', not \"selected\""),
        ({"outcome": {"outcome": "selected", "optionId": 3}}, "outcome.optionId as a number"),
    ],
)
def test_a_malformed_answer_is_described_in_rhos_words(raw: Any, said: str) -> None:
    with pytest.raises(ValidationError) as caught:
        RequestPermissionResponse.model_validate(raw)
    assert said in malformed(caught.value)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ({"outcome": {"outcome": "selected", "optionId": ALLOW_ALWAYS}}, "was not offered"),
        ({"outcome": {"outcome": "selected", "optionId": "allow-always-1"}}, "was not offered"),
        ({"outcome": {"outcome": "cancelled"}}, "the editor cancelled the permission request"),
        (RequestError(-32603, "x" * 10_000), "answered the permission request with error -32603"),
        ({"outcome": []}, "has outcome as an array"),
    ],
)
async def test_anything_but_an_offered_choice_denies_with_a_reason(raw: Any, why: str) -> None:
    decision = await ask(_answered(raw), OFFERED, {})
    assert decision.kind == "denied" and decision.message is not None and why in decision.message
    assert len(decision.message) < 400


async def test_an_offered_choice_decides() -> None:
    once = await ask(
        _answered({"outcome": {"outcome": "selected", "optionId": ALLOW_ONCE}}), OFFERED, {}
    )
    assert once.kind == "approved" and once.remember is None
    rules = [
        SuggestedRule("session", "edit(src/**)", "edits in src/"),
        SuggestedRule("project", "edit(**)", "edits in this project"),
    ]
    remembered = remembering(rules)
    assert list(remembered) == ["allow-always-1", "allow-always-2"]
    for option_id, rule in remembered.items():
        chosen = {"outcome": {"outcome": "selected", "optionId": option_id}}
        decision = await ask(_answered(chosen), [*OFFERED, *remembered], remembered)
        assert decision.kind == "approved" and decision.remember == rule
    rejected = {"outcome": {"outcome": "selected", "optionId": REJECT_ONCE}}
    denied = await ask(_answered(rejected), [*OFFERED, *remembered], remembered)
    assert denied.kind == "denied" and denied.message is None


async def test_an_editor_that_went_away_ends_the_turn() -> None:
    decision = await ask(_answered(ConnectionError("Connection closed")), OFFERED, {})
    assert decision.kind == "cancelled"
