"""Configuration: the schema (`model`) and the two-file loader (`loader`)."""

from rho_kernel.config.loader import (
    ConfigError,
    load_config,
    merge_config_dicts,
    project_config_path,
    provider_key,
    user_config_path,
)
from rho_kernel.config.model import (
    AgentConfig,
    ApprovalConfig,
    ApprovalMode,
    ContextConfig,
    ExtensionPermissions,
    ExtensionsConfig,
    MemoryConfig,
    PluginsConfig,
    ProviderConfig,
    RedactionConfig,
    RhoConfig,
    ShellConfig,
    SystemPromptConfig,
)

__all__ = [
    "AgentConfig",
    "ApprovalConfig",
    "ApprovalMode",
    "ConfigError",
    "ContextConfig",
    "ExtensionPermissions",
    "ExtensionsConfig",
    "MemoryConfig",
    "PluginsConfig",
    "ProviderConfig",
    "RedactionConfig",
    "RhoConfig",
    "ShellConfig",
    "SystemPromptConfig",
    "load_config",
    "merge_config_dicts",
    "project_config_path",
    "provider_key",
    "user_config_path",
]
