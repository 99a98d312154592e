"""Warnings for the keys of a config file that nothing reads.

Unknown keys are ignored for compatibility, but each is reported, with a "did you mean" when
a known key is close, so that a typo does not go unnoticed. A whole table no loaded plugin
declares gets one warning (naming the pack that reads it when an installed distribution
declares one, see `section_packs`). The check needs every section, so the loader runs it
once the plugins have declared theirs.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rho_kernel.config.errors import key_path
from rho_kernel.config.model import RhoConfig
from rho_kernel.config.nesting import field_nesting
from rho_kernel.config.sections import section_packs


def _unknown_keys(
    data: Mapping[str, Any], model: type[BaseModel], loc: tuple[Any, ...]
) -> Iterator[tuple[tuple[Any, ...], list[str]]]:
    """Every key of `data` that `model` does not know: (location, known sibling names)."""
    if model.model_config.get("extra") == "allow":  # the model keeps unknown keys itself
        return
    known = list(model.model_fields)
    for key, value in data.items():
        if key not in model.model_fields:
            yield (*loc, key), known
            continue
        nesting = field_nesting(model, key)
        if nesting is None:
            continue
        how, inner = nesting
        if how == "model" and isinstance(value, dict):
            yield from _unknown_keys(value, inner, (*loc, key))
        elif how == "list" and isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    yield from _unknown_keys(item, inner, (*loc, key, index))
        elif how == "dict" and isinstance(value, dict):
            for name, item in value.items():
                if isinstance(item, dict):
                    yield from _unknown_keys(item, inner, (*loc, key, name))


def _tables(sections: Mapping[str, type[BaseModel]]) -> dict[str, type[BaseModel]]:
    """Every table a top-level key may name: the kernel's and the plugins' sections."""
    tables: dict[str, type[BaseModel]] = {}
    for name in RhoConfig.model_fields:
        nesting = field_nesting(RhoConfig, name)
        if nesting is not None and nesting[0] == "model":
            tables[name] = nesting[1]
    return {**tables, **sections}


def _suggestion(
    loc: tuple[Any, ...], known: list[str], sections: Mapping[str, type[BaseModel]]
) -> str:
    """A "did you mean …?" hint for an unknown key, or ""."""
    name = str(loc[-1])
    if len(loc) == 1:  # a section field written at the top level, e.g. `model = "…"`
        # An exact field name wins over a near top-level name (`model` is not `models`).
        for section, model in _tables(sections).items():
            if name in model.model_fields:
                shown = key_path((section, name))
                return f"did you mean '{shown}' (in the [{key_path((section,))}] table)?"
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"did you mean '{key_path((*loc[:-1], close[0]))}'?"
    return ""


def _unclaimed(
    name: str,
    sections: Mapping[str, type[BaseModel]],
    disabled: Collection[str],
    not_loading: str | None,
) -> str:
    """The warning text for a top-level table no loaded plugin declares."""
    shown = key_path((name,))
    pack = section_packs().get(name)
    if pack is not None and pack in disabled:
        return f"no loaded plugin reads [{shown}]; {pack} is disabled in [plugins] disabled"
    if pack is not None and not_loading is not None:
        from rho_kernel.plugins import installed_distribution  # only on this rare path

        if installed_distribution(pack):
            return f"no loaded plugin reads [{shown}]; {pack} is installed but not loaded: {not_loading}"
        return f"no installed plugin reads [{shown}]; install {pack} ({not_loading})"
    if pack is not None:
        return f"no installed plugin reads [{shown}]; install {pack}"
    known = [*RhoConfig.model_fields, *sections]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean [{key_path((close[0],))}]?" if close else ""
    return f"no installed plugin reads [{shown}]{hint}"


def _nested_keys(
    key: str, value: Any, sections: Mapping[str, type[BaseModel]]
) -> Iterator[tuple[tuple[Any, ...], list[str]]]:
    """The unknown keys inside the known top-level entry `key`."""
    if key in RhoConfig.model_fields:
        yield from _unknown_keys({key: value}, RhoConfig, ())
    elif isinstance(value, dict):
        yield from _unknown_keys(value, sections[key], (key,))


def unknown_key_warnings(
    data: Mapping[str, Any],
    file: Path,
    sections: Mapping[str, type[BaseModel]],
    disabled: Collection[str] = (),
    not_loading: str | None = None,
) -> list[str]:
    """One warning per key of `data` (the raw table of `file`) that nothing reads.

    `sections` are the plugin sections by name; `disabled` the plugins disabled in config
    and `not_loading` why installed plugins are not loaded (`PluginHost.not_loading`), both
    for the hint on an unclaimed table whose pack is declared (`section_packs`).
    """
    warnings: list[str] = []
    top = [*RhoConfig.model_fields, *sections]
    for key, value in data.items():
        if key in RhoConfig.model_fields or key in sections:
            found = list(_nested_keys(key, value, sections))
        elif isinstance(value, dict):
            warnings.append(f"{file}: {_unclaimed(key, sections, disabled, not_loading)}")
            continue
        else:
            found = [((key,), top)]
        for loc, known in found:
            hint = _suggestion(loc, known, sections)
            message = f"{file}: unknown key '{key_path(loc)}' ignored"
            warnings.append(message + (f"; {hint}" if hint else ""))
    return warnings


__all__ = ["unknown_key_warnings"]
