"""The process runner: every process a tool starts goes through `run_process`.

- `run_process(argv, root=ctx.root, cwd=…, input=…, timeout=…, max_output_bytes=…,
  on_output=ctx.report_output, cancel=ctx.cancel)` runs a command in its own process
  group with its working directory inside the sandbox, stops the whole group on timeout
  or cancellation, keeps the head and tail of its output, and streams live output,
  throttled, in whole lines (`live_filter` rewrites each); it returns a `ProcessResult`.
- `find_shell(program)` gives the `ShellProgram` (bash or PowerShell) that runs command
  lines, `command_environment(remove)` the environment they get (model API keys removed).
- `die_with_parent()` is the `preexec_fn` that makes a child die with rho (Linux); use it
  for any process a pack starts itself (`run_process` always does), or the cheaper argv
  prefix `die_with_parent_argv()` where there is one.
- `Launcher` is the seam for confinement: a function that rewrites the argv before start;
  one that also hands the process file descriptors gives a `Launch` (`process.launch`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.process.capture import CappedOutput
    from rho_kernel.process.errors import ProcessStartError
    from rho_kernel.process.launch import Launch, launching
    from rho_kernel.process.live import LiveOutput, OutputCallback
    from rho_kernel.process.live_lines import LineFilter, LiveLines
    from rho_kernel.process.orphans import die_with_parent, die_with_parent_argv
    from rho_kernel.process.runner import (
        DEFAULT_KILL_GRACE,
        Launcher,
        ProcessResult,
        resolve_cwd,
        run_process,
    )
    from rho_kernel.process.shell import (
        SECRET_PATTERNS,
        ShellNotFoundError,
        ShellProgram,
        command_environment,
        find_shell,
    )

_ORIGIN = exports_of(
    {
        "rho_kernel.process.capture": ("CappedOutput",),
        "rho_kernel.process.errors": ("ProcessStartError",),
        "rho_kernel.process.launch": ("Launch", "launching"),
        "rho_kernel.process.live": ("LiveOutput", "OutputCallback"),
        "rho_kernel.process.live_lines": ("LineFilter", "LiveLines"),
        "rho_kernel.process.orphans": ("die_with_parent", "die_with_parent_argv"),
        "rho_kernel.process.runner": (
            "DEFAULT_KILL_GRACE",
            "Launcher",
            "ProcessResult",
            "resolve_cwd",
            "run_process",
        ),
        "rho_kernel.process.shell": (
            "SECRET_PATTERNS",
            "ShellNotFoundError",
            "ShellProgram",
            "command_environment",
            "find_shell",
        ),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "DEFAULT_KILL_GRACE",
    "SECRET_PATTERNS",
    "CappedOutput",
    "Launch",
    "Launcher",
    "LineFilter",
    "LiveLines",
    "LiveOutput",
    "OutputCallback",
    "ProcessResult",
    "ProcessStartError",
    "ShellNotFoundError",
    "ShellProgram",
    "command_environment",
    "die_with_parent",
    "die_with_parent_argv",
    "find_shell",
    "launching",
    "resolve_cwd",
    "run_process",
]
