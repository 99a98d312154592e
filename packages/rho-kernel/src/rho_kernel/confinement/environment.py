"""The dynamic loader's variables never reach a sandbox's launcher, only what runs inside.

A confined process is started through a launcher that runs unconfined until it has set the
sandbox up: `bwrap`, or the Landlock launcher's Python. The dynamic loader reads `LD_PRELOAD`,
`LD_LIBRARY_PATH`, `LD_AUDIT`, `GLIBC_TUNABLES`, `GCONV_PATH`, … before any of that code runs,
so such a variable in the environment a process is given (an MCP server's `env` in a trusted
repository's `.mcp.json`, naming a library a confined command wrote into the project) would
run code outside the sandbox. `split` takes them out of the launcher's environment; the
backend sets them inside, for the command only (`ConfinementPolicy.environment`: bwrap's
`--setenv`, the Landlock launcher's document), or — for a backend that cannot — `env_prefix`
has `env` set them inside the sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Variables besides `LD_*` that make the C library load or run something of the caller's.
LOADER_VARIABLES = frozenset(
    {"GCONV_PATH", "GLIBC_TUNABLES", "HOSTALIASES", "LOCPATH", "MALLOC_TRACE", "NLSPATH"}
)


def loader_variable(name: str) -> bool:
    """Whether `name` is read by the dynamic loader or the C library to load code."""
    return name.startswith("LD_") or name in LOADER_VARIABLES


def split(env: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(inner, outer): the loader's variables of `env`, and the rest (the launcher's)."""
    inner = {name: value for name, value in env.items() if loader_variable(name)}
    return inner, {name: value for name, value in env.items() if name not in inner}


def env_prefix(inner: Mapping[str, str]) -> list[str]:
    """The argv prefix that sets `inner` and then runs the command (`env`, found inside
    the sandbox); empty when there is nothing to set."""
    if not inner:
        return []
    return ["env", *(f"{name}={value}" for name, value in inner.items())]


__all__ = ["LOADER_VARIABLES", "env_prefix", "loader_variable", "split"]
