"""Configuration: the kernel's schema (`model`), field rules (`markers`), the loader (`loader`)
and plugin sections (`sections`; read them with `RhoConfig.section`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.config.errors import ConfigError
    from rho_kernel.config.loader import (
        PROJECT_CONFIG,
        ConfigFiles,
        load_config,
        loosening_settings,
        project_config_path,
        read_config,
        user_config_path,
    )
    from rho_kernel.config.markers import (
        Additive,
        Loosens,
        NeedsTrust,
        Replaced,
        UserOnly,
        adds_items,
        any_change,
        changes,
        disables,
        enables,
        less_strict,
        turns_off,
        turns_on,
    )
    from rho_kernel.config.merge import merge_config_dicts, merge_section, provider_key
    from rho_kernel.config.model import (
        AgentConfig,
        ApprovalConfig,
        ApprovalMode,
        ConfigSectionError,
        ContextConfig,
        PluginsConfig,
        ProviderConfig,
        RedactionConfig,
        RhoConfig,
        SandboxConfig,
        ShellConfig,
        SystemPromptConfig,
    )
    from rho_kernel.config.sections import (
        KERNEL_OWNER,
        SECTION_PACKS_GROUP,
        SectionConflict,
        SectionSpec,
        collect_sections,
        plugin_sections,
        section_packs,
    )
    from rho_kernel.config.untrusted import describe_setting, restrict_untrusted, strip_user_only

_ORIGIN = exports_of(
    {
        "rho_kernel.config.errors": ("ConfigError",),
        "rho_kernel.config.loader": (
            "PROJECT_CONFIG",
            "ConfigFiles",
            "load_config",
            "loosening_settings",
            "project_config_path",
            "read_config",
            "user_config_path",
        ),
        "rho_kernel.config.markers": (
            "Additive",
            "Loosens",
            "NeedsTrust",
            "Replaced",
            "UserOnly",
            "adds_items",
            "any_change",
            "changes",
            "disables",
            "turns_off",
            "turns_on",
            "enables",
            "less_strict",
        ),
        "rho_kernel.config.merge": ("merge_config_dicts", "merge_section", "provider_key"),
        "rho_kernel.config.model": (
            "AgentConfig",
            "ApprovalConfig",
            "ApprovalMode",
            "ConfigSectionError",
            "ContextConfig",
            "PluginsConfig",
            "ProviderConfig",
            "RedactionConfig",
            "RhoConfig",
            "SandboxConfig",
            "ShellConfig",
            "SystemPromptConfig",
        ),
        "rho_kernel.config.sections": (
            "KERNEL_OWNER",
            "SECTION_PACKS_GROUP",
            "SectionConflict",
            "SectionSpec",
            "collect_sections",
            "plugin_sections",
            "section_packs",
        ),
        "rho_kernel.config.untrusted": (
            "describe_setting",
            "restrict_untrusted",
            "strip_user_only",
        ),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "KERNEL_OWNER",
    "PROJECT_CONFIG",
    "SECTION_PACKS_GROUP",
    "Additive",
    "AgentConfig",
    "ApprovalConfig",
    "ApprovalMode",
    "ConfigError",
    "ConfigFiles",
    "ConfigSectionError",
    "ContextConfig",
    "Loosens",
    "NeedsTrust",
    "PluginsConfig",
    "ProviderConfig",
    "RedactionConfig",
    "Replaced",
    "RhoConfig",
    "SandboxConfig",
    "SectionConflict",
    "SectionSpec",
    "ShellConfig",
    "SystemPromptConfig",
    "UserOnly",
    "adds_items",
    "any_change",
    "changes",
    "collect_sections",
    "describe_setting",
    "disables",
    "enables",
    "less_strict",
    "load_config",
    "loosening_settings",
    "merge_config_dicts",
    "merge_section",
    "plugin_sections",
    "project_config_path",
    "provider_key",
    "read_config",
    "restrict_untrusted",
    "section_packs",
    "strip_user_only",
    "turns_off",
    "turns_on",
    "user_config_path",
]
