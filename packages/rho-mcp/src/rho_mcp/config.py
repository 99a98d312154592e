"""`[mcp_servers.NAME]`: one MCP server, with the keys Codex users already write.

A server is started by a command (`command`, `args`, `env`, `env_vars`, `cwd`) or reached at
a URL (`url`, `bearer_token_env_var`, `http_headers`, `env_http_headers`); mixing the two
is an error. Both take `enabled`, `required`, `startup_timeout_sec`, `tool_timeout_sec`,
`enabled_tools`, `disabled_tools`, and rho's own `risk`, `trust_annotations` and `sandbox`.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rho_kernel import NeedsTrust, any_change

#: A server's name: what its tools' names are made from (see `rho_mcp.naming`).
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

#: Variables that make a program load code it was not asked to run: never set for a server.
#: A list of known ones, not a proof: the same file also chooses the command it runs.
SMUGGLING_VARIABLES = frozenset(
    {
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "LD_AUDIT",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONINSPECT",
        "NODE_OPTIONS",
        "NODE_PATH",
        "BASH_ENV",
        "ENV",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "PYTHONUSERBASE",
        "PYTHONWARNINGS",
        "NPM_CONFIG_NODE_OPTIONS",
        "DOTNET_STARTUP_HOOKS",
        "GCONV_PATH",
        "GIT_EXEC_PATH",
        "GIT_SSH_COMMAND",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_GLOBAL",
        "PROMPT_COMMAND",
    }
)
#: Prefixes of such variables (macOS's dynamic loader, git's numbered config entries).
SMUGGLING_PREFIXES = ("DYLD_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")

_COMMAND_KEYS = ("command", "args", "env", "env_vars", "cwd")
_URL_KEYS = ("url", "bearer_token_env_var", "http_headers", "env_http_headers")


def smuggles_code(name: str) -> bool:
    """Whether the environment variable `name` could make the child load other code."""
    upper = name.upper()
    return upper in SMUGGLING_VARIABLES or upper.startswith(SMUGGLING_PREFIXES)


class McpServerConfig(BaseModel):
    """One server: started by `command`, or reached at `url`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    command: str | None = Field(None, min_length=1)
    args: list[str] = []
    env: dict[str, str] = {}
    #: Names of rho's environment variables handed on to the server as they are.
    env_vars: list[str] = []
    cwd: str | None = None
    url: str | None = Field(None, min_length=1)
    bearer_token_env_var: str | None = None
    http_headers: dict[str, str] = {}
    #: Header name → the environment variable its value is read from.
    env_http_headers: dict[str, str] = {}
    enabled: bool = True
    #: Whether a prompt fails when this server cannot be started.
    required: bool = False
    startup_timeout_sec: float = Field(10.0, gt=0, le=600)
    tool_timeout_sec: float = Field(60.0, gt=0, le=86400)
    #: Only these of its tools (None: all of them).
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] = []
    #: The risk of every tool of this server, over what its annotations say.
    risk: Literal["read", "write", "destructive", "network"] | None = None
    #: Whether its tools' annotations (read-only, open-world, destructive) set their risk.
    trust_annotations: bool = False
    #: `confined`: its process runs in the OS sandbox; `unconfined`: as the user. None: the
    #: default of where it is configured (a repository's servers are confined).
    sandbox: Literal["confined", "unconfined"] | None = None
    #: With `sandbox = "confined"`: whether the server may reach the network.
    network: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        given = self.model_fields_set
        command = [key for key in _COMMAND_KEYS if key in given]
        url = [key for key in _URL_KEYS if key in given]
        if command and url:
            raise ValueError(
                f"a server is started by a command or reached at a url, not both: it sets "
                f"{', '.join(command)} and {', '.join(url)}"
            )
        if self.command is None and self.url is None:
            raise ValueError("a server needs `command` (to start it) or `url` (to reach it)")
        return self

    @model_validator(mode="after")
    def _no_smuggling(self) -> McpServerConfig:
        for name in (*self.env, *self.env_vars):
            if smuggles_code(name):
                raise ValueError(
                    f"{name} may not be set for an MCP server: it could make the server "
                    "load code it was not configured to run"
                )
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, not {self.url!r}")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """How rho talks to it: over a child's stdin and stdout, or Streamable HTTP."""
        return "stdio" if self.command is not None else "http"


class McpServersTable(BaseModel):
    """`[mcp_servers]`: server name → its table. Each entry is checked as an
    `McpServerConfig` when the file is read, so a mistake is a startup error naming the file
    (rho-mcp reads each file's entries itself, to know whose they are)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    #: A project's server needs trust (unless it is exactly one of the user's): it names a
    #: command to run. The kernel then leaves it out of an untrusted project's config with
    #: its trust warning, and `rho trust` lists it among the settings trust applies.
    __extra_markers__: ClassVar[tuple[NeedsTrust, ...]] = (NeedsTrust(any_change),)

    @model_validator(mode="after")
    def _servers(self) -> McpServersTable:
        for name, table in (self.model_extra or {}).items():
            name_problem(name)
            server_problem(name, table)
        return self


def name_problem(name: str) -> None:
    """Raise ValueError when `name` cannot name a server: 1 to 64 letters, digits, `_` or
    `-`, without `__` (which separates the server from the tool in `mcp__server__tool`)."""
    if not SERVER_NAME.fullmatch(name) or "__" in name:
        raise ValueError(
            f"server name {name!r}: use 1 to 64 letters, digits, '_' or '-', without '__'"
        )


def server_problem(name: str, table: Any) -> McpServerConfig:
    """`table` as a server's config; raises ValueError naming the server and the problem.

    A plainly valid table is made without building a validator (`constructed`): the config
    is read before `ready`, where pydantic's first build of this model would cost a start
    about 15 ms."""
    from rho_kernel.frontend import constructed

    if not isinstance(table, dict):
        raise ValueError(f"{name}: a server is a table, not {type(table).__name__}")
    try:
        made = constructed(McpServerConfig, table)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if made is not None:
        return made
    try:
        return McpServerConfig.model_validate(table)
    except ValidationError as exc:
        problems = "; ".join(_problem(error) for error in exc.errors())
        raise ValueError(f"{name}: {problems}") from None


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


__all__ = [
    "SERVER_NAME",
    "SMUGGLING_PREFIXES",
    "SMUGGLING_VARIABLES",
    "McpServerConfig",
    "McpServersTable",
    "name_problem",
    "server_problem",
    "smuggles_code",
]
