"""Suite-wide settings: the plugin set under test is rho's own, whatever else is installed."""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_rpc.distributions import RHO_DISTRIBUTIONS

#: What every test loads: rho's own plugins (`RHO_PLUGINS`); a test that installs a plugin
#: names it too. A third-party plugin installed next to rho (the example one, say) never loads.
OWN_PLUGINS = ",".join(sorted(RHO_DISTRIBUTIONS))
WORKSPACE = Path(__file__).resolve().parents[1]


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Spread the tests over every core by default (pytest-xdist, work stealing).

    Set here rather than in `addopts`, so that `-n 0` and `-p no:xdist` still run the
    suite in one process; an explicit `-n N` or `--dist` wins.
    """
    if not config.pluginmanager.hasplugin("xdist") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if config.option.numprocesses is None and not config.option.collectonly:
        config.option.numprocesses = "auto"
        if config.option.dist == "no":
            config.option.dist = "worksteal"


def pytest_configure(config: pytest.Config) -> None:
    """Name the plugins under test for the whole run (child processes inherit it), and
    compile rho's own sources once for every process the tests start."""
    os.environ["RHO_PLUGINS"] = OWN_PLUGINS
    # The suite's own modules are cached too, whatever PYTHONDONTWRITEBYTECODE says: without
    # it every pytest process rewrites and compiles every test module again (~11 s of CPU each).
    sys.dont_write_bytecode = False
    os.environ.pop("RHO_DISABLE_PLUGIN_AUTOLOAD", None)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _compile_workspace()


def _compile_workspace() -> None:
    """Write the bytecode of the workspace's packages (installed editable, so nothing
    compiled them), as an installed rho has it.

    The tests start hundreds of `rho` processes; with `PYTHONDONTWRITEBYTECODE` set, or
    before any run wrote it, each one compiled every module it imports again (about a third
    of its start-up CPU). Files whose bytecode is current are only checked.
    """
    for source in sorted(WORKSPACE.glob("packages/*/src")):
        compileall.compile_dir(source, quiet=2)


#: The tests that exercise the OS sandbox, by path under tests/: CI runs them a second time
#: with bubblewrap hidden (`pytest -m confinement`), so the Landlock backend stays proven.
CONFINEMENT_TESTS = (
    "rho_kernel/confinement/",
    "rho_tools_rust/test_in_the_loop.py",
    "e2e/test_sandbox",
    "e2e/test_escalation.py",
    "e2e/test_rust_tools.py",
    "e2e/test_state_dir.py",
    "e2e/test_mcp.py",
    "e2e/test_extensions.py",
    "e2e/test_shell.py",
)
_TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of `CONFINEMENT_TESTS` `confinement`."""
    for item in items:
        try:
            where = item.path.resolve().relative_to(_TESTS).as_posix()
        except ValueError:
            continue
        if where.startswith(CONFINEMENT_TESTS):
            item.add_marker(pytest.mark.confinement)


def skip_reasons(reports: list[pytest.TestReport]) -> Counter[str]:
    """How many tests skipped for each reason (the reason as the test gave it)."""
    reasons: Counter[str] = Counter()
    for report in reports:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    return reasons


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say, whatever the verbosity, how many tests skipped and why: a machine without
    bubblewrap, cargo or node skips what needs them, and the count shows what did not run."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    reasons = skip_reasons(terminalreporter.stats.get("skipped", []))
    total = sum(reasons.values())
    terminalreporter.write_sep("-", f"{total} skipped" if total else "nothing skipped")
    for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        terminalreporter.write_line(f"{count:5} {reason}")


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A fresh canonical directory under /var/tmp, removed afterwards.

    A confined command gets its own empty /tmp, which would hide (rather than refuse)
    anything under the real /tmp: files that sandbox tests confine live here instead.
    """
    path = Path(tempfile.mkdtemp(prefix="rho-test-", dir="/var/tmp")).resolve()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("USERPROFILE", raising=False)
    monkeypatch.delenv("RHO_MODEL", raising=False)
    monkeypatch.setenv("RHO_PLUGINS", OWN_PLUGINS)
