"""`${VAR}` and `${VAR:-default}` in `.mcp.json`, as Claude Code expands them."""

from __future__ import annotations

from rho_mcp.expansion import expand


def test_variables_and_defaults() -> None:
    missing: list[str] = []
    env = {"HOME": "/home/ann", "EMPTY": ""}
    assert expand("${HOME}/bin", env, missing) == "/home/ann/bin"
    assert expand("${UNSET:-fallback}", env, missing) == "fallback"
    assert expand("${EMPTY:-fallback}", env, missing) == "fallback"
    assert expand("${HOME:-x}", env, missing) == "/home/ann"
    assert expand("$HOME and ${} stay", env, missing) == "$HOME and ${} stay"
    assert missing == []


def test_an_unset_variable_without_default_is_named() -> None:
    missing: list[str] = []
    assert expand("key=${API_KEY}", {}, missing) == "key="
    assert missing == ["API_KEY"]
