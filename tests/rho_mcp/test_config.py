"""`[mcp_servers.NAME]`: the Codex keys, one transport per server, no code smuggled in."""

from __future__ import annotations

import pytest

from rho_kernel import Risk
from rho_mcp.config import McpServersTable, server_problem, smuggles_code


def test_a_command_server_with_every_key() -> None:
    config = server_problem(
        "gh",
        {
            "command": "npx",
            "args": ["-y", "server"],
            "env": {"MODE": "ro"},
            "env_vars": ["GITHUB_TOKEN"],
            "cwd": "tools",
            "enabled_tools": ["search"],
            "disabled_tools": ["delete"],
            "risk": "read",
            "trust_annotations": True,
            "required": True,
        },
    )
    assert config.transport == "stdio" and config.risk == Risk.READ
    assert (config.startup_timeout_sec, config.tool_timeout_sec) == (10.0, 60.0)


def test_a_url_server() -> None:
    config = server_problem(
        "docs",
        {
            "url": "https://example.org/mcp",
            "bearer_token_env_var": "DOCS_TOKEN",
            "http_headers": {"X-Team": "rho"},
            "env_http_headers": {"X-Key": "DOCS_KEY"},
        },
    )
    assert config.transport == "http"


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"command": "x", "url": "http://h/mcp"}, "not both"),
        ({"args": ["x"], "http_headers": {}}, "not both"),
        ({"env": {}}, "needs `command`"),
        ({"url": "file:///etc/passwd"}, "http:// or https://"),
        ({"command": "x", "env": {"LD_PRELOAD": "/e.so"}}, "LD_PRELOAD may not be set"),
        ({"command": "x", "env": {"DYLD_INSERT_LIBRARIES": "/e"}}, "DYLD_INSERT_LIBRARIES"),
        ({"command": "x", "env_vars": ["NODE_OPTIONS"]}, "NODE_OPTIONS"),
        ({"command": "x", "startup_timeout_sec": 0}, "startup_timeout_sec"),
        ({"command": "x", "colour": "red"}, "colour"),
        ({"command": "x", "risk": "harmless"}, "risk"),
    ],
)
def test_a_wrong_table_names_the_server_and_the_problem(
    table: dict[str, object], words: str
) -> None:
    with pytest.raises(ValueError, match=r"^bad: ") as info:
        server_problem("bad", table)
    assert words in str(info.value)


def test_the_section_checks_every_server_and_its_name() -> None:
    McpServersTable.model_validate({"ok": {"command": "x"}})
    with pytest.raises(ValueError, match="mixed: "):
        McpServersTable.model_validate(
            {"ok": {"command": "x"}, "mixed": {"command": "x", "url": "http://h"}}
        )
    with pytest.raises(ValueError, match="server name 'has space'"):
        McpServersTable.model_validate({"has space": {"command": "x"}})


@pytest.mark.parametrize(
    "name", ["LD_PRELOAD", "ld_audit", "PYTHONPATH", "DYLD_LIBRARY_PATH", "BASH_ENV"]
)
def test_code_loading_variables_are_recognised(name: str) -> None:
    assert smuggles_code(name)


@pytest.mark.parametrize("name", ["PATH", "GITHUB_TOKEN", "LANG", "NODE_ENV"])
def test_ordinary_variables_are_not(name: str) -> None:
    assert not smuggles_code(name)
