"""The dynamic loader's variables never reach a sandbox's launcher, only what runs inside.

A confined process is started through a launcher that runs unconfined until it has set the
sandbox up: `bwrap`, or the Landlock launcher's Python. The dynamic loader reads `LD_PRELOAD`,
`LD_LIBRARY_PATH`, `LD_AUDIT`, `GLIBC_TUNABLES`, `GCONV_PATH`, … before any of that code runs,
so such a variable in the environment a process is given (an MCP server's `env` in a trusted
repository's `.mcp.json`, naming a library a confined command wrote into the project) would
run code outside the sandbox. `split` takes them out of the launcher's environment and has a
small program inside the sandbox put them back just before the command starts.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Mapping

#: Variables besides `LD_*` that make the C library load or run something of the caller's.
LOADER_VARIABLES = frozenset(
    {"GCONV_PATH", "GLIBC_TUNABLES", "HOSTALIASES", "LOCPATH", "MALLOC_TRACE", "NLSPATH"}
)
#: The program that restores them inside the sandbox and becomes the command.
_RESTORE = (
    "import marshal,os,sys\n"
    "os.environ.update(marshal.loads(bytes.fromhex(sys.argv[1])))\n"
    "try:\n"
    "    os.execvp(sys.argv[3],sys.argv[3:])\n"
    "except OSError as e:\n"
    "    sys.stderr.write('rho sandbox: %s: %s\\n'%(sys.argv[3],e.strerror));sys.exit(127)\n"
)


def loader_variable(name: str) -> bool:
    """Whether `name` is read by the dynamic loader or the C library to load code."""
    return name.startswith("LD_") or name in LOADER_VARIABLES


def split(argv: list[str], env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """(argv, env) for the launcher: unchanged without loader variables; otherwise the
    environment without them and `argv` behind the program that restores them."""
    moved = {name: value for name, value in env.items() if loader_variable(name)}
    outer = {name: value for name, value in env.items() if name not in moved}
    if not moved:
        return list(argv), outer
    restore = [sys.executable, "-I", "-S", "-B", "-c", _RESTORE, marshal.dumps(moved, 4).hex()]
    return [*restore, "--", *argv], outer


__all__ = ["LOADER_VARIABLES", "loader_variable", "split"]
