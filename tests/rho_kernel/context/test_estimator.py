"""The estimator: family ratios, bytes to tokens, and the EMA calibration."""

from __future__ import annotations

import pytest

from rho_kernel.context import TokenEstimator, family_ratio, message_bytes, utf8_len
from rho_kernel.messages import ChatMessage, FunctionCall, ToolCall


@pytest.mark.parametrize(
    ("model", "ratio"),
    [
        ("google/gemma-3-27b", 3.5),
        ("Qwen3-Coder", 2.5),
        ("anthropic/claude-sonnet-4", 3.7),
        ("gpt-4.1", 4.0),
        ("openai/gpt-4o-mini", 4.0),
        ("meta-llama/Llama-3.3-70b", 3.5),
        ("something-else", 2.5),
    ],
)
def test_family_ratios_match_case_insensitive_substrings(model: str, ratio: float) -> None:
    assert family_ratio(model) == ratio


def test_tokens_round_up_and_budget_bytes_round_down() -> None:
    estimator = TokenEstimator()
    assert estimator.tokens(0, "x") == 0
    assert estimator.tokens(1, "x") == 1
    assert estimator.tokens(11, "x") == 5  # 11 / 2.5 = 4.4
    assert estimator.budget_bytes(3, "x") == 7  # 3 × 2.5


def test_calibration_is_an_ema_with_alpha_point_three() -> None:
    estimator = TokenEstimator()
    # 4000 bytes counted as 1000 tokens: observed 4.0; 0.3·4.0 + 0.7·2.5 = 2.95
    assert estimator.calibrate("m", 4000, 1000) == pytest.approx(2.95)
    assert estimator.ratio("m") == pytest.approx(2.95)
    assert estimator.calibrate("m", 4000, 1000) == pytest.approx(0.3 * 4.0 + 0.7 * 2.95)
    assert estimator.ratio("other") == 2.5  # per model


def test_calibration_ignores_missing_usage_and_is_clamped() -> None:
    estimator = TokenEstimator()
    assert estimator.calibrate("m", 4000, 0) == 2.5
    assert estimator.calibrate("m", 0, 100) == 2.5
    for _ in range(50):
        estimator.calibrate("m", 10**9, 1)  # a provider reporting nonsense
    assert estimator.ratio("m") == pytest.approx(6.0)
    for _ in range(50):
        estimator.calibrate("m", 1, 10**9)
    assert estimator.ratio("m") == pytest.approx(1.0)


def test_message_bytes_counts_utf8_framing_and_tool_calls() -> None:
    assert utf8_len("héllo") == 6
    assert message_bytes(ChatMessage.user("héllo")) == 26
    tool = ChatMessage.tool_result("id1", "ok", False)
    assert message_bytes(tool) == 2 + 20 + 3 + 10
    call = ToolCall(id="c", function=FunctionCall(name="f", arguments='{"a":1}'))
    assert message_bytes(ChatMessage.assistant("", tool_calls=[call])) == 20 + 1 + 1 + 7 + 24
