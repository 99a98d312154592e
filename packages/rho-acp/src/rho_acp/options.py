"""A session's modes (rho's approval modes) and config options (`mode`, `model`,
`reasoning_effort`)."""

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

#: The `reasoning_effort` option's value for "none sent" (ACP's values are strings).
DEFAULT_EFFORT = "default"
#: The reasoning efforts a client may choose, as JSON-RPC's `setReasoningEffort` takes them.
EFFORTS = (
    (DEFAULT_EFFORT, "Default", "None is sent: the model's own default applies."),
    ("low", "Low", "Think briefly: faster and cheaper answers."),
    ("medium", "Medium", "Think moderately."),
    ("high", "High", "Think hard: slower, more thorough answers."),
)
EFFORT_IDS = tuple(effort for effort, _, _ in EFFORTS)


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
    choices = list(dict.fromkeys([m for m in (runtime.model, *models) if m]))
    if choices:  # no model chosen and none listed: nothing to choose from yet
        options.append(
            SessionConfigOptionSelect(
                id="model",
                name="Model",
                type="select",
                current_value=runtime.model or choices[0],
                options=[SessionConfigSelectOption(value=m, name=m) for m in choices],
            )
        )
    options.append(_effort_option(runtime.config.agent.reasoning_effort))
    return options


def _effort_option(effort: str | None) -> SessionConfigOptionSelect:
    """The `reasoning_effort` select (an effort the config names beyond rho's three is
    offered too, so that the current value is among the choices)."""
    efforts = [SessionConfigSelectOption(value=i, name=n, description=d) for i, n, d in EFFORTS]
    if effort is not None and effort not in EFFORT_IDS:
        efforts.append(SessionConfigSelectOption(value=effort, name=effort))
    return SessionConfigOptionSelect(
        id="reasoning_effort",
        name="Reasoning effort",
        type="select",
        current_value=effort or DEFAULT_EFFORT,
        options=efforts,
    )


def effort_value(value: object) -> tuple[bool, str | None]:
    """Whether `value` is an effort a client may set, and the effort it sets (None: none)."""
    if value == DEFAULT_EFFORT:
        return True, None
    if isinstance(value, str) and value in EFFORT_IDS:
        return True, value
    return False, None


__all__ = [
    "DEFAULT_EFFORT",
    "EFFORTS",
    "EFFORT_IDS",
    "MODES",
    "MODE_IDS",
    "config_options",
    "effort_value",
    "mode_state",
]
