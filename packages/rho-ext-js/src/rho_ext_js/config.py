"""`[extensions]`: which extensions run and what they may do.

Per-extension permissions override `[extensions.defaults]` field by field; a field unset
everywhere means the extension host's own default (no network, no commands). The merge and
trust rules are declared on the fields (see `rho_kernel.config.markers`):

- a project's `enabled` list and (when trusted) its `per_extension` table replace the user's
  as a whole; `disabled` only ever extends the user's list; `defaults` merges field by field;
- an untrusted project may enable only extensions the user enabled, and may not grant
  `network`, `commands` or more `allow_paths`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from rho_kernel import Additive, NeedsTrust, Replaced, adds_items, turns_on


class ExtensionPermissions(BaseModel):
    """`[extensions.defaults]` or `[extensions.per_extension."<name>"]`.

    Every field is optional: None means "not set here" (a per-extension value overrides the
    defaults field by field; unset everywhere means the extension host's own default).
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    network: Annotated[bool | None, NeedsTrust(turns_on)] = None
    commands: Annotated[bool | None, NeedsTrust(turns_on)] = None
    max_memory_mb: int | None = Field(None, ge=1)
    max_execution_time_s: float | None = Field(None, gt=0)
    #: How many times a stopped isolate is restarted by the next call (see rho_ext_js.restarts).
    max_restarts: int | None = Field(None, ge=0, le=100)
    allow_paths: Annotated[list[str] | None, NeedsTrust(adds_items)] = None


class ExtensionsConfig(BaseModel):
    """`[extensions]`: the extensions to load or skip, and their permissions."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    #: Lists are replaced by the project's (as every list): a subset of the user's needs no trust.
    enabled: Annotated[list[str], NeedsTrust(adds_items)] = Field(default_factory=list)
    #: The user's entries always stay; a project adds its own.
    disabled: Annotated[list[str], Additive()] = Field(default_factory=list)
    defaults: ExtensionPermissions = Field(default_factory=ExtensionPermissions)
    #: A trusted project's table replaces the user's; an untrusted one's merges per extension.
    per_extension: Annotated[dict[str, ExtensionPermissions], Replaced()] = Field(
        default_factory=dict
    )

    def permissions(self, name: str) -> ExtensionPermissions:
        """The permissions of extension `name`: its own entry over the defaults, field by field."""
        own = self.per_extension.get(name)
        if own is None:
            return self.defaults.model_copy()
        merged = self.defaults.model_dump()
        merged.update(own.model_dump(exclude_none=True))
        return ExtensionPermissions.model_validate(merged)


__all__ = ["ExtensionPermissions", "ExtensionsConfig"]
