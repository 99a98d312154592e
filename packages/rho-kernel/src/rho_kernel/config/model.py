"""The configuration schema (`~/.rho/config.toml` merged with `<project>/.rho/config.toml`).

Fields marked `NeedsTrust` take a project file's value only when it does not loosen the
user's, or when the user trusts that file; `Additive` lists are extended, never replaced
(see `rho_kernel.config.markers`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rho_kernel.config.markers import (
    Additive,
    NeedsTrust,
    adds_items,
    disables,
    enables,
    less_strict,
)


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=False)


class AgentConfig(_Section):
    """`[agent]`: model selection and loop limits."""

    model: str | None = None
    #: Where prompts and code are sent: a repository may not choose it.
    provider: Annotated[str | None, NeedsTrust()] = None
    max_iterations: int = Field(32, ge=1)
    retry_budget: int = Field(4, ge=0)
    initial_backoff_ms: int = Field(500, ge=0)
    token_budget: int = Field(32768, ge=256)
    completion_reserve: int = Field(8192, ge=1)
    stuck_loop_threshold: int = Field(3, ge=0)
    max_consecutive_empty: int = Field(5, ge=0)
    show_reasoning: bool = False
    reasoning_effort: str | None = None
    auto_compact_threshold: int = Field(0, ge=0, le=100)
    compaction_mode: Literal["mechanical", "llm"] = "mechanical"
    first_token_timeout_secs: float = Field(90, ge=0)
    stream_idle_timeout_secs: float = Field(60, ge=0)


class ProviderConfig(_Section):
    """One `[[providers]]` entry."""

    name: str | None = None
    preset: str | None = None
    type: str | None = None
    endpoint: str | None = None
    api: str | None = Field(
        None,
        pattern=r"^[a-z][a-z0-9_]*$",
        description='Wire protocol: "chat_completions" or "responses" (plugins may add more).',
    )
    api_key_env: str | None = None
    default_model: str | None = None
    models_endpoint: str | None = None


ApprovalMode = Literal["auto", "ask", "deny"]


class ApprovalConfig(_Section):
    """`[approval]`: per-tool overrides of the risk-based policy."""

    per_tool: Annotated[dict[str, ApprovalMode], NeedsTrust(less_strict, per_key=True)] = Field(
        default_factory=dict
    )


class ShellConfig(_Section):
    """`[shell]`: the shell `run_command` and `wait_for` use, their limits, and additions to
    the command denylist and to the environment variables commands never see."""

    #: Which shell runs commands (None: bash, or PowerShell on Windows). A repository may not
    #: choose it: the PowerShell checks are a tokenizer, not a full parser.
    program: Annotated[Literal["bash", "pwsh", "powershell"] | None, NeedsTrust()] = None
    timeout_secs: int = Field(120, ge=1)
    max_timeout_secs: int = Field(600, ge=1)
    max_output_bytes: int = Field(65536, ge=1024)
    denied_commands: Annotated[list[str], Additive()] = Field(default_factory=list)
    denied_flag_combos: Annotated[list[list[str]], Additive()] = Field(default_factory=list)
    env_remove: Annotated[list[str], Additive()] = Field(default_factory=list)


class ContextConfig(_Section):
    """`[context]`: which project context files are scanned."""

    scan_list: list[str] = Field(
        default_factory=lambda: [
            "AGENTS.md",
            ".agents.md",
            "CLAUDE.md",
            ".cursorrules",
            ".rho/prompt.md",
        ]
    )


class RedactionConfig(_Section):
    """`[redaction]`: secret redaction of tool output."""

    enabled: Annotated[bool, NeedsTrust(disables)] = True
    custom_patterns: Annotated[list[str], Additive()] = Field(default_factory=list)


class MemoryConfig(_Section):
    """`[memory]`: the project knowledge base."""

    enabled: bool = False


class SystemPromptConfig(_Section):
    """`[system_prompt]`: fragments appended to the system prompt."""

    #: Repository text in the system prompt, like context files: it needs trust.
    extensions: Annotated[list[str], NeedsTrust(adds_items)] = Field(default_factory=list)


class ModelConfig(_Section):
    """One `[[models]]` entry: prices (USD per million tokens) and limits for a model id."""

    id: str
    provider: str | None = None
    input_price: float | None = None
    output_price: float | None = None
    cached_price: float | None = None
    context_window: int | None = Field(None, ge=1)


class PluginsConfig(_Section):
    """`[plugins]`: plugins (by registered name) that must not be loaded."""

    #: Disabling could switch off a guard plugin: a project adds entries only when trusted.
    disabled: Annotated[list[str], NeedsTrust(adds_items), Additive()] = Field(default_factory=list)


class ExtensionPermissions(_Section):
    """`[extensions.defaults]` or `[extensions.per_extension."<name>"]`.

    Every field is optional: None means "not set here" (a per-extension value overrides the
    defaults field by field; unset everywhere means the extension host's own default).
    """

    network: Annotated[bool | None, NeedsTrust(enables)] = None
    commands: Annotated[bool | None, NeedsTrust(enables)] = None
    max_memory_mb: int | None = Field(None, ge=1)
    max_execution_time_s: float | None = Field(None, gt=0)
    allow_paths: Annotated[list[str] | None, NeedsTrust(adds_items)] = None


class ExtensionsConfig(_Section):
    """The typed shape of `[extensions]` (kept as a plain dict in `RhoConfig.extensions`).

    The loader validates `[extensions]` against this model so that type errors are reported
    with the file and key; extension hosts can parse `RhoConfig.extensions` with it.
    """

    enabled: Annotated[list[str], NeedsTrust(adds_items)] = Field(default_factory=list)
    disabled: Annotated[list[str], Additive()] = Field(default_factory=list)
    defaults: ExtensionPermissions = Field(default_factory=ExtensionPermissions)
    per_extension: dict[str, ExtensionPermissions] = Field(default_factory=dict)


class RhoConfig(_Section):
    """The whole merged configuration. Every field has a default, so an empty file is valid."""

    agent: AgentConfig = Field(default_factory=AgentConfig)
    #: Endpoints and API key variables: a repository may not choose where data goes.
    providers: Annotated[list[ProviderConfig], NeedsTrust(adds_items)] = Field(default_factory=list)
    provider: Annotated[ProviderConfig | None, NeedsTrust()] = None  # legacy single table
    approval: ApprovalConfig = Field(default_factory=ApprovalConfig)
    shell: ShellConfig = Field(default_factory=ShellConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    redaction: RedactionConfig = Field(default_factory=RedactionConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    system_prompt: SystemPromptConfig = Field(default_factory=SystemPromptConfig)
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)
    models: list[ModelConfig] = Field(default_factory=list)
    extensions: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _adopt_legacy_provider(self) -> RhoConfig:
        """The legacy `[provider]` table is used only when there is no `[[providers]]`."""
        if not self.providers and self.provider is not None:
            self.providers = [self.provider]
        return self


__all__ = [
    "AgentConfig",
    "ApprovalConfig",
    "ApprovalMode",
    "ContextConfig",
    "ExtensionPermissions",
    "ExtensionsConfig",
    "MemoryConfig",
    "ModelConfig",
    "PluginsConfig",
    "ProviderConfig",
    "RedactionConfig",
    "RhoConfig",
    "ShellConfig",
    "SystemPromptConfig",
]
