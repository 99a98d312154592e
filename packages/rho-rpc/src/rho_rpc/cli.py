"""The `rho` command line."""

from __future__ import annotations

import argparse
import os
import sys

# Neither `typing` nor `pathlib` is imported for `rho --help` and `--version`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from rho_kernel.frontend import EarlyStart, Runtime, RuntimeOptions
    from rho_rpc.transport import StdinPump

DESCRIPTION = (
    "rho: a headless coding agent. Speaks JSON-RPC 2.0 (one JSON message per line) on "
    "stdin/stdout; diagnostics go to stderr. See docs/protocol.md."
)
EPILOG = (
    "rho exec [FLAGS] PROMPT: run one prompt and exit, for terminals, scripts and CI (see "
    "'rho exec --help'). "
    "rho trust [--list | --revoke] [--root PATH]: trust this project's .rho/config.toml as it "
    "is now, so that its settings that loosen yours apply (see 'rho trust --help'). "
    "Installed packs add subcommands of their own, e.g. 'rho acp' (rho-acp)."
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also used to document the flags)."""
    parser = argparse.ArgumentParser(prog="rho", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("-m", "--model", help="model id (overrides config)")
    parser.add_argument(
        "--endpoint",
        help="Chat Completions endpoint URL (implies consent to send data there)",
    )
    parser.add_argument(
        "--api-key-env", metavar="VAR", help="environment variable holding the API key"
    )
    parser.add_argument(
        "--accept-external-provider",
        action="store_true",
        help="consent to sending prompts and code to the configured non-local providers",
    )
    parser.add_argument("--root", type=_path, help="project root (default: detected from the cwd)")
    parser.add_argument(
        "--max-iterations", type=int, metavar="N", help="model round trips per prompt"
    )
    parser.add_argument("--token-budget", type=int, metavar="N", help="context window in tokens")
    parser.add_argument(
        "-s", "--system", metavar="PROMPT", help="replace the built-in system prompt"
    )
    parser.add_argument(
        "--compact", action="store_true", help="use the short system prompt (for small models)"
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="RULE",
        help="run the calls RULE covers without asking, e.g. 'run_command(cargo test:*)' or "
        "'edit_file(src/**)' (repeatable; see docs/approvals.md)",
    )
    parser.add_argument(
        "--approval-mode",
        choices=("ask", "auto-edit", "read-only", "auto"),
        help="how much runs without asking: ask (as the approval policy says), auto-edit "
        "(also file writes in the project), read-only (only tools that read; others are "
        "refused), auto (everything; commands stay in the OS sandbox, and where none works "
        "they still ask); over [approval] mode",
    )
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help='run the model\'s commands with no OS sandbox at all ([sandbox] mode = "off"): '
        "they can read your credentials and write anywhere you can",
    )
    parser.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="RULE",
        help="never run the calls RULE covers; deny beats allow (repeatable)",
    )
    sessions = parser.add_mutually_exclusive_group()
    sessions.add_argument(
        "--ephemeral", action="store_true", help="keep the session in memory only"
    )
    sessions.add_argument(
        "-c",
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume the most recent session of this project",
    )
    sessions.add_argument(
        "--session",
        metavar="PATH|ID",
        help="resume this session: its file, or its id (or a unique prefix of it) as "
        "listSessions shows it",
    )
    parser.add_argument(
        "--plugins",
        action="store_true",
        help="list the installed plugins (distribution, version, hooks, tools, RPC methods, "
        "load errors) and exit",
    )
    parser.add_argument(
        "--version",
        action=_VersionAction,
        help="print rho's version and each installed pack's, and exit",
    )
    return parser


def _path(text: str) -> Path:
    """`--root`'s value as a path."""
    from pathlib import Path

    return Path(text)


class _VersionAction(argparse.Action):
    """`--version`: rho's version and each installed pack's (read only when asked for)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from rho_rpc import __version__
        from rho_rpc.distributions import version_text

        print(version_text(__version__))
        parser.exit()


#: The smallest value of each numeric flag: that of its `[agent]` key in the config schema
#: (`AgentConfig`'s `ge` bounds; a test keeps them equal), known here without loading it.
FLAG_MINIMUMS = {"max_iterations": 1, "token_budget": 256}


def flag_problem(args: argparse.Namespace) -> str | None:
    """Why the parsed flags cannot work (one line, no traceback), or None when they can.

    Numeric overrides must meet the bounds the config file has for the same keys, and
    `--endpoint` must be an http(s) URL with a host (shown with its credentials masked).
    """
    for flag, field, value in (
        ("--max-iterations", "max_iterations", args.max_iterations),
        ("--token-budget", "token_budget", args.token_budget),
    ):
        if value is None:
            continue
        minimum = FLAG_MINIMUMS[field]
        if value < minimum:
            return f"{flag} must be at least {minimum} (got {value})"
    if args.endpoint is not None:
        from rho_kernel.frontend import endpoint_problem, mask_url

        problem = endpoint_problem(args.endpoint)
        if problem is not None:
            return (
                f"--endpoint {mask_url(args.endpoint)!r} {problem}; pass the full URL, e.g. "
                "http://localhost:1234/v1/chat/completions"
            )
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `rho` console script; returns the exit code."""
    from rho_rpc import startup_gc

    startup_gc.pause()  # resumed once `ready` is sent (or never: the process is about to exit)
    # pydantic's own plugin discovery scans every installed distribution on first model
    # creation; rho uses none, and the scan would sit on the startup path.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["trust"]:
        from rho_rpc.trust_command import main as trust

        return trust(arguments[1:])
    if arguments[:1] == ["exec"]:
        from rho_rpc.execute.command import main as execute

        return execute(arguments[1:])
    if arguments and not arguments[0].startswith("-"):
        from rho_rpc.subcommands import run_subcommand

        return run_subcommand(arguments[0], arguments[1:], runtime_options)
    args = build_parser().parse_args(arguments)
    from rho_kernel import diagnostics

    problem = flag_problem(args)
    if problem is not None:
        diagnostics.error(problem)
        return 2
    early = None if args.plugins else _early_start(args)
    if early is not None:
        return _serve_early(args, early)
    runtime = _build_runtime(args)
    if isinstance(runtime, int):
        return runtime
    if args.plugins:
        from rho_rpc.plugin_listing import print_listing

        return print_listing(runtime)
    return _serve(runtime)


def _early_start(args: argparse.Namespace) -> EarlyStart | None:
    """What `ready` can say before the runtime loads (None: only the load can tell)."""
    from pathlib import Path

    from rho_kernel.frontend import early_start

    return early_start(
        cwd=Path.cwd(),
        root=args.root,
        model=args.model,
        endpoint=args.endpoint,
        accept_external_provider=args.accept_external_provider,
        ephemeral=args.ephemeral,
        resumes=args.continue_latest or args.session is not None,
    )


def _serve_early(args: argparse.Namespace, early: EarlyStart) -> int:
    """Send `ready`, then load the runtime and serve the requests read meanwhile."""
    from rho_rpc.early_ready import announce

    stdin, announced = announce(early)
    runtime = _build_runtime(args, new_session=early.new_session)
    if isinstance(runtime, int):
        return runtime
    return _serve(runtime, stdin=stdin, announced=announced)


def runtime_options(argv: list[str], prog: str = "rho") -> RuntimeOptions | int:
    """The runtime options rho's usual flags in `argv` describe (for a subcommand that runs
    rho its own way), or the exit code (2) after saying on stderr why they cannot work.
    `--plugins` and `--version` act as for `rho` itself."""
    from rho_kernel import diagnostics

    parser = build_parser()
    parser.prog = prog
    args = parser.parse_args(argv)
    problem = flag_problem(args)
    if problem is not None:
        diagnostics.error(problem)
        return 2
    options = _runtime_options(args)
    options.plugin_modules = ()
    return options


def _build_runtime(
    args: argparse.Namespace, *, new_session: tuple[int, str] | None = None
) -> Runtime | int:
    """The runtime the flags describe (its new session created at and named as
    `new_session` says, when given), or the exit code (2) after saying why it cannot start."""
    from rho_kernel import SandboxError, diagnostics
    from rho_kernel.frontend import ConfigError, ConsentRequired, Runtime, StartupError

    options = _runtime_options(args)
    options.new_session = new_session
    try:
        return Runtime.build(options)
    except ConsentRequired as exc:
        diagnostics.error("not sending prompts and code off this machine without consent")
        print(str(exc), file=sys.stderr)
    except (ConfigError, StartupError, SandboxError) as exc:
        diagnostics.error(str(exc))
    except OSError as exc:  # e.g. the sessions directory cannot be created
        diagnostics.error(str(exc))
    return 2


def _runtime_options(args: argparse.Namespace) -> RuntimeOptions:
    from rho_kernel.frontend import RuntimeOptions

    return RuntimeOptions(
        root=args.root,
        model=args.model,
        endpoint=args.endpoint,
        api_key_env=args.api_key_env,
        ephemeral=args.ephemeral,
        continue_latest=args.continue_latest,
        session=args.session,
        max_iterations=args.max_iterations,
        token_budget=args.token_budget,
        system_prompt=args.system,
        compact_prompt=args.compact,
        accept_external_provider=args.accept_external_provider,
        plugin_modules=(("rho-rpc", "rho_rpc.plugin"),),
        inspect=args.plugins,
        allow_rules=tuple(args.allow),
        deny_rules=tuple(args.deny),
        approval_mode=args.approval_mode,
        no_sandbox=args.no_sandbox,
    )


def _serve(
    runtime: Runtime, *, stdin: StdinPump | None = None, announced: dict[str, Any] | None = None
) -> int:
    """Serve the client until it is done; the exit code (`stdin`, `announced`: `ready` was
    sent before the runtime loaded, see `rho_rpc.early_ready`)."""
    from rho_kernel import diagnostics
    from rho_rpc.app import run

    try:
        return run(runtime, stdin=stdin, announced=announced)
    except Exception as exc:  # last resort: one line on stderr, never a traceback on stdout
        diagnostics.error(f"internal error: {type(exc).__name__}: {exc}")
        if os.environ.get("RHO_DEBUG"):
            import traceback

            traceback.print_exception(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
