"""Merging the raw user and project config tables (the project wins, within limits).

Tables merge field by field; `[[providers]]` merge by name and `[[models]]` by id; `Additive`
lists (see `rho_kernel.config.markers`) are extended rather than replaced. A trusted project
replaces `[approval]` and some `[extensions]` keys wholesale; an untrusted one (already
stripped of its loosening settings) merges field by field so the user's entries survive.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from rho_kernel.config.markers import Additive, marker_of
from rho_kernel.config.model import RhoConfig
from rho_kernel.config.nesting import field_nesting

#: Top-level tables a trusted project replaces wholesale instead of merging field by field.
_REPLACED_TABLES = frozenset({"approval"})
#: Keys of `[extensions]` a trusted project replaces wholesale (`defaults` merges field-wise;
#: `disabled` is replaced, then extended by `_extend_additive`).
_REPLACED_EXTENSION_KEYS = frozenset({"enabled", "disabled", "per_extension"})


def _merge_tables(user: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, Any]:
    """Field-wise recursive merge: tables merge, everything else (lists too) is replaced."""
    merged = copy.deepcopy(dict(user))
    for key, value in project.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_tables(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


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


def _merge_extensions(
    user: Mapping[str, Any], project: Mapping[str, Any], trusted: bool
) -> dict[str, Any]:
    merged = copy.deepcopy(dict(user))
    for key, value in project.items():
        current = merged.get(key)
        if trusted and key in _REPLACED_EXTENSION_KEYS:
            merged[key] = copy.deepcopy(value)
        elif isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_tables(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _extend(user: list[Any], project: list[Any]) -> list[Any]:
    """The user's items, then the project's items the user does not have."""
    return copy.deepcopy(user) + [copy.deepcopy(item) for item in project if item not in user]


def _extend_additive(
    merged: dict[str, Any],
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    model: type[BaseModel],
) -> None:
    """Replace every `Additive` list the project set by the user's list extended with it."""
    for key, value in project.items():
        field = model.model_fields.get(key)
        if field is None:
            continue
        mine = user.get(key)
        if marker_of(field, Additive) is not None:
            if isinstance(mine, list) and isinstance(value, list):
                merged[key] = _extend(mine, value)
            continue
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


def merge_config_dicts(
    user: dict[str, Any], project: dict[str, Any], *, trusted: bool = True
) -> dict[str, Any]:
    """Merge two raw config tables, the project winning; neither input is modified.

    - tables merge field by field, recursively; scalars and lists are replaced;
    - `Additive` lists (`[shell] denied_commands`, `denied_flag_combos`, `[redaction]
      custom_patterns`, `[plugins] disabled`, `[extensions] disabled`) are extended: the
      user's items, then the project's new ones;
    - `[[providers]]` merge by name (`name`, else `preset`, else `endpoint`): a project entry
      replaces the user entry of the same name entirely, new names are appended, user order
      is kept;
    - `[[models]]` merge by `id`: the project's entries for an id replace the user's entries
      for it (at the position of the first), new ids are appended;
    - with `trusted` (the default), `[approval]` is replaced wholesale, and so are the
      `enabled` and `per_extension` keys of `[extensions]` (`defaults` merges field by
      field); without it, those merge field by field too, so the user's entries survive.
    """
    merged = copy.deepcopy(user)
    for key, value in project.items():
        current = merged.get(key)
        if key == "providers" and isinstance(current, list) and isinstance(value, list):
            merged[key] = _merge_providers(current, value)
        elif key == "models" and isinstance(current, list) and isinstance(value, list):
            merged[key] = _merge_models(current, value)
        elif key == "extensions" and isinstance(current, dict) and isinstance(value, dict):
            merged[key] = _merge_extensions(current, value, trusted)
        elif isinstance(current, dict) and isinstance(value, dict):
            replaced = trusted and key in _REPLACED_TABLES
            merged[key] = copy.deepcopy(value) if replaced else _merge_tables(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    _extend_additive(merged, user, project, RhoConfig)
    return merged


__all__ = ["merge_config_dicts", "provider_key"]
