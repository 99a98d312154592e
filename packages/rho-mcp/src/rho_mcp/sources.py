"""Where servers are configured: the user's `~/.rho/config.toml`, the project's
`.rho/config.toml` and Claude Code's project file `.mcp.json`.

Each is read here, not from the merged config, because whose a server is matters: a
repository's servers run commands the repository chose, so they start only while the user
trusts the file that names them (`rho trust`), and run in the OS sandbox unless it says
otherwise. Later sources replace earlier servers of the same name: the user's file, then
`.mcp.json`, then the project's `.rho/config.toml`.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rho_kernel import read_regular_file, user_home
from rho_kernel.security import TrustStore
from rho_mcp.config import McpServerConfig, name_problem, server_problem
from rho_mcp.expansion import expand

#: Claude Code's project file, relative to the project root (as `rho trust` records it).
MCP_JSON = ".mcp.json"
PROJECT_CONFIG = ".rho/config.toml"
#: Larger config files are refused.
MAX_CONFIG_BYTES = 1 << 20

Origin = Literal["user", "project", "mcp.json"]


@dataclass(slots=True)
class ServerSpec:
    """A configured server: its config, the file it comes from and whether it may start.

    `problem` says why it cannot start as configured (an unset variable, say); `trusted` is
    False for a repository's server the user has not trusted."""

    name: str
    config: McpServerConfig
    origin: Origin
    path: Path
    trusted: bool = True
    problem: str | None = None

    @property
    def confined(self) -> bool:
        """Whether its process runs in the OS sandbox (a repository's server does unless its
        config says `sandbox = "unconfined"`)."""
        if self.config.sandbox is not None:
            return self.config.sandbox == "confined"
        return self.origin != "user"


@dataclass(slots=True)
class Sources:
    """Every configured server by name, and the repository's servers left out untrusted."""

    servers: dict[str, ServerSpec] = field(default_factory=dict)
    untrusted: dict[Path, list[str]] = field(default_factory=dict)


def read_sources(
    root: Path,
    home: Path | None,
    environ: Mapping[str, str],
    report: Callable[[str], None],
) -> Sources:
    """The servers configured for the project at `root` (see the module docstring)."""
    sources = Sources()
    user_path = user_home(home) / ".rho" / "config.toml"
    project_path = root / PROJECT_CONFIG
    store: TrustStore | None = None

    def trusted(rel: str, data: bytes) -> bool:
        nonlocal store
        if store is None:
            store = TrustStore.load(home, warn=report)
        return store.is_trusted(root, rel, data)

    data = _read(user_path, report)
    if data is not None:
        _add_toml(sources, user_path, data, "user", True, report)
    data = _read(root / MCP_JSON, report, follow=False)
    if data is not None:
        _add_mcp_json(sources, root / MCP_JSON, data, trusted(MCP_JSON, data), environ, report)
    if not _same_file(user_path, project_path):
        data = _read(project_path, report)
        if data is not None:
            ok = trusted(PROJECT_CONFIG, data)
            _add_toml(sources, project_path, data, "project", ok, report)
    return sources


def _read(path: Path, report: Callable[[str], None], *, follow: bool = True) -> bytes | None:
    """The bytes of `path`; None when it is missing or cannot be read (then reported). A
    link is followed only with `follow` (`rho trust` records no linked `.mcp.json`)."""
    if not follow and path.is_symlink():
        report(f"{path}: MCP servers not read: it is a symbolic link (rho reads only a file)")
        return None
    try:
        return read_regular_file(path, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        report(f"{path}: MCP servers not read: {exc}")
        return None


def _same_file(first: Path, second: Path) -> bool:
    try:
        return first.samefile(second)
    except OSError:
        return False


def _add(sources: Sources, spec: ServerSpec) -> None:
    if not spec.trusted:
        sources.untrusted.setdefault(spec.path, []).append(spec.name)
        if spec.name in sources.servers:
            return  # the user's own server of that name stays
    sources.servers[spec.name] = spec


def _add_toml(
    sources: Sources,
    path: Path,
    data: bytes,
    origin: Origin,
    trusted: bool,
    report: Callable[[str], None],
) -> None:
    # The kernel has already read this file and refused it when its [mcp_servers] is
    # invalid; a file changed since then is read as it is now.
    try:
        table = tomllib.loads(data.decode("utf-8")).get("mcp_servers", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        report(f"{path}: MCP servers not read: {exc}")
        return
    if not isinstance(table, dict):
        return
    for name, entry in table.items():
        try:
            name_problem(name)
            config = server_problem(name, entry)
        except ValueError as exc:
            report(f"{path}: [mcp_servers.{name}] skipped: {exc}")
            continue
        _add(sources, ServerSpec(name, config, origin, path, trusted))


def _add_mcp_json(
    sources: Sources,
    path: Path,
    data: bytes,
    trusted: bool,
    environ: Mapping[str, str],
    report: Callable[[str], None],
) -> None:
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        report(f"{path}: MCP servers not read: not JSON ({exc})")
        return
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        if servers is not None:
            report(f"{path}: MCP servers not read: mcpServers is not an object")
        return
    for raw_name, entry in servers.items():
        name = _server_name(str(raw_name))
        try:
            config, missing = claude_server(entry, environ)
        except ValueError as exc:
            report(f"{path}: server {raw_name!r} skipped: {exc}")
            continue
        problem = None
        if missing:
            unset = ", ".join(sorted(set(missing)))
            problem = f"{path} uses environment variables that are not set: {unset}"
        _add(sources, ServerSpec(name, config, "mcp.json", path, trusted, problem))


def _server_name(raw: str) -> str:
    """A `.mcp.json` name made a server name (other characters and `__` become `_`)."""
    name = re.sub(r"_{2,}", "_", re.sub(r"[^A-Za-z0-9_-]", "_", raw))[:64]
    return name or "server"


def claude_server(entry: Any, environ: Mapping[str, str]) -> tuple[McpServerConfig, list[str]]:
    """A `.mcp.json` server entry as a server config, its `${VAR}`s expanded, and the names
    of the variables it uses that are not set. Raises ValueError for an entry rho cannot
    run (an SSE server, a malformed entry)."""
    if not isinstance(entry, dict):
        raise ValueError("a server is an object")
    missing: list[str] = []

    def text(value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise ValueError(f"{key} is not a string")
        return expand(value, environ, missing)

    def texts(value: Any, key: str) -> dict[str, str]:
        if not isinstance(value, dict):
            raise ValueError(f"{key} is not an object")
        return {str(k): text(v, f"{key}.{k}") for k, v in value.items()}

    kind = entry.get("type", "stdio" if "command" in entry else "http")
    table: dict[str, Any]
    if kind == "stdio":
        args = entry.get("args", [])
        if not isinstance(args, list):
            raise ValueError("args is not a list")
        table = {
            "command": text(entry.get("command"), "command"),
            "args": [text(arg, "args") for arg in args],
            "env": texts(entry.get("env", {}), "env"),
        }
        if "cwd" in entry:
            table["cwd"] = text(entry["cwd"], "cwd")
    elif kind in ("http", "streamable-http", "streamableHttp"):
        table = {
            "url": text(entry.get("url"), "url"),
            "http_headers": texts(entry.get("headers", {}), "headers"),
        }
    else:
        raise ValueError(f"transport {kind!r} is not supported (use stdio or http)")
    return server_problem("server", table), missing


def untrusted_message(path: Path, names: list[str]) -> str:
    """What rho says, once, of a repository's servers that do not start untrusted."""
    listed = ", ".join(sorted(names))
    return (
        f"{path}: MCP servers not started ({listed}): they run commands this project chose, "
        "and the project is not trusted; review them, then run 'rho trust' in it"
    )


__all__ = [
    "MCP_JSON",
    "Origin",
    "ServerSpec",
    "Sources",
    "any_configured",
    "claude_server",
    "read_sources",
    "untrusted_message",
]


def any_configured(root: Path, home: Path | None) -> bool:
    """Whether any file may configure a server (a quick look, before reading them)."""
    candidates = (user_home(home) / ".rho" / "config.toml", root / PROJECT_CONFIG)
    for path in candidates:
        try:
            data = read_regular_file(path, limit=MAX_CONFIG_BYTES)
        except OSError:
            continue
        if b"mcp_servers" in data:
            return True
    return (root / MCP_JSON).is_file()
