"""The kernel's configuration schema (`~/.rho/config.toml` merged with the project's file).

Fields marked `NeedsTrust` take a project file's value only when it does not loosen the
user's, or when the user trusts that file; `Additive` lists are extended, never replaced;
a trusted project's `Replaced` tables replace the user's (see `rho_kernel.config.markers`).

Plugins declare their own sections (`rho_register_config_sections`); the loader validates
them with the same rules and attaches them to `RhoConfig`, where `RhoConfig.section` reads
them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from rho_kernel.config.markers import (
    Additive,
    NeedsTrust,
    Replaced,
    adds_items,
    less_strict,
    more_permissive,
    turns_off,
    turns_on,
)

_Model = TypeVar("_Model", bound=BaseModel)


class ConfigSectionError(LookupError):
    """`RhoConfig.section` was asked for a section that is not registered under that model."""


class _Section(BaseModel):
    # Empty list and table defaults are written as `[]` and `{}`: pydantic gives each instance
    # its own copy, and, unlike `default_factory=list`, they cost no signature inspection
    # when the class is built (at every start).
    model_config = ConfigDict(extra="ignore", frozen=False, defer_build=True)


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
    #: The share of the prompt budget one tool result may use before it is cut.
    tool_result_share: float = Field(0.5, gt=0, le=1)
    #: The share of the room beside the tool definitions a fitting step frees the
    #: conversation down to, so that the next requests only append (see context/steps.py).
    fit_low_water: float = Field(0.5, gt=0, le=1)
    stuck_loop_threshold: int = Field(3, ge=0)
    max_consecutive_empty: int = Field(5, ge=0)
    show_reasoning: bool = False
    reasoning_effort: str | None = None
    #: Compact older turns when the context is this full (percent of the prompt budget; 0 = off).
    auto_compact_threshold: int = Field(0, ge=0, le=100)
    #: The compaction strategy by name: "mechanical", "llm", or one a plugin registers.
    compaction_mode: str = Field("mechanical", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
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
    #: Hints for the provider's prompt cache (see `rho_kernel.providers.cache_hints`):
    #: "auto" (those the preset or the endpoint's host is known to take), one style by name
    #: for an endpoint rho does not recognise, or "off" (none). true is "auto", false "off".
    cache_hints: (
        Literal["auto", "off", "prompt_cache_key", "openrouter", "cache_control"] | bool
    ) = "auto"


ApprovalMode = Literal["auto", "ask", "deny"]
PermissionMode = Literal["ask", "auto-edit", "read-only", "auto"]
"""How much runs without asking (`[approval] mode`, `--approval-mode`, `setApprovalMode`):
`ask` as the policy says; `auto-edit` also file writes in the project; `read-only` only
tools that read (the others are refused); `auto` everything (commands stay in the OS
sandbox; where none works they still ask)."""


class ApprovalConfig(_Section):
    """`[approval]`: per-tool overrides of the risk-based policy, and rules for calls that
    run without asking (`allow`) or never run (`deny`), e.g. `"run_command(cargo test:*)"`
    (see `rho_kernel.approvals`). Deny beats allow. A repository may add deny rules at any
    time; its allow rules count only once the project is trusted."""

    per_tool: Annotated[dict[str, ApprovalMode], NeedsTrust(less_strict, per_key=True)] = {}
    #: A repository may make it stricter at any time, more permissive only once trusted.
    mode: Annotated[PermissionMode, NeedsTrust(more_permissive)] = "ask"
    allow: Annotated[list[str], Additive(), NeedsTrust(adds_items)] = []
    deny: Annotated[list[str], Additive()] = []


class ShellConfig(_Section):
    """`[shell]`: the shell `run_command` and `wait_for` use, their limits, and additions to
    the command denylist and to the environment variables commands never see."""

    #: Which shell runs commands (None: bash, or PowerShell on Windows). A repository may not
    #: choose it: the PowerShell checks are a tokenizer, not a full parser.
    program: Annotated[Literal["bash", "pwsh", "powershell"] | None, NeedsTrust()] = None
    timeout_secs: int = Field(120, ge=1)
    max_timeout_secs: int = Field(600, ge=1)
    #: The most of each of stdout and stderr a command keeps in memory (head and tail): a
    #: guard, not what the model sees (the context budget decides that); at most 16 MiB, so
    #: that no configuration (a repository's included) makes it a way to exhaust memory.
    max_output_bytes: int = Field(1 << 20, ge=1024, le=16 << 20)
    denied_commands: Annotated[list[str], Additive()] = []
    denied_flag_combos: Annotated[list[list[str]], Additive()] = []
    env_remove: Annotated[list[str], Additive()] = []


def _turns_off(project: object, user: object) -> bool:
    return project == "off" and user != "off"


def _widens_network(project: object, user: object) -> bool:
    """More network than the user's: `true` over anything else, or hosts the user lacks."""
    if project is False or user is True:
        return False
    if project is True:
        return True
    have = user if isinstance(user, list) else []
    return any(host not in have for host in project) if isinstance(project, list) else True


#: `[sandbox] require` from the most to the least strict.
_REQUIRE_STRICTNESS = {True: 2, "ask": 1, False: 0}


def _loosens_require(project: object, user: object) -> bool:
    """A `require` less strict than the user's (refuse > ask > run unconfined)."""
    mine = _REQUIRE_STRICTNESS.get(user, 1)
    return _REQUIRE_STRICTNESS.get(project, 0) < mine


#: What `[sandbox] require` says where no backend can confine commands: refuse them (true),
#: ask for every one whatever the rules and mode ("ask"), or run them unconfined (false).
SandboxRequirement = bool | Literal["ask"]


class SandboxConfig(_Section):
    """`[sandbox]`: the OS confinement of every command rho runs for the model.

    A repository's own file may tighten it, but its `mode = "off"`, `network`, `writable`
    and `backend` count only once the user trusts that file.
    """

    #: "confined" (where a backend works) or "off" (commands run unconfined).
    mode: Annotated[Literal["confined", "off"], NeedsTrust(_turns_off)] = "confined"
    #: False (no network), True (all), or the hosts that may be reached where the backend
    #: can limit by host (elsewhere a list means no network).
    network: Annotated[bool | list[str], NeedsTrust(_widens_network)] = False
    #: Extra writable paths (`~/…`, absolute, or relative to the project), each asked for
    #: once through an approval and then recorded.
    writable: Annotated[list[str], NeedsTrust(adds_items), Additive()] = []
    #: Paths commands may not read, besides the built-in credential locations.
    extra_read_deny: Annotated[list[str], Additive()] = []
    #: Where no backend can confine commands: `"ask"` (every command asks, whatever the
    #: rules and mode say; unattended, none runs), `true` (refuse them all), `false` (run
    #: them unconfined, as rules and mode say: the user's explicit opt-out).
    require: Annotated[SandboxRequirement, NeedsTrust(_loosens_require)] = "ask"
    #: The backend to use by name (None: the first that works on this machine).
    backend: Annotated[str | None, NeedsTrust()] = None
    #: Whether a call may ask to leave the sandbox once (`sandbox: "network"` or
    #: `"unconfined"` with a justification; it always asks). False refuses such calls.
    allow_escalation: Annotated[bool, NeedsTrust(turns_on)] = True


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

    enabled: Annotated[bool, NeedsTrust(turns_off)] = True
    custom_patterns: Annotated[list[str], Additive()] = []


class SystemPromptConfig(_Section):
    """`[system_prompt]`: fragments appended to the system prompt."""

    #: Repository text in the system prompt, like context files: it needs trust.
    extensions: Annotated[list[str], NeedsTrust(adds_items)] = []


class ModelConfig(_Section):
    """One `[[models]]` entry: prices (USD per million tokens) and limits for a model id."""

    id: str
    provider: str | None = None
    input_price: float | None = None
    output_price: float | None = None
    cached_price: float | None = None
    context_window: int | None = Field(None, ge=1)
    #: Whether the model takes images in prompts (None: as the built-in table says, and
    #: when it does not know the model, images are sent).
    images: bool | None = None


class PluginsConfig(_Section):
    """`[plugins]`: plugins (by registered name) that must not be loaded."""

    #: Disabling could switch off a guard plugin: a project adds entries only when trusted.
    disabled: Annotated[list[str], NeedsTrust(adds_items), Additive()] = []


class RhoConfig(_Section):
    """The whole merged configuration. Every field has a default, so an empty file is valid."""

    agent: AgentConfig = Field(default_factory=AgentConfig)
    #: Endpoints and API key variables: a repository may not choose where data goes.
    providers: Annotated[list[ProviderConfig], NeedsTrust(adds_items)] = []
    provider: Annotated[ProviderConfig | None, NeedsTrust()] = None  # legacy single table
    #: A trusted project's `[approval]` replaces the user's; an untrusted one merges per tool.
    approval: Annotated[ApprovalConfig, Replaced()] = Field(default_factory=ApprovalConfig)
    shell: ShellConfig = Field(default_factory=ShellConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    redaction: RedactionConfig = Field(default_factory=RedactionConfig)
    system_prompt: SystemPromptConfig = Field(default_factory=SystemPromptConfig)
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)
    models: list[ModelConfig] = []

    #: Plugin sections by name, validated and merged (see `section`).
    _sections: dict[str, BaseModel] = PrivateAttr(default_factory=dict)

    def section(self, name: str, model: type[_Model]) -> _Model:
        """The validated, merged section `[name]`, an instance of `model`.

        `name` is a section a plugin declared with `rho_register_config_sections` (the model's
        defaults when no file sets it), or one of the kernel's own tables (`agent`, `shell`,
        …). Raises `ConfigSectionError` when no section of that name is registered or it is
        registered with another model.
        """
        value = self._sections.get(name)
        if value is None and name in type(self).model_fields:
            kernel = getattr(self, name)
            value = kernel if isinstance(kernel, BaseModel) else None
        if value is None:
            known = ", ".join(f"[{key}]" for key in sorted(self._sections)) or "none"
            raise ConfigSectionError(
                f"no config section [{name}] is registered (plugin sections: {known}); a "
                "plugin declares its sections with the rho_register_config_sections hook"
            )
        if not isinstance(value, model):
            registered = type(value)
            raise ConfigSectionError(
                f"config section [{name}] is registered with the model "
                f"{registered.__module__}.{registered.__qualname__}, not "
                f"{model.__module__}.{model.__qualname__}"
            )
        return value

    def with_sections(self, values: Mapping[str, BaseModel]) -> RhoConfig:
        """A copy of this config that also holds the plugin sections `values` (by name).

        The loader uses it; tests use it to hand a tool a config with its section set. Raises
        `ValueError` for a value that is not a model instance or a kernel table's name.
        """
        for name, value in values.items():
            if name in type(self).model_fields:
                raise ValueError(f"[{name}] is one of the kernel's own config sections")
            if not isinstance(value, BaseModel):
                raise ValueError(f"config section [{name}] must be a pydantic model instance")
        copy = self.model_copy(deep=True)
        copy._sections = {**self._sections, **values}
        return copy

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
    "ConfigSectionError",
    "ContextConfig",
    "ModelConfig",
    "PluginsConfig",
    "ProviderConfig",
    "RedactionConfig",
    "RhoConfig",
    "SandboxConfig",
    "ShellConfig",
    "SystemPromptConfig",
]
