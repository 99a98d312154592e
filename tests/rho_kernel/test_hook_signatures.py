"""Hookspecs keep their promise: within a major version, only new hooks and new arguments.

`hook_signatures.json` is the committed snapshot of every hook's arguments. After adding a
hook or an argument, rewrite it by running this file:
`python3 -m uv run python tests/rho_kernel/test_hook_signatures.py`. It refuses to record a
change that breaks plugins unless rho-kernel's major version changed.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import compat_snapshot
import pluggy

import rho_kernel
from rho_kernel import hookspecs

SNAPSHOT = Path(__file__).with_name("hook_signatures.json")


def signatures(module: ModuleType = hookspecs) -> dict[str, dict[str, Any]]:
    """Each hookspec of `module` by name: its arguments and the options that change calling."""
    manager = pluggy.PluginManager("rho")
    manager.add_hookspecs(module)
    found: dict[str, dict[str, Any]] = {}
    for name in sorted(vars(manager.hook)):
        spec = getattr(manager.hook, name).spec
        if spec is None:
            continue
        found[name] = {
            "arguments": list(spec.argnames),
            "firstresult": bool(spec.opts.get("firstresult")),
            "historic": bool(spec.opts.get("historic")),
        }
    return found


def current() -> dict[str, Any]:
    """The snapshot as it would be written now."""
    return {"kernel_major": compat_snapshot.major(), "hooks": signatures()}


def breaking_changes(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[str]:
    """What in `new` breaks a plugin written against `old`: a hook removed, an argument
    removed or renamed, a hook that changed between first-result and each, or historic."""
    problems: list[str] = []
    for name, before in old.items():
        after = new.get(name)
        if after is None:
            problems.append(f"hook {name} was removed")
            continue
        for argument in before["arguments"]:
            if argument not in after["arguments"]:
                problems.append(f"{name} lost (or renamed) its argument '{argument}'")
        for option in ("firstresult", "historic"):
            if before[option] != after[option]:
                problems.append(f"{name} changed {option} from {before[option]}")
    return problems


def load() -> dict[str, Any]:
    """The committed snapshot."""
    return compat_snapshot.load(SNAPSHOT)


def main() -> int:
    """Rewrite the snapshot; refuse a breaking change within the same major version."""
    return compat_snapshot.rewrite(SNAPSHOT, current(), "hooks", breaking_changes, indent=2)


# ── the tests ───────────────────────────────────────────────────────────────


def test_no_hook_loses_or_renames_an_argument_within_a_major_version() -> None:
    snapshot = load()
    if snapshot["kernel_major"] != current()["kernel_major"]:
        return  # a new major version may break plugins; the snapshot test asks to refresh it
    assert breaking_changes(snapshot["hooks"], signatures()) == []


def test_the_snapshot_records_every_hook_and_argument() -> None:
    assert load() == current(), (
        "hook signatures changed: run `python3 -m uv run python "
        "tests/rho_kernel/test_hook_signatures.py` to record the new snapshot"
    )


def test_a_renamed_or_removed_argument_is_a_breaking_change() -> None:
    source = Path(hookspecs.__file__).read_text(encoding="utf-8")
    renamed = source.replace(
        "def rho_register_tools(config: RhoConfig, root: Path)",
        "def rho_register_tools(config: RhoConfig, project: Path)",
    )
    renamed = renamed.replace(
        "@hookspec(firstresult=True)\ndef rho_approval_gate", ("@hookspec\ndef rho_approval_gate")
    )
    renamed = re.sub(r"@hookspec\ndef rho_shutdown\(.*", "", renamed, flags=re.DOTALL)
    renamed = renamed.replace(
        "def rho_startup(runtime: Runtime)", "def rho_startup(runtime: Runtime, reason: str)"
    )
    module = ModuleType("changed_hookspecs")
    exec(compile(renamed, "changed_hookspecs.py", "exec"), module.__dict__)
    assert breaking_changes(load()["hooks"], signatures(module)) == [
        "rho_approval_gate changed firstresult from True",
        "rho_register_tools lost (or renamed) its argument 'root'",
        "hook rho_shutdown was removed",
    ]  # the new argument of rho_startup breaks nothing


def test_the_version_is_the_distribution_version_and_covers_every_added_in_note() -> None:
    pyproject = Path(hookspecs.__file__).parents[2] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    assert rho_kernel.__version__ == declared
    own = tuple(int(part) for part in declared.split(".")[:2])
    source = Path(hookspecs.__file__).read_text(encoding="utf-8")
    notes = re.findall(r"[Aa]dded in (\d+)\.(\d+)", source)
    assert notes
    assert all((int(a), int(b)) <= own for a, b in notes), notes


if __name__ == "__main__":
    sys.exit(main())
