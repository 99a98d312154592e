"""What a server gets from rho's environment: little, and what its config names."""

from __future__ import annotations

from rho_mcp.config import McpServerConfig
from rho_mcp.environment import child_environment, request_headers

ENV = {
    "PATH": "/usr/bin",
    "HOME": "/home/ann",
    "OPENAI_API_KEY": "sk-secret",
    "GITHUB_TOKEN": "ghp-secret",
    "BASH_FUNC_x%%": "() { evil; }",
}


def test_a_child_gets_only_the_base_and_what_it_names() -> None:
    plain = child_environment(McpServerConfig(command="x"), ENV)
    assert plain == {"PATH": "/usr/bin", "HOME": "/home/ann"}
    told = child_environment(
        McpServerConfig(command="x", env_vars=["GITHUB_TOKEN", "UNSET"], env={"MODE": "ro"}), ENV
    )
    assert told == {
        "PATH": "/usr/bin",
        "HOME": "/home/ann",
        "GITHUB_TOKEN": "ghp-secret",
        "MODE": "ro",
    }


def test_headers_come_from_the_config_and_the_environment() -> None:
    config = McpServerConfig(
        url="https://h/mcp",
        bearer_token_env_var="GITHUB_TOKEN",
        http_headers={"X-A": "1"},
        env_http_headers={"X-Key": "MISSING"},
    )
    headers, unset = request_headers(config, ENV)
    assert headers == {"X-A": "1", "Authorization": "Bearer ghp-secret"}
    assert unset == ["MISSING"]
