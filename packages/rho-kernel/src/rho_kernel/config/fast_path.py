"""Config tables (and request params) that are plainly valid, made into models without
building a validator.

pydantic builds a model's validator the first time it validates one, and the first build in a
process also imports most of pydantic's internals: together the largest cost of a start.
Almost every config file is plainly valid: strings where strings go, numbers within their
bounds, known choices, lists of strings, tables of the same. `constructed` checks such a
table against the model's own field declarations and, when every value is of the one kind
pydantic would accept as it is, makes the model with `model_construct` (what validation
would have returned, without a validator). Anything else, or a model using a feature this
check does not know (aliases, validators other than `mode="after"` model validators, custom
types, unions it cannot tell apart), gives None: the caller validates with pydantic, which
gives the result or the error, so error messages never come from here (a model validator
that raises also gives None). A model with `extra="allow"` keeps unknown keys unvalidated, as
pydantic does.

The check is sound by construction: it accepts a value only where pydantic's strict JSON
validation (what `rho_kernel.config.errors` uses, and a front-end's params check) accepts it
unchanged, or changes it the one way written here (an integer for a float field becomes a
float). Values come from a TOML or JSON document: JSON adds `null`, taken where a field's
type admits None.
"""

from __future__ import annotations

import math
import re
import types
import typing
from typing import Any, Literal, TypeVar, Union

import annotated_types
from pydantic import BaseModel

from rho_kernel.config.markers import Additive, NeedsTrust, Replaced, UserOnly

_Model = TypeVar("_Model", bound=BaseModel)

#: Model settings that change nothing for the tables accepted here.
#: (`strict` too: the check already is as strict as the validation it stands in for.)
_NEUTRAL_SETTINGS = frozenset(
    {"extra", "frozen", "defer_build", "title", "json_schema_extra", "strict"}
)
#: Field metadata that constrains nothing (rho's merge and trust markers).
_MARKERS = (Additive, NeedsTrust, Replaced, UserOnly)
#: The module of the kernel's config models, whose patterns are known to be linear.
_KERNEL_MODELS = "rho_kernel.config.model"
#: The largest integer a float field takes as it is (larger ones may round).
_EXACT_FLOAT_INT = 2**53


class _Refused(Exception):
    """The table is not plainly valid (or uses what this check does not know)."""


def constructed(model: type[_Model], data: Any) -> _Model | None:
    """`data` (a parsed TOML table) as an instance of `model`, made without a validator, or
    None when pydantic must decide."""
    try:
        return _model(model, data)
    except _Refused:
        return None


def _model(model: type[_Model], data: Any) -> _Model:
    if not isinstance(data, dict):
        raise _Refused
    _check_model(model)
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if name in data:
            values[name] = _value(field.annotation, field.metadata, data[name], model)
        elif field.is_required():
            raise _Refused
    unknown = set(data) - set(model.model_fields)
    extra = model.model_config.get("extra", "ignore")
    if unknown and extra == "forbid":
        raise _Refused
    # `extra="allow"` keeps unknown keys as they are, unvalidated: so does this.
    extras = {key: data[key] for key in unknown} if extra == "allow" else {}
    instance = model.model_construct(
        _fields_set=set(values) | set(extras), **values, **_defaults(model, values), **extras
    )
    for decorator_name in model.__pydantic_decorators__.model_validators:
        try:
            returned = getattr(instance, decorator_name)()  # each is mode="after" (checked)
        except (ValueError, AssertionError):
            raise _Refused from None  # pydantic's validation words the error
        if returned is not instance:
            raise _Refused
    return instance


def _check_model(model: type[BaseModel]) -> None:
    """Refuse a model whose validation this check cannot stand in for."""
    if not set(model.model_config) <= _NEUTRAL_SETTINGS:
        raise _Refused
    own_schema = (vars(c) for c in model.__mro__ if c is not BaseModel)
    if any("__get_pydantic_core_schema__" in namespace for namespace in own_schema):
        raise _Refused
    decorators = model.__pydantic_decorators__
    if decorators.validators or decorators.field_validators or decorators.root_validators:
        raise _Refused
    if any(d.info.mode != "after" for d in decorators.model_validators.values()):
        raise _Refused
    for field in model.model_fields.values():
        if field.alias is not None or field.validation_alias is not None:
            raise _Refused
        if field.validate_default:
            raise _Refused


def _defaults(model: type[BaseModel], given: dict[str, Any]) -> dict[str, Any]:
    """The defaults of the fields not given whose factory is a model class: made here too
    (calling the class would validate, and build its validator)."""
    made: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        factory = field.default_factory
        if name not in given and isinstance(factory, type) and issubclass(factory, BaseModel):
            made[name] = _model(factory, {})
    return made


def _value(annotation: Any, metadata: list[Any], value: Any, owner: type[BaseModel]) -> Any:
    """`value` as pydantic's strict JSON validation of `annotation` would give it."""
    for constraint in metadata:
        if not isinstance(constraint, _MARKERS):
            _check_constraint(constraint, owner)
    result = _typed(annotation, value)
    for constraint in metadata:
        if not isinstance(constraint, _MARKERS):
            _apply_constraint(constraint, result)
    return result


def _check_constraint(constraint: Any, owner: type[BaseModel]) -> None:
    """Refuse a constraint this check does not apply as pydantic does. A `pattern` is
    applied here only for the kernel's own models: Python's `re` backtracks where pydantic's
    engine runs in linear time, and a repository's value must not stall a start against a
    pattern nobody here has read."""
    if isinstance(constraint, (annotated_types.Gt, annotated_types.Ge)):
        return
    if isinstance(constraint, (annotated_types.Lt, annotated_types.Le)):
        return
    if isinstance(constraint, (annotated_types.MinLen, annotated_types.MaxLen)):
        return
    if (
        type(constraint).__name__ == "_PydanticGeneralMetadata"
        and set(vars(constraint)) == {"pattern"}
        and owner.__module__ == _KERNEL_MODELS
    ):
        return
    raise _Refused


def _apply_constraint(constraint: Any, value: Any) -> None:
    if value is None:
        return
    if isinstance(constraint, annotated_types.Gt) and not value > constraint.gt:
        raise _Refused
    if isinstance(constraint, annotated_types.Ge) and not value >= constraint.ge:
        raise _Refused
    if isinstance(constraint, annotated_types.Lt) and not value < constraint.lt:
        raise _Refused
    if isinstance(constraint, annotated_types.Le) and not value <= constraint.le:
        raise _Refused
    if (
        isinstance(constraint, annotated_types.MinLen)
        and not _sized(value) >= constraint.min_length
    ):
        raise _Refused
    if (
        isinstance(constraint, annotated_types.MaxLen)
        and not _sized(value) <= constraint.max_length
    ):
        raise _Refused
    pattern = getattr(constraint, "pattern", None)
    if pattern is not None and not (isinstance(value, str) and re.fullmatch(pattern, value)):
        raise _Refused


def _sized(value: Any) -> int:
    """The length a length bound counts: of text (in characters) or of a list."""
    if not isinstance(value, (str, list)):
        raise _Refused
    return len(value)


def _typed(annotation: Any, value: Any) -> Any:
    """`value` checked against a bare annotation (no constraints)."""
    if annotation is str:
        return _exactly(value, str)
    if annotation is bool:
        return _exactly(value, bool)
    if annotation is int:
        return _exactly(value, int)
    if annotation is float:
        return _float(value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model(annotation, value)
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        if any(not isinstance(choice, str) for choice in arguments):
            raise _Refused
        if not isinstance(value, str) or value not in arguments:
            raise _Refused
        return value
    if origin is list:
        if not isinstance(value, list):
            raise _Refused
        return [_typed(arguments[0], item) for item in value]
    if origin is dict and arguments[0] is str:
        if not isinstance(value, dict):
            raise _Refused
        return {key: _typed(arguments[1], item) for key, item in value.items()}
    if origin in (Union, types.UnionType):
        return _union(arguments, value)
    raise _Refused


def _exactly(value: Any, kind: type) -> Any:
    if type(value) is not kind:  # a bool is not an int here, nor an int a bool
        raise _Refused
    return value


def _float(value: Any) -> float:
    if type(value) is int and abs(value) <= _EXACT_FLOAT_INT:
        return float(value)
    if type(value) is float and math.isfinite(value):
        return value
    raise _Refused


#: What a member of a union accepts, by Python type of the parsed TOML value.
_ACCEPTS: dict[Any, tuple[type, ...]] = {
    str: (str,),
    bool: (bool,),
    int: (int,),
    float: (float, int),
}


def _union(members: tuple[Any, ...], value: Any) -> Any:
    """A union whose members take values of different kinds: the one member that takes
    this value's kind decides; None (a JSON `null`) is taken where None is a member."""
    if value is None and type(None) in members:
        return None
    typed = [member for member in members if member is not type(None)]
    kinds = [_kinds(member) for member in typed]
    flat = [kind for accepted in kinds for kind in accepted or ()]
    if any(accepted is None for accepted in kinds) or len(flat) != len(set(flat)):
        raise _Refused  # a member it does not know, or two that take the same kind
    for member, accepted in zip(typed, kinds, strict=True):
        if accepted is not None and type(value) in accepted:
            return _typed(member, value)
    raise _Refused


def _kinds(member: Any) -> tuple[type, ...] | None:
    """The Python types of parsed TOML values `member` may take, or None when unknown."""
    if member in _ACCEPTS:
        return _ACCEPTS[member]
    origin = typing.get_origin(member)
    if origin is list:
        return (list,)
    if origin is dict or (isinstance(member, type) and issubclass(member, BaseModel)):
        return (dict,)
    if origin is Literal:
        return (str,)
    return None


__all__ = ["constructed"]
