"""Merging the raw user and project config tables (the project wins, within limits).

The rules come from the schema: tables merge field by field; `[[providers]]` merge by name
and `[[models]]` by id; `Additive` lists are extended rather than replaced; a trusted
project's `Replaced` tables replace the user's wholesale, an untrusted project's (already
stripped of its loosening settings) merge field by field so the user's entries survive (see
`rho_kernel.config.markers`). Plugin sections merge by the markers on their own models.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from rho_kernel.config.markers import Additive, Replaced, marker_of
from rho_kernel.config.model import RhoConfig
from rho_kernel.config.nesting import field_nesting


def provider_key(entry: Mapping[str, Any]) -> str | None:
    """The name a `[[providers]]` entry merges by: `name`, else `preset`, else `endpoint`."""
    for field in ("name", "preset", "endpoint"):
        value = entry.get(field)
        if isinstance(value, str) and value:
            return value
    return None


def _merge_providers(user: list[Any], project: list[Any]) -> list[Any]:
    merged = copy.deepcopy(user)
    for entry in project:
        key = provider_key(entry) if isinstance(entry, dict) else None
        for index, existing in enumerate(merged):
            if key is not None and isinstance(existing, dict) and provider_key(existing) == key:
                merged[index] = copy.deepcopy(entry)
                break
        else:
            merged.append(copy.deepcopy(entry))
    return merged


def _model_key(entry: Any) -> str | None:
    """The id a `[[models]]` entry merges by, or None when it has none."""
    if isinstance(entry, dict):
        value = entry.get("id")
        if isinstance(value, str) and value:
            return value
    return None


def _merge_models(user: list[Any], project: list[Any]) -> list[Any]:
    """`[[models]]` merge by `id`: the project's entries for an id replace all of the user's.

    They take the place of the user's first entry for that id; entries with new ids are
    appended in project order.
    """
    by_id: dict[str, list[Any]] = {}
    for entry in project:
        key = _model_key(entry)
        if key is not None:
            by_id.setdefault(key, []).append(entry)
    merged: list[Any] = []
    placed: set[str] = set()
    for entry in user:
        key = _model_key(entry)
        if key is not None and key in by_id:
            if key not in placed:
                merged.extend(copy.deepcopy(by_id[key]))
                placed.add(key)
            continue
        merged.append(copy.deepcopy(entry))
    for entry in project:
        key = _model_key(entry)
        if key is None or key not in placed:
            merged.append(copy.deepcopy(entry))
    return merged


#: The kernel's arrays of tables that merge entry by entry, by a key of each entry.
_KEYED_ARRAYS: dict[str, Callable[[list[Any], list[Any]], list[Any]]] = {
    "providers": _merge_providers,
    "models": _merge_models,
}


# ── tables, along a model ───────────────────────────────────────────────────


def _merge_table(
    model: type[BaseModel] | None,
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    trusted: bool,
) -> dict[str, Any]:
    """Field-wise recursive merge along `model` (None: an untyped table); lists are replaced."""
    merged = copy.deepcopy(dict(user))
    for key, value in project.items():
        merged[key] = _merge_value(model, key, merged.get(key), value, trusted)
    return merged


def _merge_value(
    model: type[BaseModel] | None, key: str, current: Any, value: Any, trusted: bool
) -> Any:
    """The merged value of field `key` of `model`: the user's `current`, the project's `value`."""
    if not isinstance(current, dict) or not isinstance(value, dict):
        return copy.deepcopy(value)
    field = model.model_fields.get(key) if model is not None else None
    if field is None:
        return _merge_table(None, current, value, trusted)
    if trusted and marker_of(field, Replaced) is not None:
        return copy.deepcopy(value)
    nesting = field_nesting(model, key) if model is not None else None
    if nesting is not None and nesting[0] == "model":
        return _merge_table(nesting[1], current, value, trusted)
    if nesting is not None and nesting[0] == "dict":
        inner = nesting[1]
        merged = copy.deepcopy(current)
        for name, item in value.items():
            mine: Any = merged.get(name)
            both = isinstance(mine, dict) and isinstance(item, dict)
            merged[name] = _merge_table(inner, mine, item, trusted) if both else copy.deepcopy(item)
        return merged
    return _merge_table(None, current, value, trusted)


def _extend(user: list[Any], project: list[Any]) -> list[Any]:
    """The user's items, then the project's items the user does not have."""
    return copy.deepcopy(user) + [copy.deepcopy(item) for item in project if item not in user]


def _extend_additive(
    merged: dict[str, Any],
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    model: type[BaseModel],
) -> None:
    """Make every `Additive` list of a table the project set the user's list extended with
    the project's.

    Runs after the merge, so an `Additive` list keeps the user's items also inside a table a
    trusted project replaced as a whole (when the project does not list it, the user's list
    is restored).
    """
    for key, field in model.model_fields.items():
        mine = user.get(key)
        if marker_of(field, Additive) is not None:
            value = project.get(key, [])
            if isinstance(mine, list) and isinstance(value, list):
                merged[key] = _extend(mine, value)
            continue
        value = project.get(key)
        nesting = field_nesting(model, key)
        target = merged.get(key)
        if nesting is None or not isinstance(value, dict) or not isinstance(target, dict):
            continue
        how, inner = nesting
        users = mine if isinstance(mine, dict) else {}
        if how == "model":
            _extend_additive(target, users, value, inner)
        elif how == "dict":
            for name, item in value.items():
                entry, own = target.get(name), users.get(name)
                if isinstance(item, dict) and isinstance(entry, dict):
                    _extend_additive(entry, own if isinstance(own, dict) else {}, item, inner)


# ── entry points ────────────────────────────────────────────────────────────


def merge_section(
    model: type[BaseModel],
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    *,
    trusted: bool = True,
) -> dict[str, Any]:
    """Merge the user's and the project's raw tables of one section shaped like `model`.

    Tables merge field by field (the project winning), lists are replaced, `Additive` lists
    extended and, with `trusted`, `Replaced` fields replaced wholesale. Inputs are not modified.
    """
    merged = _merge_table(model, user, project, trusted)
    _extend_additive(merged, user, project, model)
    return merged


def merge_config_dicts(
    user: dict[str, Any],
    project: dict[str, Any],
    *,
    trusted: bool = True,
    sections: Mapping[str, type[BaseModel]] | None = None,
) -> dict[str, Any]:
    """Merge two raw config files' tables, the project winning; neither input is modified.

    - tables merge field by field, recursively; scalars and lists are replaced;
    - `Additive` lists (`[shell] denied_commands`, `denied_flag_combos`, `[redaction]
      custom_patterns`, `[plugins] disabled`, and a plugin section's own) are extended: the
      user's items, then the project's new ones;
    - `[[providers]]` merge by name (`name`, else `preset`, else `endpoint`): a project entry
      replaces the user entry of the same name entirely, new names are appended, user order
      is kept;
    - `[[models]]` merge by `id`: the project's entries for an id replace the user's entries
      for it (at the position of the first), new ids are appended;
    - with `trusted` (the default), `Replaced` fields (`[approval]`, and those of plugin
      sections) are replaced wholesale; without it, they merge field by field too, so the
      user's entries survive.

    `sections` maps plugin section names to their models (see `merge_section`); other
    unknown tables merge field by field.
    """
    models = sections or {}
    merged = copy.deepcopy(user)
    for key, value in project.items():
        current = merged.get(key)
        keyed = _KEYED_ARRAYS.get(key)
        section = models.get(key)
        if keyed is not None and isinstance(current, list) and isinstance(value, list):
            merged[key] = keyed(current, value)
        elif section is not None and isinstance(current, dict) and isinstance(value, dict):
            merged[key] = merge_section(section, current, value, trusted=trusted)
        else:
            merged[key] = _merge_value(RhoConfig, key, current, value, trusted)
    _extend_additive(merged, user, project, RhoConfig)
    return merged


__all__ = ["merge_config_dicts", "merge_section", "provider_key"]
