"""rho-hooks: lifecycle hooks run as external commands, in Claude Code's hook format.

Hooks are configured in `[[hooks.EVENT]]` tables of rho's config (`matcher`, `command`,
`timeout`, `on_failure`) or, with `[hooks] claude_settings = true`, read from Claude Code's
settings files. A hook gets its event as JSON on stdin and answers with its exit code and
stdout, as in Claude Code; one that fails (another exit code, a timeout, invalid JSON) blocks
unless it says `on_failure = "allow"`.

- `HookCommand`: one hook's table; `HooksTable`: the `[hooks]` section; `EVENTS`: the
  events a hook may be configured for.
- `read_hooks(root, home, report)`: every configured hook, whose it is and whether it is
  trusted (`rho_hooks.sources`).
- `run_hook(hook, payload, root=…, cancel=…)` runs one (`rho_hooks.runner`);
  `interpret(event, hook, run)` says what its run means and `combine(outcomes)` what
  several mean together (`rho_hooks.outcome`).

Each name is imported on first use, keeping pydantic's model building off rho's startup
path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import lazy_exports

if TYPE_CHECKING:
    __version__: str
    from rho_hooks.config import EVENTS, HookCommand, HooksTable
    from rho_hooks.outcome import HookOutcome, combine, interpret
    from rho_hooks.runner import HookRun, run_hook
    from rho_hooks.sources import ConfiguredHook, read_hooks

_LAZY = {
    "EVENTS": "rho_hooks.config",
    "HookCommand": "rho_hooks.config",
    "HooksTable": "rho_hooks.config",
    "HookOutcome": "rho_hooks.outcome",
    "combine": "rho_hooks.outcome",
    "interpret": "rho_hooks.outcome",
    "HookRun": "rho_hooks.runner",
    "run_hook": "rho_hooks.runner",
    "ConfiguredHook": "rho_hooks.sources",
    "read_hooks": "rho_hooks.sources",
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, distribution="rho-hooks")

__all__ = [
    "EVENTS",
    "ConfiguredHook",
    "HookCommand",
    "HookOutcome",
    "HookRun",
    "HooksTable",
    "__version__",
    "combine",
    "interpret",
    "read_hooks",
    "run_hook",
]
