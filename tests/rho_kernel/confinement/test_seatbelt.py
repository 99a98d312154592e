"""The Seatbelt backend's profile generator and argv.

These run everywhere and check the generated text only: `sandbox-exec` and its profile
parser exist only on macOS, so no profile is parsed or enforced here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_kernel.confinement import ConfinementPolicy, Seatbelt, seatbelt_profile
from rho_kernel.confinement.seatbelt import PRIVILEGE_RULES, SANDBOX_EXEC, SETUID_HELPERS, quote

ROOT = Path("/Users/me/proj")
CACHE = Path("/Users/me/.cache/pip")
SSH = Path("/Users/me/.ssh")
DOCKER = Path("/var/run/docker.sock")


def policy(**changes: object) -> ConfinementPolicy:
    """A typical project policy, with `changes`."""
    fields: dict[str, object] = {
        "root": ROOT,
        "writable": (CACHE,),
        "read_only": (ROOT / ".git", ROOT / ".rho"),
        "read_deny": (SSH, DOCKER),
    }
    return ConfinementPolicy(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _tmpdir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", "/var/folders/xy/T")


def test_the_rules_come_in_order_so_the_later_ones_win() -> None:
    lines = seatbelt_profile(policy()).splitlines()
    assert lines == [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        '(allow file-write* (subpath "/Users/me/proj") (subpath "/Users/me/.cache/pip") '
        '(subpath "/private/tmp") (subpath "/private/var/folders") (subpath "/var/folders/xy/T") '
        '(literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") '
        '(regex #"^/dev/tty") (regex #"^/dev/fd/"))',
        '(deny file-write* (subpath "/Users/me/proj/.git") (subpath "/Users/me/proj/.rho"))',
        '(deny file-read* file-write* (subpath "/Users/me/.ssh") (subpath "/var/run/docker.sock"))',
        *PRIVILEGE_RULES,
        "(deny network*)",
    ]


def test_a_host_list_is_no_network() -> None:
    assert seatbelt_profile(policy(network=("pypi.org",))).endswith("(deny network*)\n")


def test_granted_network_still_cannot_reach_denied_sockets() -> None:
    lines = seatbelt_profile(policy(network=True)).splitlines()
    assert "(deny network*)" not in lines
    assert lines[-1] == (
        '(deny network-outbound (remote unix-socket (path-literal "/Users/me/.ssh")) '
        '(remote unix-socket (path-literal "/var/run/docker.sock")))'
    )


def test_granted_network_without_denied_paths_has_no_network_rule() -> None:
    profile = seatbelt_profile(policy(network=True, read_deny=()))
    assert "network" not in profile and "file-read*" not in profile


def test_without_a_private_tmp_the_temporary_directories_are_not_writable() -> None:
    profile = seatbelt_profile(policy(private_tmp=False))
    assert "/private/tmp" not in profile and "/var/folders" not in profile


def test_paths_with_quotes_and_backslashes_are_escaped() -> None:
    root = Path('/Users/me/a"b\\c')
    profile = seatbelt_profile(policy(root=root, writable=(), read_only=(), read_deny=(root,)))
    assert '(subpath "/Users/me/a\\"b\\\\c")' in profile
    assert '(deny file-read* file-write* (subpath "/Users/me/a\\"b\\\\c"))' in profile
    # A quote cannot end the string early and smuggle in a rule of its own.
    hostile = '/x") (allow file-write* (subpath "/'
    assert quote(hostile) == '"/x\\") (allow file-write* (subpath \\"/"'


def test_quote_escapes_the_backslash_before_the_quote() -> None:
    assert quote('\\"') == '"\\\\\\""'
    assert quote("plain") == '"plain"'


def test_wrap_is_sandbox_exec_with_the_profile_then_the_command() -> None:
    backend = Seatbelt()
    argv = backend.wrap(["sh", "-c", "echo hi"], policy(), ROOT)
    assert argv == [SANDBOX_EXEC, "-p", seatbelt_profile(policy()), "sh", "-c", "echo hi"]
    assert Seatbelt("/opt/sandbox-exec").wrap(["true"], policy(), ROOT)[0] == "/opt/sandbox-exec"


def test_seatbelt_is_for_macos_only_and_missing_here_is_a_problem() -> None:
    backend = Seatbelt("/nonexistent/sandbox-exec")
    assert backend.supports_platform("darwin") and not backend.supports_platform("linux")
    problem = backend.probe()
    assert problem is not None and "/nonexistent/sandbox-exec is missing" in problem.reason


def test_what_root_could_do_beyond_file_writes_is_denied_after_every_allow() -> None:
    lines = seatbelt_profile(policy(network=True)).splitlines()
    for rule in (
        "(deny file-mount file-unmount)",
        "(deny file-mknod)",
        "(deny file-write-setugid)",
        "(deny sysctl-write)",
        "(deny job-creation)",
        "(deny lsopen)",
        "(deny appleevent-send)",
        "(deny mach-priv-task-port)",
    ):
        assert rule in lines, rule
    last_allow = max(i for i, line in enumerate(lines) if line.startswith("(allow file-write*"))
    assert all(lines.index(rule) > last_allow for rule in PRIVILEGE_RULES)
    # Signals reach only processes of the same sandbox.
    assert lines.index("(deny signal)") + 1 == lines.index("(allow signal (target same-sandbox))")
    # No allow rule in the profile reopens an operation outside file writes and signals.
    allowed = [line for line in lines if line.startswith("(allow")]
    assert all(
        line.startswith(("(allow default)", "(allow file-write*", "(allow signal (target"))
        for line in allowed
    )


def test_the_setuid_helpers_that_grant_root_are_never_executed() -> None:
    profile = seatbelt_profile(policy())
    exec_rule = next(line for line in profile.splitlines() if line.startswith("(deny process-exec"))
    for helper in ("/usr/bin/sudo", "/usr/bin/su", "/usr/bin/login", "/usr/bin/crontab"):
        assert f'(literal "{helper}")' in exec_rule
    assert all(helper.startswith("/usr/") for helper in SETUID_HELPERS)
    assert profile.count("(deny process-exec") == 1


def test_no_rule_allows_a_privileged_operation() -> None:
    profile = seatbelt_profile(policy(network=True))
    for operation in ("sysctl-write", "system-", "file-mount", "process-exec", "mach-priv"):
        assert f"(allow {operation}" not in profile, operation


def test_every_repository_of_the_project_is_denied_writes(tmp_path: Path) -> None:
    from rho_kernel.confinement import build_policy

    root = (tmp_path / "proj").resolve()
    for place in (".git", "sub/.git", "a/b/.rho", "gitstuff"):
        (root / place).mkdir(parents=True)
    (root / "wt").mkdir()
    (root / "wt" / ".git").write_text("gitdir: ../gitstuff\n")
    (root / "link").mkdir()
    (root / "link" / ".git").symlink_to("/etc")
    home = tmp_path / "home"
    home.mkdir()
    profile = seatbelt_profile(build_policy(root, home=home))
    deny = next(line for line in profile.splitlines() if line.startswith("(deny file-write* (sub"))
    for place in (".git", "sub/.git", "a/b/.rho", "gitstuff", "wt/.git", "link/.git"):
        assert f"(subpath {quote(str(root / place))})" in deny, place
    assert '(subpath "/etc")' not in deny
