"""docs/plugins.md's commands for trying a plugin are the ones CI runs on a new plugin."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTION = (ROOT / "docs" / "plugins.md").read_text().split("## Installing plugins", 1)[1]
CI = (ROOT / ".ci" / "plugins").read_text()


def _commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", SECTION.split("\n## ", 1)[0], re.S)
    return [line for block in blocks for line in block.splitlines() if "my-plugin" in line]


def _as_ci_runs_it(command: str) -> str:
    """The documented command as .ci/plugins spells it: its own uv, its own plugin path."""
    command = command.removeprefix("python3 -m ")
    return re.sub(r"(\.\./|/path/to/)my-plugin\b", '"$plugin"', command)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m uv run --all-packages --with-editable packages/rho-kernel "
        "--with-editable ../my-plugin rho",
        "python3 -m uv pip install --python .venv/bin/python -e ../my-plugin",
    ],
)
def test_the_commands_from_a_clone_are_documented_and_run_by_ci(command: str) -> None:
    assert command in _commands()
    assert _as_ci_runs_it(command) in CI


def test_no_documented_one_run_command_leaves_rho_kernel_to_the_index() -> None:
    # `--with-editable` alone resolves the plugin's rho-kernel from the package index.
    for command in _commands():
        if " run " in command and "--with-editable" in command:
            assert "--with-editable packages/rho-kernel" in command, command
