"""`rho trust`: trust a project's `.rho/config.toml` and its context files (`AGENTS.md` …) as
they are now, list or revoke trust.

A project file's settings that loosen the user's (see docs/config.md) apply, and a context
file is added to the system prompt, only while the file is trusted; this command records
their SHA-256 in `~/.rho/trusted_projects.toml`. It is a
plain command-line tool: it prints for a human on stdout and never speaks JSON-RPC.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel import hookspecs
from rho_kernel.diagnostics import error, warn

if TYPE_CHECKING:
    from rho_kernel import SandboxRoot
    from rho_kernel.security import TrustStore

# Each action imports only the kernel modules it uses: `--list` and `--revoke` read the trust
# store and never load the config models, the plugins or the agent.


EPILOG = (
    "Trust lasts while a file is byte for byte what it was: after any change, run "
    "'rho trust' again. See docs/config.md for the settings that need trust."
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of `rho trust`."""
    parser = argparse.ArgumentParser(
        prog="rho trust",
        description=(
            "Trust this project's .rho/config.toml and its context files (AGENTS.md, …) as "
            "they are now, so that the config's settings that loosen yours (approval, "
            "providers, redaction, plugins, prompt, extensions) apply and the context files "
            "are added to the system prompt."
        ),
        epilog=EPILOG,
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--list", action="store_true", help="list every trusted project file")
    action.add_argument(
        "--revoke", action="store_true", help="forget the trust given to this project"
    )
    parser.add_argument(
        "--root", type=Path, metavar="PATH", help="project root (default: detected from the cwd)"
    )
    return parser


def _shown(text: str) -> str:
    """`text` with control characters escaped, so a path cannot forge terminal output."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def _fail(message: str, code: int) -> int:
    error(message)
    return code


def _root(args: argparse.Namespace, home: Path | None, cwd: Path | None) -> Path:
    """The project root: `--root` (as given), else detected from the working directory."""
    from rho_kernel.frontend import find_project_root

    if args.root is not None:
        return Path(args.root).absolute()
    return find_project_root(cwd if cwd is not None else Path.cwd(), home=home)


def main(argv: list[str], *, home: Path | None = None, cwd: Path | None = None) -> int:
    """Run `rho trust` with `argv` (the arguments after `trust`); returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args, home, cwd)
    except Exception as exc:  # last resort: one line on stderr, never a traceback
        return _fail(f"internal error: {type(exc).__name__}: {exc}", 1)


def _run(args: argparse.Namespace, home: Path | None, cwd: Path | None) -> int:
    from rho_kernel.frontend import ProjectRootError
    from rho_kernel.security import TrustError, TrustStore

    store = TrustStore.load(home)
    if args.list:
        return _list(store)
    try:
        root = _root(args, home, cwd)
        if args.revoke:
            return _revoke(store, root)
        return _trust(store, root, home)
    except ProjectRootError as exc:
        return _fail(str(exc), 2)
    except TrustError as exc:
        return _fail(str(exc), 1)


def _trust(store: TrustStore, root: Path, home: Path | None) -> int:
    """Trust the project's files; the config and sandbox errors that stop it, said."""
    from rho_kernel import SandboxError
    from rho_kernel.frontend import ConfigError

    try:
        return _trust_files(store, root, home)
    except SandboxError as exc:
        return _fail(str(exc), 2)
    except ConfigError as exc:
        return _fail(f"{exc}; fix it before trusting it", 2)


def _trust_files(store: TrustStore, root: Path, home: Path | None) -> int:
    from rho_kernel import SandboxRoot, read_regular_file, state_dir
    from rho_kernel.frontend import (
        MAX_CONFIG_BYTES,
        PROJECT_CONFIG,
        loosening_settings,
        plugin_sections,
        project_config_path,
        read_config,
        scan_context_files,
    )

    if not root.is_dir():
        return _fail(f"--root {_shown(str(root))}: not a directory", 2)
    sandbox = SandboxRoot(root, state_dir=state_dir(home))  # refuses rho's own ~/.rho
    path = project_config_path(root)
    try:
        data: bytes | None = read_regular_file(path, limit=MAX_CONFIG_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        data = None
    except OSError as exc:
        return _fail(f"{_shown(str(path))} cannot be read: {exc.strerror or exc}", 1)
    kernel = read_config(root, home=home, warn=lambda _: None).kernel
    sections = plugin_sections(kernel.plugins.disabled)
    settings = (
        loosening_settings(root, data, home=home, sections=sections) if data is not None else []
    )
    context = scan_context_files(sandbox, kernel.context.scan_list, warn=warn)
    extra = plugin_files(sandbox, kernel.plugins.disabled)
    if data is None and not context and not extra:
        names = ", ".join(_shown(name) for name in kernel.context.scan_list) or "none configured"
        return _fail(
            f"{_shown(str(path))} does not exist: there is nothing to trust "
            f"(and no project context file either: {names})",
            1,
        )
    files = (
        ([(PROJECT_CONFIG, data, "")] if data is not None else [])
        + [(found.name, found.data, "context file ") for found in context]
        + [(rel, content, f"{plugin} file ") for plugin, rel, content in extra]
    )
    for rel_file, content, kind in files:
        already = store.is_trusted(root, rel_file, content)
        entry = store.trust(root, rel_file, content)
        shown = _shown(f"{entry.root}/{entry.file}")
        state = "already trusted" if already else "trusted"
        print(f"{state} {kind}{shown} (sha256 {entry.sha256})")
    print(f"recorded in {_shown(str(store.path))}")
    if data is not None:
        _print_settings(settings)
    if context:
        print("context files now added to the system prompt of new sessions")
    if extra:
        print("the plugins' files above are now used as they are")
    print("any change to a file lapses its trust; run 'rho trust' again after editing it")
    return 0


def plugin_files(root: SandboxRoot, disabled: list[str]) -> list[tuple[str, str, bytes]]:
    """`(plugin, path, content)` of each file the installed plugins use only while trusted
    (`rho_project_files_to_trust`); one that cannot be read inside the project is reported
    and skipped."""
    from rho_kernel import PluginHost, SandboxError  # loads the plugins: only for this command

    host = PluginHost(disabled=disabled, report=lambda _: None)
    host.load_defaults()
    host.load_entrypoints()
    found: list[tuple[str, str, bytes]] = []
    seen: set[str] = set()
    for plugin, paths in host.call_each(hookspecs.rho_project_files_to_trust, root=root.path):
        for rel in paths if isinstance(paths, list) else []:
            if not isinstance(rel, str) or rel in seen:
                continue
            seen.add(rel)
            try:
                with root.open_read(rel) as handle:
                    found.append((plugin, rel, handle.read()))
            except (OSError, SandboxError) as exc:
                warn(f"{_shown(rel)} (named by plugin '{plugin}') not trusted: {exc}")
    return found


def _print_settings(settings: list[str]) -> None:
    if settings:
        print("settings that now apply:")
        for setting in settings:
            print(f"  {_shown(setting)}")
    else:
        print("it has no settings that need trust")


def _revoke(store: TrustStore, root: Path) -> int:
    from rho_kernel.security import canonical_root

    removed = store.revoke(root)
    shown = _shown(canonical_root(root))
    if not removed:
        print(f"{shown} was not trusted")
        return 0
    files = ", ".join(_shown(entry.file) for entry in removed)
    print(f"revoked trust in {shown} ({files})")
    return 0


#: The largest file `--list` hashes (context files and configs are far smaller).
_MAX_LISTED_BYTES = 16 * 1024 * 1024


def _list(store: TrustStore) -> int:
    from rho_kernel import read_regular_file
    from rho_kernel.security import file_digest

    if not store.entries:
        print(f"no trusted project files (store: {_shown(str(store.path))})")
        return 0
    for entry in store.entries:
        path = Path(entry.root) / entry.file
        try:
            data = read_regular_file(path, limit=_MAX_LISTED_BYTES)
            state = "current" if file_digest(data) == entry.sha256 else "changed"
        except (FileNotFoundError, NotADirectoryError):
            state = "missing"
        except OSError:  # a FIFO or a device now, no permission, far too large
            state = "unreadable"
        print(f"{_shown(str(path))}  sha256 {entry.sha256}  ({state})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
