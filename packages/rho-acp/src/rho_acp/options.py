"""A session's modes (rho's approval modes) and config options (`mode`, `model`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

if TYPE_CHECKING:
    from rho_kernel import Runtime

#: rho's approval modes, as the session's modes.
MODES = (
    ("ask", "Ask", "Reads run; writes, commands and the network ask first."),
    ("auto-edit", "Auto-edit", "File writes in the project run too; commands still ask."),
    ("read-only", "Read-only", "Only tools that read run; the others are refused."),
    (
        "auto",
        "Auto",
        "Everything runs without asking; commands stay in the OS sandbox, and where none "
        "works they still ask.",
    ),
)
MODE_IDS = tuple(mode_id for mode_id, _, _ in MODES)


def mode_state(runtime: Runtime) -> SessionModeState:
    """The session's modes and the one in force."""
    return SessionModeState(
        current_mode_id=runtime.permission_mode,
        available_modes=[SessionMode(id=i, name=n, description=d) for i, n, d in MODES],
    )


def config_options(runtime: Runtime, models: list[str]) -> list[Any]:
    """The `mode` select and, with `models` known, the `model` select."""
    options: list[Any] = [
        SessionConfigOptionSelect(
            id="mode",
            name="Approval mode",
            type="select",
            current_value=runtime.permission_mode,
            options=[
                SessionConfigSelectOption(value=i, name=n, description=d) for i, n, d in MODES
            ],
        )
    ]
    choices = list(dict.fromkeys([runtime.model, *models]))
    options.append(
        SessionConfigOptionSelect(
            id="model",
            name="Model",
            type="select",
            current_value=runtime.model,
            options=[SessionConfigSelectOption(value=m, name=m) for m in choices],
        )
    )
    return options


__all__ = ["MODES", "MODE_IDS", "config_options", "mode_state"]
