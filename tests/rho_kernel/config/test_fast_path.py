"""Plainly valid config tables become models without a validator, exactly as validation
would make them; anything else is left to pydantic (so its errors stay the only ones)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_equality import assert_same, strictly_validated
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rho_ext_js.config import ExtensionsConfig
from rho_kernel.config.fast_path import constructed
from rho_kernel.config.model import RhoConfig
from rho_memory.config import MemoryConfig
from rho_tools_fs.config import ToolsConfig
from rho_tools_rust.config import RustConfig

MODELS: list[type[BaseModel]] = [RhoConfig, ExtensionsConfig, MemoryConfig, ToolsConfig, RustConfig]


#: Values of every kind a TOML table holds, right and wrong for the fields they land in.
_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-5, max_value=200_000)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2)
    | st.sampled_from(
        [
            "",
            "x",
            "auto",
            "ask",
            "deny",
            "confined",
            "off",
            "bash",
            "pwsh",
            "mechanical",
            "chat_completions",
            "Bad Api",
            "openai",
            "rm",
            "*.md",
            "llm",
            "a\nb",
            "ollama",
        ]
    )
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _tables(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    """Tables keyed by the model's own fields (some nested tables filled the same way),
    with an unknown key now and then."""
    keys = st.sampled_from([*model.model_fields, "unknown_key"])
    nested = {
        name: field.annotation
        for name, field in model.model_fields.items()
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
    }
    value = _VALUES | (
        st.sampled_from(sorted(nested)).flatmap(lambda name: _tables(nested[name]))
        if nested
        else _VALUES
    )
    return st.dictionaries(keys, value, max_size=6)


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_table_made_without_validation_is_what_validation_makes(
    model: type[BaseModel], data: st.DataObject
) -> None:
    table = data.draw(_tables(model))
    made = constructed(model, table)
    validated = strictly_validated(model, table)
    if made is not None:
        assert validated is not None, f"accepted what pydantic refuses: {table!r}"
        assert_same(made, validated)


TYPICAL = {
    "agent": {
        "model": "qwen",
        "max_iterations": 40,
        "tool_result_share": 1,
        "compaction_mode": "llm",
    },
    "providers": [
        {
            "name": "work",
            "endpoint": "https://llm.example/v1",
            "api_key_env": "WORK_KEY",
            "api": "responses",
        }
    ],
    "approval": {"per_tool": {"run_command": "ask", "write_file": "auto"}},
    "shell": {
        "timeout_secs": 60,
        "denied_commands": ["shutdown"],
        "denied_flag_combos": [["git", "-f"]],
    },
    "sandbox": {"mode": "confined", "network": ["pypi.org"], "writable": ["~/.cache"]},
    "context": {"scan_list": ["AGENTS.md"]},
    "redaction": {"custom_patterns": ["sk-[a-z]+"]},
    "models": [{"id": "qwen", "input_price": 0.5, "context_window": 32768}],
    "plugins": {"disabled": ["rho-memory"]},
    "unknown": {"ignored": True},
}


@pytest.mark.parametrize(
    ("model", "table"),
    [
        (RhoConfig, TYPICAL),
        (RhoConfig, {"provider": {"name": "legacy", "endpoint": "http://localhost:1234/v1"}}),
        (RhoConfig, {}),
        (ExtensionsConfig, {"enabled": ["lint"], "per_extension": {"lint": {"max_memory_mb": 64}}}),
        (ExtensionsConfig, {}),
        (MemoryConfig, {}),
        (ToolsConfig, {}),
        (RustConfig, {}),
    ],
)
def test_the_usual_tables_are_made_without_validation(
    model: type[BaseModel], table: dict[str, Any]
) -> None:
    made = constructed(model, table)
    assert made is not None
    validated = strictly_validated(model, table)
    assert validated is not None
    assert_same(made, validated)


def test_the_legacy_provider_table_is_adopted_as_validation_adopts_it() -> None:
    made = constructed(RhoConfig, {"provider": {"name": "legacy"}})
    assert made is not None and [p.name for p in made.providers] == ["legacy"]


@pytest.mark.parametrize(
    "table",
    [
        {"agent": {"max_iterations": 0}},  # below its bound
        {"agent": {"max_iterations": True}},  # a bool is not an integer
        {"agent": {"max_iterations": 3.0}},  # nor is a float
        {"agent": {"compaction_mode": "has space"}},  # pattern
        {"agent": {"compaction_mode": "mechanical\n"}},  # `$` before a newline: not a match
        {"sandbox": {"mode": "sideways"}},  # not one of the choices
        {"sandbox": {"network": [1]}},
        {"agent": {"first_token_timeout_secs": float("inf")}},
        {"models": [{"provider": "x"}]},  # `id` is required
        {"shell": "not a table"},
    ],
)
def test_what_validation_refuses_is_left_to_it(table: dict[str, Any]) -> None:
    assert constructed(RhoConfig, table) is None


def test_a_model_with_a_field_validator_is_left_to_pydantic() -> None:
    class Checked(BaseModel):
        model_config = ConfigDict(extra="ignore")
        name: str = "x"

        @field_validator("name")
        @classmethod
        def _upper(cls, value: str) -> str:
            return value.upper()

    assert constructed(Checked, {"name": "a"}) is None


def test_a_plugins_pattern_is_left_to_pydantics_linear_time_engine() -> None:
    class Patterned(BaseModel):
        model_config = ConfigDict(extra="ignore")
        name: str = Field("x", pattern=r"^(a+)+$")

    # Python's re would backtrack for a long time on this; pydantic's engine does not.
    assert constructed(Patterned, {"name": "a" * 40 + "!"}) is None
    assert constructed(Patterned, {"name": "aaa"}) is None
    assert constructed(RhoConfig, {"agent": {"compaction_mode": "llm"}}) is not None


def test_a_model_with_an_alias_or_forbidden_extras_is_left_to_pydantic() -> None:
    class Aliased(BaseModel):
        name: str = Field("x", alias="Name")

    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: str = "x"

    assert constructed(Aliased, {"Name": "a"}) is None
    assert constructed(Strict, {"name": "a", "other": 1}) is None
    made = constructed(Strict, {"name": "a"})  # nothing extra: what validation gives
    assert made is not None and made.name == "a"


def test_allowed_extras_are_kept_as_validation_keeps_them() -> None:
    class Open(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str = "x"

    table = {"name": "a", "server": {"command": "x", "args": [1, None]}}
    made = constructed(Open, table)
    assert made is not None
    validated = Open.model_validate(table)
    assert made.model_extra == validated.model_extra == {"server": table["server"]}
    assert made.model_fields_set == validated.model_fields_set
    assert made.model_dump() == validated.model_dump()


def test_a_model_validator_that_refuses_leaves_the_error_to_pydantic() -> None:
    class Checked(BaseModel):
        low: int = 0
        high: int = 1

        @model_validator(mode="after")
        def _ordered(self) -> Checked:
            if self.low > self.high:
                raise ValueError("low is above high")
            return self

    assert constructed(Checked, {"low": 5, "high": 2}) is None
    made = constructed(Checked, {"low": 1, "high": 2})
    assert made is not None and (made.low, made.high) == (1, 2)


def test_no_validator_is_built_for_plainly_valid_tables() -> None:
    import subprocess
    import sys

    probe = (
        "from rho_kernel.config.fast_path import constructed\n"
        "from rho_kernel.config.model import RhoConfig, AgentConfig\n"
        f"made = constructed(RhoConfig, {TYPICAL!r})\n"
        "assert made is not None and made.agent.model == 'qwen'\n"
        "print(RhoConfig.__pydantic_complete__, AgentConfig.__pydantic_complete__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False"]
