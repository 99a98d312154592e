"""Plugin config sections: who declares which top-level table, checked for conflicts.

Plugins declare sections with the `rho_register_config_sections` hook (section name →
pydantic model). The kernel owns the tables of `RhoConfig`; every other table belongs to the
plugin that declares it. A malformed declaration is reported and skipped; a name declared
twice is a `SectionConflict`, naming both owners.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from rho_kernel import hookspecs
from rho_kernel.config.errors import ConfigError, is_bare_key
from rho_kernel.config.model import RhoConfig

#: The owner named for the kernel's own sections.
KERNEL_OWNER = "rho-kernel"

#: The entry-point group in which installed distributions name the pack that reads a table:
#: `table = "distribution"`, for the hint when such a table is in a file but no loaded plugin
#: reads it (typically because that pack is not installed, so it cannot say so itself).
SECTION_PACKS_GROUP = "rho.section_packs"

HOOK = "rho_register_config_sections"

# A distribution name as the core metadata specification allows it.
_DISTRIBUTION_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


class SectionConflict(ConfigError):
    """Two owners declare the same config section (a `ConfigError` of no file and key)."""

    def __init__(self, problem: str) -> None:
        super().__init__(None, None, problem)


@dataclass(frozen=True, slots=True)
class SectionSpec:
    """One declared plugin section: its `[name]`, its pydantic `model` and the `owner` plugin."""

    name: str
    model: type[BaseModel]
    owner: str


def _owner_text(owner: str) -> str:
    return KERNEL_OWNER if owner == KERNEL_OWNER else f"plugin {owner!r}"


def _valid(plugin: str, name: object, model: object, report: Callable[[str], None]) -> bool:
    """Whether one declared entry is usable; a problem is reported (the entry is skipped)."""
    if not isinstance(name, str) or not is_bare_key(name):
        shown = repr(name)[:60] if isinstance(name, str) else f"<{type(name).__name__}>"
        report(
            f"plugin {plugin!r} declared the config section {shown}, which is not a bare "
            "TOML key (letters, digits, '_' and '-'); ignored"
        )
        return False
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        report(
            f"plugin {plugin!r} declared the config section [{name}] with a "
            f"{type(model).__name__}, not a pydantic BaseModel subclass; ignored"
        )
        return False
    return True


def collect_sections(
    contributions: Iterable[tuple[str, object]], report: Callable[[str], None]
) -> dict[str, SectionSpec]:
    """The declared sections by name, from `(plugin name, hook result)` pairs.

    A result that is not a dict, a name that is not a bare TOML key and a model that is not a
    pydantic `BaseModel` subclass are reported through `report` and skipped. Raises
    `SectionConflict` when a name is declared twice, or is one of the kernel's tables.
    """
    specs: dict[str, SectionSpec] = {}
    for plugin, result in contributions:
        if not isinstance(result, Mapping):
            report(
                f"plugin {plugin!r} returned {type(result).__name__} from {HOOK}; expected a "
                "dict of section name to model (ignored)"
            )
            continue
        for name, model in result.items():
            if not _valid(plugin, name, model, report):
                continue
            owner = KERNEL_OWNER if name in RhoConfig.model_fields else None
            other = specs.get(name)
            if owner is None and other is not None:
                owner = other.owner
            if owner is not None:
                remedy = (
                    f"disable plugin {plugin!r}" if owner == KERNEL_OWNER else "disable one of them"
                )
                raise SectionConflict(
                    f"config section [{name}] is declared by both {_owner_text(owner)} and "
                    f"{_owner_text(plugin)}; {remedy} in [plugins] disabled"
                )
            specs[name] = SectionSpec(name, model, plugin)
    return specs


def section_packs() -> dict[str, str]:
    """The pack (distribution) that reads each table, as the installed distributions declare
    it in the `rho.section_packs` entry-point group, read from their metadata (no plugin is
    imported). rho's own packs are declared by the distribution of the `rho` command, so that
    the hint can name a pack that is not installed. A table name that is not a bare TOML key
    or a value that is not a distribution name is ignored; a table two distributions assign
    to different packs names none.
    """
    from importlib.metadata import entry_points  # only when a table is unclaimed

    packs: dict[str, str] = {}
    ambiguous: set[str] = set()
    for point in entry_points(group=SECTION_PACKS_GROUP):
        table, pack = point.name.strip(), point.value.strip()
        if not is_bare_key(table) or not _DISTRIBUTION_NAME.fullmatch(pack):
            continue
        known = packs.setdefault(table, pack)
        if _normalized(known) != _normalized(pack):
            ambiguous.add(table)
    return {table: pack for table, pack in packs.items() if table not in ambiguous}


def _normalized(name: str) -> str:
    """A distribution name as packaging compares them: case and `-_.` runs folded."""
    return re.sub(r"[-_.]+", "-", name).lower()


def plugin_sections(disabled: Iterable[str] = ()) -> dict[str, type[BaseModel]]:
    """The sections declared by the plugins rho loads: its built-ins and every `rho` entry
    point not in `disabled`, loaded here to ask them.

    For tools outside a running rho (`rho trust`): problems loading a plugin are not
    reported (rho reports them when it starts). Raises `SectionConflict` as
    `collect_sections` does.
    """
    from rho_kernel.plugins import PluginHost  # the host imports plugins: only when asked

    host = PluginHost(disabled=disabled, report=lambda _: None)
    host.load_defaults()
    host.load_entrypoints()
    specs = collect_sections(host.call_each(hookspecs.rho_register_config_sections), host.report)
    return {name: spec.model for name, spec in specs.items()}


__all__ = [
    "HOOK",
    "KERNEL_OWNER",
    "SECTION_PACKS_GROUP",
    "SectionConflict",
    "SectionSpec",
    "collect_sections",
    "plugin_sections",
    "section_packs",
]
