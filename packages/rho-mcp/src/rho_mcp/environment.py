"""What a server gets: the environment of its process, the headers of its requests.

A child gets a few harmless variables of rho's environment (where it is, who runs it, the
locale), what `env_vars` forwards and what `env` sets; nothing else, so no API key reaches a
server unless its config names it.
"""

from __future__ import annotations

from collections.abc import Mapping

from rho_mcp.config import McpServerConfig

#: rho's variables every stdio server gets, when set.
BASE_VARIABLES = (
    "HOME",
    "LOGNAME",
    "USER",
    "PATH",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TZ",
)


def child_environment(config: McpServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of a stdio server's process."""
    env = {name: environ[name] for name in BASE_VARIABLES if name in environ}
    env.update({name: environ[name] for name in config.env_vars if name in environ})
    env.update(config.env)
    # A shell function exported in the environment is code: never hand one on.
    return {name: value for name, value in env.items() if not value.startswith("() {")}


def request_headers(
    config: McpServerConfig, environ: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """The headers of an HTTP server's requests, and the variables they name that are not
    set (their headers are left out)."""
    headers = dict(config.http_headers)
    unset: list[str] = []
    for header, variable in config.env_http_headers.items():
        if variable in environ:
            headers[header] = environ[variable]
        else:
            unset.append(variable)
    if config.bearer_token_env_var is not None:
        token = environ.get(config.bearer_token_env_var)
        if token:
            headers["Authorization"] = f"Bearer {token}"
        else:
            unset.append(config.bearer_token_env_var)
    return headers, unset


__all__ = ["BASE_VARIABLES", "child_environment", "request_headers"]
