"""Subcommands that installed packs add to `rho` (`rho acp`, say).

A pack declares one as an entry point in the group `rho.subcommands`: `acp =
"rho_acp.cli:main"`. `rho NAME ARGS…` loads it and calls `main(ARGS, runtime_options)`, where
`runtime_options(argv, prog)` parses rho's usual flags (`--model`, `--endpoint`, …) into
`RuntimeOptions` or gives the exit code after saying why they cannot work; `main` returns
rho's exit code. The group is read only when the first argument is a word, never on a plain
start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The entry-point group of subcommands.
GROUP = "rho.subcommands"


def run_subcommand(name: str, argv: list[str], runtime_options: Callable[..., Any]) -> int:
    """Run subcommand `name` with `argv`; exit code 2 (said on stderr) when none is
    installed by that name or it cannot be loaded."""
    from importlib.metadata import entry_points

    from rho_kernel import diagnostics

    found = sorted(entry_points(group=GROUP, name=name), key=lambda point: point.value)
    if not found:
        known = sorted({point.name for point in entry_points(group=GROUP)})
        offered = f" (installed: {', '.join(known)})" if known else ""
        diagnostics.error(f"unknown command {name!r}{offered}; see 'rho --help'")
        return 2
    try:
        main = found[0].load()
    except Exception as exc:  # a broken pack: one line, no traceback
        diagnostics.error(f"the command {name!r} cannot be loaded: {exc}")
        return 2
    try:
        code = main(argv, runtime_options)
    except Exception as exc:  # last resort: one line on stderr, never a traceback
        diagnostics.error(f"internal error in 'rho {name}': {type(exc).__name__}: {exc}")
        return 1
    return code if isinstance(code, int) else 0


__all__ = ["GROUP", "run_subcommand"]
