"""Where servers come from: whose they are, whether they may start, and how they run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rho_kernel.security import TrustStore
from rho_mcp.sources import claude_server, read_sources


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".rho").mkdir(parents=True)
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    (path / ".rho").mkdir(parents=True)
    return path


def _read(root: Path, home: Path, env: dict[str, str] | None = None) -> tuple[object, list[str]]:
    reports: list[str] = []
    return read_sources(root, home, env or {}, reports.append), reports


def test_the_users_servers_run_unconfined_and_a_projects_wait_for_trust(
    root: Path, home: Path
) -> None:
    (home / ".rho" / "config.toml").write_text('[mcp_servers.mine]\ncommand = "mine"\n')
    project = '[mcp_servers.theirs]\ncommand = "theirs"\n[mcp_servers.mine]\ncommand = "evil"\n'
    (root / ".rho" / "config.toml").write_text(project)
    sources, reports = _read(root, home)
    assert sources.servers["mine"].config.command == "mine"  # not replaced while untrusted
    assert sources.servers["mine"].confined is False
    assert sources.servers["theirs"].trusted is False
    assert sources.untrusted == {root / ".rho" / "config.toml": ["theirs", "mine"]}
    assert reports == []

    TrustStore.load(home).trust(root, ".rho/config.toml", project.encode())
    sources, _ = _read(root, home)
    assert sources.servers["mine"].config.command == "evil"  # trusted: the project's wins
    assert sources.servers["theirs"].trusted and sources.servers["theirs"].confined
    assert sources.untrusted == {}


def test_a_project_server_may_ask_to_run_unconfined(root: Path, home: Path) -> None:
    project = '[mcp_servers.db]\ncommand = "db"\nsandbox = "unconfined"\n'
    (root / ".rho" / "config.toml").write_text(project)
    TrustStore.load(home).trust(root, ".rho/config.toml", project.encode())
    sources, _ = _read(root, home)
    assert sources.servers["db"].confined is False


def test_mcp_json_is_read_with_its_variables_and_trust(root: Path, home: Path) -> None:
    document = {
        "mcpServers": {
            "gh": {"command": "${TOOLS}/gh-mcp", "args": ["--token", "${GH_TOKEN}"]},
            "web": {
                "type": "http",
                "url": "${BASE:-http://127.0.0.1:9}/mcp",
                "headers": {"A": "b"},
            },
            "old": {"type": "sse", "url": "http://h/sse"},
            "odd name!": {"command": "x"},
        }
    }
    data = json.dumps(document).encode()
    (root / ".mcp.json").write_bytes(data)
    TrustStore.load(home).trust(root, ".mcp.json", data)
    sources, reports = _read(root, home, {"TOOLS": "/opt"})
    gh = sources.servers["gh"]
    assert (gh.config.command, gh.config.args, gh.origin) == (
        "/opt/gh-mcp",
        ["--token", ""],
        "mcp.json",
    )
    assert gh.problem is not None and "GH_TOKEN" in gh.problem
    web = sources.servers["web"]
    assert web.config.url == "http://127.0.0.1:9/mcp" and web.config.http_headers == {"A": "b"}
    assert "odd_name_" in sources.servers
    assert "old" not in sources.servers and "'sse' is not supported" in " ".join(reports)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{not json", "not JSON"),
        (b'{"mcpServers": []}', "not an object"),
        (b'{"mcpServers": {"x": {"command": 5}}}', "command is not a string"),
    ],
)
def test_a_broken_mcp_json_is_reported_and_skipped(
    root: Path, home: Path, content: bytes, words: str
) -> None:
    (root / ".mcp.json").write_bytes(content)
    sources, reports = _read(root, home)
    assert sources.servers == {} and any(words in r for r in reports)


def test_a_fifo_in_place_of_mcp_json_never_blocks(root: Path, home: Path) -> None:
    import os

    os.mkfifo(root / ".mcp.json")
    sources, reports = _read(root, home)
    assert sources.servers == {} and reports and ".mcp.json" in reports[0]


def test_claude_entries_keep_their_environment_rules() -> None:
    with pytest.raises(ValueError, match="LD_PRELOAD"):
        claude_server({"command": "x", "env": {"LD_PRELOAD": "/e.so"}}, {})


def test_a_deeply_nested_mcp_json_is_reported_not_fatal(root: Path, home: Path) -> None:
    (home / ".rho" / "config.toml").write_text('[mcp_servers.mine]\ncommand = "mine"\n')
    (root / ".mcp.json").write_text('{"mcpServers": ' + "[" * 100_000 + "]" * 100_000 + "}")
    sources, reports = _read(root, home)
    assert list(sources.servers) == ["mine"]  # the user's servers still start
    assert any("MCP servers not read" in r for r in reports)


def test_a_linked_mcp_json_is_not_read(root: Path, home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"mcpServers": {"x": {"command": "x"}}}')
    (root / ".mcp.json").symlink_to(elsewhere)
    sources, reports = _read(root, home)
    assert sources.servers == {} and "symbolic link" in reports[0]


def test_names_are_made_safe(root: Path, home: Path) -> None:
    (root / ".mcp.json").write_text('{"mcpServers": {"a__b/../../x": {"command": "x"}}}')
    sources, _ = _read(root, home)
    assert list(sources.servers) == ["a_b_x"]
    (home / ".rho" / "config.toml").write_text('[mcp_servers."../x"]\ncommand = "x"\n')
    sources, reports = _read(root, home)
    assert "../x" not in sources.servers and any("server name '../x'" in r for r in reports)


def test_rho_trust_names_a_projects_servers_among_the_settings_it_applies(
    root: Path, home: Path
) -> None:
    from rho_kernel.config import loosening_settings
    from rho_mcp.config import McpServersTable

    (home / ".rho" / "config.toml").write_text('[mcp_servers.mine]\ncommand = "mine"\n')
    data = b'[mcp_servers.mine]\ncommand = "mine"\n[mcp_servers.evil]\ncommand = "sh"\n'
    sections = {"mcp_servers": McpServersTable}
    assert loosening_settings(root, data, home=home, sections=sections) == ["mcp_servers.evil"]
