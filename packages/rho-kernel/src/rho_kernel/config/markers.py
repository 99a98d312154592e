"""Declarative rules for config fields, read by the loader from pydantic field metadata.

A repository's `.rho/config.toml` may tighten what the user configured but loosens it only
once the user trusts that file (`rho trust`). Which values loosen, and how a project's value
merges with the user's, is declared on the field — on the kernel's sections and on a plugin's
alike:

```python
from typing import Annotated
from rho_kernel.config import Additive, NeedsTrust, Replaced, UserOnly, turns_off


class GuardConfig(BaseModel):
    enabled: Annotated[bool, NeedsTrust(turns_off)] = True  # a project may not switch it off
    blocked: Annotated[list[str], Additive()] = []  # a project adds entries, never removes
    rules: Annotated[dict[str, str], Replaced()] = {}  # a trusted project's table wins whole
    token_env: Annotated[str | None, UserOnly()] = None  # never read from a project file
```

Every `NeedsTrust` predicate takes the project's value and the user's effective value (the
user file's value, else the field's default) and says whether the project's value loosens it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic.fields import FieldInfo

#: `(project_value, user_value) -> bool`: does the project's value loosen the user's?
Loosens = Callable[[Any, Any], bool]

_Marker = TypeVar("_Marker")


def adds_items(project: Any, user: Any) -> bool:
    """The project's list holds an item the user's list (None: empty) does not."""
    have = user if isinstance(user, list) else []
    return any(item not in have for item in project) if isinstance(project, list) else True


def any_change(project: Any, user: Any) -> bool:
    """Lists: the project adds an item (`adds_items`); anything else: the value differs."""
    if isinstance(project, list):
        return adds_items(project, user)
    return bool(project != user)


def turns_on(project: Any, user: Any) -> bool:
    """The project turns on (`true`) what the user has not turned on."""
    return project is True and user is not True


def turns_off(project: Any, user: Any) -> bool:
    """The project turns off (`false`) what the user has not turned off."""
    return project is False and user is not False


#: Approval modes from the most to the least permissive.
_STRICTNESS = {"auto": 0, "ask": 1, "deny": 2}


def less_strict(project: Any, user: Any) -> bool:
    """An approval mode more permissive than the user's (no entry counts as "ask")."""
    mine = _STRICTNESS.get(user if isinstance(user, str) else "ask", 1)
    return _STRICTNESS.get(project, 0) < mine


#: Permission modes from the most to the least permissive.
_PERMISSIVENESS = {"auto": 0, "auto-edit": 1, "ask": 2, "read-only": 3}


def more_permissive(project: Any, user: Any) -> bool:
    """A permission mode that asks less than the user's (no setting counts as "ask")."""
    mine = _PERMISSIVENESS.get(user if isinstance(user, str) else "ask", 2)
    return _PERMISSIVENESS.get(project, 0) < mine


@dataclass(frozen=True, slots=True)
class NeedsTrust:
    """Field metadata: a project file sets this field only when trusted, if it loosens.

    `loosens(project_value, user_value)` decides (default `any_change`: any new value or list
    item). With `per_key`, the field is a table and each of its entries is judged on its own
    against the user's entry of the same key (None when the user has none), so the
    project's tightening entries still apply.
    """

    loosens: Loosens = any_change
    per_key: bool = False


@dataclass(frozen=True, slots=True)
class Additive:
    """Field metadata: a list the project extends rather than replaces.

    The merged value is the user's items followed by the project's items the user does not
    have, so a project (trusted or not) never removes what the user listed.
    """


@dataclass(frozen=True, slots=True)
class Replaced:
    """Field metadata: a trusted project's value replaces the user's as a whole.

    Without it a table merges entry by entry (the project's entries win, the user's others
    stay). With it, a trusted project's table takes the user's place entirely; an untrusted
    project's still merges entry by entry, so the user's entries survive. (Lists are always
    replaced unless `Additive`; an `Additive` list inside a replaced table is still extended.)
    """


@dataclass(frozen=True, slots=True)
class UserOnly:
    """Field metadata: only the user's own config file sets this field.

    A project file's value is ignored — also when the project is trusted — and named in a
    warning. For settings that are about the user rather than the repository (where the
    user's own credentials live, a personal quota).
    """


def marker_of(field: FieldInfo, kind: type[_Marker]) -> _Marker | None:
    """The first metadata item of type `kind` on `field`, or None."""
    return next((item for item in field.metadata if isinstance(item, kind)), None)


# The rules' names before 0.3, kept so that plugins written against them still load.
changes = any_change
enables = turns_on
disables = turns_off

__all__ = [
    "Additive",
    "Loosens",
    "NeedsTrust",
    "Replaced",
    "UserOnly",
    "adds_items",
    "any_change",
    "changes",
    "disables",
    "enables",
    "less_strict",
    "marker_of",
    "more_permissive",
    "turns_off",
    "turns_on",
]
