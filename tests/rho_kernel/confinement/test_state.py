"""`Confinement`: choosing a backend by probing, the status clients see, the launcher the
runner gets, and writable paths asked for once, with small real backends."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from rho_kernel.cancel import CancelToken
from rho_kernel.config import RhoConfig, SandboxConfig
from rho_kernel.confinement import (
    ConfinedLauncher,
    Confinement,
    ConfinementBackend,
    ConfinementPolicy,
    ConfinementProblem,
    ConfinementRefused,
    SandboxStatus,
    WritableGrants,
    sandbox_summary,
)
from rho_kernel.process import ProcessStartError, find_shell
from rho_kernel.security import SandboxRoot
from rho_kernel.tools import ToolContext


class Working(ConfinementBackend):
    """Confines by prefixing a marker command; counts its probes."""

    platforms = ()

    def __init__(self, name: str = "working", *, hosts: bool = False, delay: float = 0) -> None:
        self.name = name
        self.enforces_host_lists = hosts
        self.delay = delay
        self.probes = 0

    def probe(self) -> ConfinementProblem | None:
        self.probes += 1
        time.sleep(self.delay)  # widens the window for a second concurrent probe
        return None

    def wrap(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> list[str]:
        return ["sh", "-c", f'echo "confined by {self.name}"; exec "$@"', "sh", *argv]


class Missing(ConfinementBackend):
    """A backend whose probe finds a problem."""

    name = "missing"

    def __init__(self) -> None:
        self.probes = 0

    def probe(self) -> ConfinementProblem | None:
        self.probes += 1
        return ConfinementProblem("the missing tool is not installed", "install the missing tool")

    def wrap(self, argv: list[str], policy: ConfinementPolicy, cwd: Path) -> list[str]:
        raise AssertionError("a backend that failed its probe is never used")


class Crashing(Missing):
    """A backend whose probe raises."""

    name = "crashing"

    def probe(self) -> ConfinementProblem | None:
        self.probes += 1
        raise RuntimeError("boom")


class Limited(Working):
    """A working backend with something it cannot enforce here."""

    def __init__(self) -> None:
        super().__init__("limited")

    def limits(self, *, network: bool) -> list[str]:
        return ["reach the moon"]


class Elsewhere(Working):
    """A working backend for another platform."""

    platforms = ("plan9",)


def make(
    home: Path,
    project: Path,
    *backends: ConfinementBackend,
    grants: WritableGrants | None = None,
    **settings: object,
) -> tuple[Confinement, list[str]]:
    """A `Confinement` whose reports go to the returned list."""
    reports: list[str] = []
    confinement = Confinement(
        SandboxConfig(**settings),  # type: ignore[arg-type]
        project,
        home=home,
        backends=backends,
        grants=grants,
        report=reports.append,
    )
    return confinement, reports


# ── choosing the backend ────────────────────────────────────────────────────


def test_the_first_backend_that_probes_well_is_chosen(home: Path, project: Path) -> None:
    missing, crashing, first, second = Missing(), Crashing(), Working("first"), Working("second")
    confinement, reports = make(home, project, Elsewhere("plan9"), missing, crashing, first, second)
    status = confinement.status()
    assert status == SandboxStatus("confined", backend="first")
    assert (missing.probes, crashing.probes, first.probes, second.probes) == (1, 1, 1, 0)
    launcher = confinement.launcher()
    assert launcher is not None and launcher.name == "first" and launcher.backend is first
    assert first.probes == 1 and reports == []


def test_the_configured_backend_is_used_even_when_another_comes_first(
    home: Path, project: Path
) -> None:
    first, second = Working("first"), Working("second")
    confinement, _ = make(home, project, first, second, backend="second")
    assert confinement.status().backend == "second"
    assert first.probes == 0


def test_a_configured_backend_that_fails_is_not_replaced_by_another(
    home: Path, project: Path
) -> None:
    confinement, _ = make(home, project, Missing(), Working(), backend="missing")
    status = confinement.status()
    assert status.mode == "unconfined" and status.problem == "the missing tool is not installed"
    assert confinement.launcher(approved_unconfined=True) is None


def test_an_unknown_backend_name_is_unconfined_naming_the_installed_ones(
    home: Path, project: Path
) -> None:
    working = Working()
    confinement, _ = make(home, project, working, Missing(), backend="firejail")
    status = confinement.status()
    assert status.mode == "unconfined"
    assert status.problem == "no sandbox backend is named 'firejail' (installed: working, missing)"
    assert status.fix == "set [sandbox] backend to one of them, or remove it"
    assert working.probes == 0


def test_without_a_backend_for_the_platform_the_problem_says_so(home: Path, project: Path) -> None:
    confinement, _ = make(home, project, Elsewhere("plan9"))
    status = confinement.status()
    assert status.problem == "no sandbox backend supports this platform"
    assert status.fix == "run rho on Linux with bubblewrap, or on macOS"


def test_unconfined_reports_every_problem_and_the_first_fix(home: Path, project: Path) -> None:
    confinement, _ = make(home, project, Crashing(), Missing())
    status = confinement.status()
    assert status == SandboxStatus(
        "unconfined",
        problem="the crashing backend failed: boom; the missing tool is not installed",
        fix="report it",
        asks=True,
    )
    assert confinement.launcher(approved_unconfined=True) is None
    assert sandbox_summary(status) == "unconfined: no OS sandbox works here (every command asks)"


def test_probing_happens_once_across_threads(home: Path, project: Path) -> None:
    working = Working(delay=0.2)
    confinement, _ = make(home, project, working)
    start = threading.Barrier(8)
    seen: list[SandboxStatus] = []

    def ask() -> None:
        start.wait()
        seen.append(confinement.status())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert working.probes == 1
    assert [status.backend for status in seen] == ["working"] * 8


# ── mode, require and the announcement ──────────────────────────────────────


def test_mode_off_probes_nothing_and_launches_unconfined(home: Path, project: Path) -> None:
    working = Working()
    confinement, reports = make(home, project, working, mode="off", writable=["~/x"])
    status = confinement.status()
    assert status.mode == "off" and status.problem == '[sandbox] mode = "off"'
    assert status.fix == 'remove [sandbox] mode = "off" (or --no-sandbox) to confine commands'
    assert confinement.launcher() is None and confinement.pending_writable() == []
    confinement.announce()
    confinement.announce()
    assert working.probes == 0
    assert reports == [
        'commands run unconfined: [sandbox] mode = "off"; remove [sandbox] mode = "off" (or '
        "--no-sandbox) to confine commands"
    ]
    assert sandbox_summary(status) == "unconfined (the sandbox is off)"


def test_require_refuses_commands_when_nothing_confines_them(home: Path, project: Path) -> None:
    confinement, reports = make(home, project, Missing(), require=True)
    assert confinement.status().mode == "refused"
    with pytest.raises(ConfinementRefused) as caught:
        confinement.launcher()
    assert isinstance(caught.value, ProcessStartError)
    assert str(caught.value) == (
        "commands are refused: [sandbox] require = true, but the missing tool is not "
        "installed; to fix it, install the missing tool"
    )
    confinement.announce()
    confinement.announce()
    assert reports == [
        "commands will not run: [sandbox] require = true, and no OS sandbox works here (the "
        "missing tool is not installed); to fix it, install the missing tool"
    ]


def test_require_with_a_working_backend_confines(home: Path, project: Path) -> None:
    confinement, reports = make(home, project, Working(), require=True)
    assert confinement.launcher() is not None
    confinement.announce()
    assert confinement.status().mode == "confined" and reports == []


def test_a_working_sandbox_is_announced_once_as_information(home: Path, project: Path) -> None:
    told: list[str] = []
    confinement = Confinement(
        SandboxConfig(),
        project,
        home=home,
        backends=[Limited()],
        report=AssertionError,
        inform=told.append,
    )
    confinement.announce()
    confinement.announce()
    assert told == [
        "commands run confined by limited (without network); here it cannot: reach the moon"
    ]
    assert confinement.status().limits == ["reach the moon"]


def test_by_default_unconfined_commands_ask_and_only_an_approved_one_runs(
    home: Path, project: Path
) -> None:
    confinement, reports = make(home, project, Missing())
    status = confinement.status()
    assert (status.mode, status.asks) == ("unconfined", True)
    with pytest.raises(ConfinementRefused) as caught:
        confinement.launcher()
    assert "no OS sandbox works here (the missing tool is not installed)" in str(caught.value)
    assert "every command needs a person's approval, and this one has none" in str(caught.value)
    assert "[sandbox] require = false (or start rho with --no-sandbox)" in str(caught.value)
    assert confinement.launcher(approved_unconfined=True) is None
    confinement.announce()
    confinement.status()
    confinement.announce()
    assert reports == [
        "commands would run unconfined: no OS sandbox works here (the missing tool is not "
        "installed); every command asks for your approval, whatever the rules and mode (and "
        "none runs unattended); to fix it, install the missing tool, or set [sandbox] require "
        "= false (or start rho with --no-sandbox) to run them anyway"
    ]


def test_with_require_false_unconfined_commands_run_as_rules_say(home: Path, project: Path) -> None:
    confinement, reports = make(home, project, Missing(), require=False)
    status = confinement.status()
    assert (status.mode, status.asks) == ("unconfined", False)
    assert confinement.launcher() is None
    confinement.announce()
    assert reports == [
        "commands run unconfined ([sandbox] require = false): no OS sandbox works here (the "
        "missing tool is not installed); to fix it, install the missing tool"
    ]


# ── network ─────────────────────────────────────────────────────────────────


def test_a_host_list_without_host_enforcement_is_no_network_with_one_warning(
    home: Path, project: Path
) -> None:
    confinement, reports = make(home, project, Working(), network=["pypi.org", "github.com"])
    assert confinement.status().network is False
    launcher = confinement.launcher()
    assert launcher is not None and launcher.policy.network is False
    confinement.status()
    assert reports == [
        "[sandbox] network lists hosts (pypi.org, github.com), but the working backend cannot "
        "limit the network by host: commands get no network; set network = true to allow "
        "all of it"
    ]


def test_a_host_list_reaches_a_backend_that_enforces_it(home: Path, project: Path) -> None:
    confinement, reports = make(home, project, Working(hosts=True), network=["pypi.org"])
    assert confinement.status().network == ["pypi.org"]
    launcher = confinement.launcher()
    assert launcher is not None and launcher.policy.network == ("pypi.org",)
    assert reports == []


def test_network_true_and_an_empty_list(home: Path, project: Path) -> None:
    on, _ = make(home, project, Working(), network=True)
    assert on.status().network is True and sandbox_summary(on.status()).endswith("network on)")
    empty, reports = make(home, project, Working(), network=[])
    assert empty.status().network is False and reports == []


# ── writable paths ──────────────────────────────────────────────────────────


def test_writable_entries_are_pending_until_granted(
    home: Path, project: Path, outside_tmp: Path
) -> None:
    (home / "cache").mkdir()
    (project / "out").mkdir()
    WritableGrants.load(home).grant(project, ["~/cache"])
    grants = WritableGrants.load(home)
    confinement, reports = make(
        home, project, Working(), grants=grants, writable=["~/cache", "out", "~/cache"]
    )
    status = confinement.status()
    assert (status.writable, status.pending_writable) == (["~/cache"], ["out"])
    assert confinement.pending_writable() == ["out"]
    launcher = confinement.launcher()
    assert launcher is not None and launcher.policy.writable == (home / "cache",)

    confinement.grant(["out"])
    status = confinement.status()
    assert (status.writable, status.pending_writable) == (["~/cache", "out"], [])
    launcher = confinement.launcher()
    assert launcher is not None and launcher.policy.writable == (home / "cache", project / "out")
    assert WritableGrants.load(home).granted(project) == {"~/cache", "out"}
    assert reports == []


def test_grants_are_read_from_the_home_when_not_given(home: Path, project: Path) -> None:
    WritableGrants.load(home).grant(project, ["~/cache"])
    confinement, _ = make(home, project, Working(), writable=["~/cache"])
    assert confinement.status().writable == ["~/cache"]


def test_a_grant_that_cannot_be_saved_is_reported_and_holds(home: Path, project: Path) -> None:
    (home / ".rho").write_text("not a directory\n")
    confinement, reports = make(home, project, Working(), writable=["~/cache"])
    confinement.grant(["~/cache"])
    assert confinement.pending_writable() == []
    assert len(reports) == 1
    assert reports[0].startswith("the writable paths could not be recorded: ")


def test_the_launcher_policy_denies_the_configured_extra_paths(home: Path, project: Path) -> None:
    confinement, _ = make(home, project, Working(), extra_read_deny=["~/notes", "secrets"])
    launcher = confinement.launcher()
    assert isinstance(launcher, ConfinedLauncher)
    assert launcher.policy.root == project
    assert {home / "notes", project / "secrets"} <= set(launcher.policy.read_deny)


# ── through ToolContext.run_process ─────────────────────────────────────────


async def test_tool_processes_run_under_the_projects_confinement(home: Path, project: Path) -> None:
    confinement, _ = make(home, project, Working())
    ctx = ToolContext(
        root=SandboxRoot(project), config=RhoConfig(), cancel=CancelToken(), confinement=confinement
    )
    result = await ctx.run_process(find_shell(None).argv("echo inside"), live=False)
    assert result.stdout == "confined by working\ninside\n"
    assert result.confined_by == "working" and result.argv[:2] == ["sh", "-c"]


@pytest.mark.parametrize("require", [True, "ask"])
async def test_tool_processes_are_refused_when_required(
    home: Path, project: Path, require: object
) -> None:
    confinement, _ = make(home, project, Missing(), require=require)
    ctx = ToolContext(
        root=SandboxRoot(project), config=RhoConfig(), cancel=CancelToken(), confinement=confinement
    )
    with pytest.raises(ConfinementRefused):
        await ctx.run_process(["touch", str(project / "ran")], live=False)
    assert not (project / "ran").exists()


async def test_a_call_a_person_approved_runs_its_processes_unconfined(
    home: Path, project: Path
) -> None:
    confinement, _ = make(home, project, Missing())
    ctx = ToolContext(
        root=SandboxRoot(project),
        config=RhoConfig(),
        cancel=CancelToken(),
        confinement=confinement,
        unconfined_approved=True,
    )
    result = await ctx.run_process(["touch", str(project / "ran")], live=False)
    assert result.ok and result.confined_by is None and (project / "ran").exists()
