"""What a project file may set: its table without the settings it may not.

An untrusted project loses the settings that loosen the user's (`NeedsTrust`); every project,
trusted or not, loses the settings only the user's own file sets (`UserOnly`). The rules are
markers on the schema's fields (`rho_kernel.config.markers`); this module only walks a raw
project table along a model and applies them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from rho_kernel.config.markers import NeedsTrust, UserOnly, marker_of
from rho_kernel.config.nesting import field_nesting

_UNSET: Any = object()
#: A rule's answer for a field without its marker: restrict inside it, if it is a table.
_UNMARKED: Any = object()
#: Longer rendered values are left out of a setting's description (the key is enough).
_MAX_SHOWN = 60


#: Decides one marked field: `(field, project value, user value or _UNSET, location,
#: ignored)` → the part of the value the project may set, `_UNSET`, or `_UNMARKED`.
_Rule = Callable[[FieldInfo, Any, Any, tuple[Any, ...], list[str]], Any]


def restrict_untrusted(
    model: type[BaseModel],
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    *,
    at: tuple[Any, ...] = (),
) -> tuple[dict[str, Any], list[str]]:
    """Split a raw project table (of shape `model`) against the raw user table.

    Returns the project table without every setting that loosens the user's (per the
    fields' `NeedsTrust` markers), and those settings described as `key = value` (or just
    `key` for tables and long values), in file order. `at` is where the table sits in the
    file (e.g. `("greeter",)` for a plugin section), for the descriptions. Neither input is
    modified.
    """
    ignored: list[str] = []
    kept = _restrict(model, user, project, at, ignored, _needs_trust)
    return kept, ignored


def strip_user_only(
    model: type[BaseModel], project: Mapping[str, Any], *, at: tuple[Any, ...] = ()
) -> tuple[dict[str, Any], list[str]]:
    """Split a raw project table (of shape `model`) into what it may set and its `UserOnly`
    settings (described as in `restrict_untrusted`), which a project never sets."""
    ignored: list[str] = []
    kept = _restrict(model, {}, project, at, ignored, _user_only)
    return kept, ignored


def _table(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _needs_trust(
    field: FieldInfo, value: Any, mine: Any, loc: tuple[Any, ...], ignored: list[str]
) -> Any:
    rule = marker_of(field, NeedsTrust)
    return _UNMARKED if rule is None else _judge(rule, field, value, mine, loc, ignored)


def _user_only(
    field: FieldInfo, value: Any, mine: Any, loc: tuple[Any, ...], ignored: list[str]
) -> Any:
    if marker_of(field, UserOnly) is None:
        return _UNMARKED
    ignored.append(describe_setting(loc, value))
    return _UNSET


def _restrict(
    model: type[BaseModel],
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    loc: tuple[Any, ...],
    ignored: list[str],
    rule: _Rule,
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    extra = extra_items_field(model)
    for key, value in project.items():
        field = model.model_fields.get(key, extra)
        if field is None:  # unknown keys are reported elsewhere and change nothing
            kept[key] = value
            continue
        mine = user.get(key, _UNSET)
        allowed = rule(field, value, mine, (*loc, key), ignored)
        if allowed is _UNMARKED and key not in model.model_fields:
            kept[key] = value  # an unknown key the model keeps: nothing inside to walk
        elif allowed is _UNMARKED:
            kept[key] = _descend(model, key, value, mine, (*loc, key), ignored, rule)
        elif allowed is not _UNSET:
            kept[key] = allowed
    return kept


def extra_items_field(model: type[BaseModel]) -> FieldInfo | None:
    """The markers a model that keeps unknown keys (`extra="allow"`) puts on each of them —
    its class variable `__extra_markers__`, e.g. `(NeedsTrust(any_change),)` for a table of
    named entries a project adds only once trusted — as a field; None when it puts none."""
    markers = getattr(model, "__extra_markers__", None)
    if not markers or model.model_config.get("extra") != "allow":
        return None
    field = FieldInfo()
    field.metadata.extend(markers)
    return field


def _descend(
    model: type[BaseModel],
    key: str,
    value: Any,
    mine: Any,
    loc: tuple[Any, ...],
    ignored: list[str],
    rule: _Rule,
) -> Any:
    """Restrict a nested table (or list or map of tables); plain values pass unchanged."""
    nesting = field_nesting(model, key)
    if nesting is None:
        return value
    how, inner = nesting
    if how == "model" and isinstance(value, Mapping):
        return _restrict(inner, _table(mine), value, loc, ignored, rule)
    if how == "dict" and isinstance(value, Mapping):
        users = _table(mine)
        return {
            name: _restrict(inner, _table(users.get(name)), item, (*loc, name), ignored, rule)
            if isinstance(item, Mapping)
            else item
            for name, item in value.items()
        }
    if how == "list" and isinstance(value, list):
        return [
            _restrict(inner, {}, item, (*loc, index), ignored, rule)
            if isinstance(item, Mapping)
            else item
            for index, item in enumerate(value)
        ]
    return value


def _judge(
    rule: NeedsTrust,
    field: FieldInfo,
    value: Any,
    mine: Any,
    loc: tuple[Any, ...],
    ignored: list[str],
) -> Any:
    """The part of `value` an untrusted project may set, or `_UNSET` for none of it."""
    if rule.per_key and isinstance(value, Mapping):
        users = _table(mine)
        allowed: dict[str, Any] = {}
        for name, item in value.items():
            if rule.loosens(item, users.get(name)):
                ignored.append(describe_setting((*loc, name), item))
            else:
                allowed[name] = item
        return allowed
    effective = field.get_default(call_default_factory=True) if mine is _UNSET else mine
    if rule.loosens(value, effective):
        ignored.append(describe_setting(loc, value))
        return _UNSET
    return value


def _key(part: Any) -> str:
    if isinstance(part, int):
        return f"[{part}]"
    text = str(part)
    bare = text and all(char.isascii() and (char.isalnum() or char in "_-") for char in text)
    return text if bare else json.dumps(text)


def describe_setting(loc: tuple[Any, ...], value: Any) -> str:
    """`a.b."odd key" = <value>` for one setting; the value only when short and plain.

    Keys and values are escaped (JSON/TOML basic-string style), so a hostile key cannot
    break the line it is reported on.
    """
    path = ""
    for part in loc:
        piece = _key(part)
        path += piece if piece.startswith("[") or not path else "." + piece
    if not _plain(value) and not (isinstance(value, list) and all(map(_plain, value))):
        return path
    rendered = json.dumps(value)
    return path if len(rendered) > _MAX_SHOWN else f"{path} = {rendered}"


def _plain(value: Any) -> bool:
    return isinstance(value, str | bool | int | float)


__all__ = ["describe_setting", "extra_items_field", "restrict_untrusted", "strip_user_only"]
