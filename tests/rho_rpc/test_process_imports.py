"""What the real `rho` process imports: up to `ready` none of the wire models or method
handlers, for a request only the models of its own method, and for `rho trust` only what
trusting needs.

rho runs as its console script does (`rho_rpc.cli.main`), under a wrapper that writes the
names in `sys.modules` to a file when the process exits.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from rho_process import rho_env  # type: ignore[import-not-found]

import rho_rpc.protocol

#: Runs `rho ARGS` as the console script does; the first argument is where to write the
#: modules imported when the process exits.
WRAPPER = """
import atexit, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write("\\n".join(sorted(sys.modules))))
from rho_rpc.cli import main
sys.argv[0] = "rho"
sys.exit(main())
"""

#: rho-rpc's modules that serve requests, never needed to write `ready`.
REQUEST_MODULES = (
    "rho_rpc.wire",
    "rho_rpc.methods",
    "rho_rpc.tree_methods",
    "rho_rpc.command_methods",
    "rho_rpc.plugin_state",
    "rho_rpc.openrpc",
    "rho_rpc.plugin_listing",
    "rho_rpc.status_bar",
    "rho_rpc.distributions",
)
#: What only running a tool, answering an approval or an extension or memory request needs
#: (the command policy, the process runner, the approval gate, the regex hints, the tools'
#: implementations, the extension manager, the packs' wire models, the knowledge base): a
#: session that does none of it never loads them, from start-up to exit.
TOOL_IMPLEMENTATIONS = (
    "rho_kernel.security.commands",
    "rho_kernel.security.shellwords",
    "rho_kernel.process.runner",
    "rho_kernel.loop.approval",
    "rho_tools_fs.regex_hints",
    "rho_tools_fs.read_file",
    "rho_tools_fs.run_command",
    "rho_ext_js.manager",
    "rho_ext_js.rpc",
    "rho_memory.rpc",
    "rho_memory.tool",
)
#: The modules of `rho_rpc.protocol`: the wire models, one group of methods each.
GROUPS = tuple(module.name for module in pkgutil.iter_modules(rho_rpc.protocol.__path__))


def _run_rho(
    tmp_path: Path, *args: str, requests: Sequence[dict[str, object]] = ()
) -> tuple[set[str], list[dict[str, object]], subprocess.CompletedProcess[str]]:
    """Run rho in the test's project (made on first use) with `requests` on stdin, then end
    of input: the modules it had imported when it exited, its protocol lines, and the
    completed process."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    modules = tmp_path / f"modules-{len(list(tmp_path.glob('modules-*')))}.txt"
    result = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(modules), *args],
        cwd=project,
        env=rho_env(home),
        input="".join(json.dumps(request) + "\n" for request in requests),
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return set(modules.read_text().split("\n")), lines, result


def _groups(modules: set[str]) -> set[str]:
    return {group for group in GROUPS if f"rho_rpc.protocol.{group}" in modules}


@pytest.mark.parametrize(
    "args",
    [("--ephemeral",), ("--ephemeral", "-m", "m")],
    ids=["ready-after-the-load", "ready-before-the-load"],
)
def test_ready_imports_no_wire_model_and_no_method_handler(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    modules, lines, result = _run_rho(tmp_path, *args)
    assert result.returncode == 0, result.stderr
    assert [line["method"] for line in lines] == ["ready"]
    assert lines[0]["params"]["version"]  # type: ignore[index]
    assert sorted(m for m in REQUEST_MODULES if m in modules) == []
    assert _groups(modules) == set()
    assert sorted(m for m in TOOL_IMPLEMENTATIONS if m in modules) == []


@pytest.mark.parametrize(
    ("request_", "error", "loaded", "handlers"),
    [
        ({"method": "getState"}, None, {"base", "state"}, "rho_rpc.methods"),
        ({"method": "getTree", "params": {"limit": 5}}, None, {"base", "tree"}, "rho_rpc.tree_methods"),
        ({"method": "getTree", "params": {"limt": 5}}, -32602, {"base", "tree"}, "rho_rpc.tree_methods"),
        ({"method": "prompt", "params": {"message": " "}}, -32602, {"base", "prompt"}, "rho_rpc.methods"),
        ({"method": "listTools"}, None, {"base", "state", "tools"}, "rho_rpc.methods"),
        ({"method": "listCommands"}, None, {"base", "commands"}, "rho_rpc.command_methods"),
    ],
)  # fmt: skip
def test_a_request_imports_only_its_own_models(
    tmp_path: Path,
    request_: dict[str, object],
    error: int | None,
    loaded: set[str],
    handlers: str,
) -> None:
    modules, lines, result = _run_rho(
        tmp_path, "--ephemeral", requests=[{"jsonrpc": "2.0", "id": 1, **request_}]
    )
    assert result.returncode == 0, result.stderr
    response = lines[-1]
    assert response["id"] == 1
    if error is None:
        assert "result" in response, response
    else:
        assert response["error"]["code"] == error, response  # type: ignore[index]
    assert _groups(modules) == loaded
    assert handlers in modules
    assert "rho_rpc.wire" not in modules


def test_an_unknown_method_imports_no_model(tmp_path: Path) -> None:
    modules, lines, _ = _run_rho(
        tmp_path, "--ephemeral", requests=[{"jsonrpc": "2.0", "id": 7, "method": "nope"}]
    )
    assert lines[-1]["error"]["code"] == -32601  # type: ignore[index]
    assert _groups(modules) == set()


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_do_not_start_the_kernel(tmp_path: Path, flag: str) -> None:
    modules, _, result = _run_rho(tmp_path, flag)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: rho" if flag == "--help" else "rho ")
    assert not {m for m in modules if m == "rho_kernel" or m.startswith("rho_kernel.")}
    assert ("importlib.metadata" in modules) == (flag == "--version")
    if flag == "--help":  # argparse and what it prints with, nothing for annotations or paths
        assert sorted({"typing", "pathlib"} & modules) == []


#: rho-rpc's modules that serve the protocol: `rho trust` needs none of them.
RPC_HOST = ("rho_rpc.app", "rho_rpc.server", "rho_rpc.peer", "rho_rpc.render", *REQUEST_MODULES)

#: The kernel modules `rho trust --list` and `--revoke` use.
TRUST_STORE = (
    "import argparse, atexit, sys, rho_kernel.diagnostics, rho_kernel.project, "
    "rho_kernel.security.trust, rho_kernel.security.regular_file; print('\\n'.join(sys.modules))"
)
#: What listing or revoking trust never needs (unless the trust store's own modules do).
HEAVY = (
    "pydantic",
    "httpx",
    "importlib.metadata",
    "rho_kernel.config.model",
    "rho_kernel.runtime",
    "rho_kernel.loop.agent",
    "rho_kernel.plugins",
)


def _rpc_host(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in RPC_HOST or m.startswith("rho_rpc.protocol"))


def test_trust_and_its_list_import_no_more_than_they_use(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".rho").mkdir(parents=True)
    (project / ".rho" / "config.toml").write_text("[agent]\nmax_iterations = 3\n")
    modules, _, result = _run_rho(tmp_path, "trust")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"trusted {project.resolve()}/.rho/config.toml (sha256 ")
    # The plugins are loaded (they may name files to trust); rho-rpc's is, without its host.
    assert "rho_rpc.plugin" in modules
    assert _rpc_host(modules) == []
    store = subprocess.run(
        [sys.executable, "-c", TRUST_STORE], capture_output=True, text=True, check=True
    )
    needed = set(store.stdout.split())
    expected = {
        "--list": f"{project.resolve()}/.rho/config.toml  sha256 ",
        "--revoke": f"revoked trust in {project.resolve()} (.rho/config.toml)",
    }
    for action, said in expected.items():
        modules, _, result = _run_rho(tmp_path, "trust", action)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(said)
        assert _rpc_host(modules) == []
        own = sorted(m for m in modules - needed if m.startswith("rho_rpc"))
        assert own == ["rho_rpc", "rho_rpc.cli", "rho_rpc.startup_gc", "rho_rpc.trust_command"]
        assert sorted((set(HEAVY) - needed) & modules) == []
    assert _run_rho(tmp_path, "trust", "--list")[2].stdout.startswith("no trusted project files")
