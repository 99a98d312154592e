"""Params a method does not declare: found from its params model, before it is validated.

pydantic ignores unknown members by default, so a misspelt optional param (`"stear": true`)
would silently run the request as if it were absent. Every method with a params model —
rho's own and every plugin's — has its request params, and the objects nested in them that
a model describes, checked against the names that model declares; a model that accepts
extra members (`extra="allow"`) accepts any.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AliasChoices, AliasPath, BaseModel


def _field_keys(model: type[BaseModel]) -> dict[str, list[str]]:
    """Each field's name → the member names it is validated from."""
    config = model.model_config
    by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
    keys: dict[str, list[str]] = {}
    for name, field in model.model_fields.items():
        aliases = list(_aliases(field.validation_alias)) or ([field.alias] if field.alias else [])
        keys[name] = [*aliases, name] if not aliases or by_name else aliases
    return keys


def _aliases(alias: str | AliasPath | AliasChoices | None) -> Iterator[str]:
    if isinstance(alias, str):
        yield alias
    elif isinstance(alias, AliasPath) and alias.path and isinstance(alias.path[0], str):
        yield alias.path[0]
    elif isinstance(alias, AliasChoices):
        for choice in alias.choices:
            yield from _aliases(choice)


def unknown_params(model: type[BaseModel], params: Mapping[str, Any]) -> list[dict[str, str]]:
    """One `{param, problem}` for every member of `params` (or of an object nested in it
    that a model describes) that the model does not declare, with a "did you mean" when a
    declared name is close."""
    problems: list[dict[str, str]] = []
    _check_model(model, params, "", problems)
    return problems


def _check_model(
    model: type[BaseModel], value: Any, where: str, problems: list[dict[str, str]]
) -> None:
    if not isinstance(value, Mapping) or model.model_config.get("extra") == "allow":
        return
    fields = _field_keys(model)
    names = list(dict.fromkeys(key for keys in fields.values() for key in keys))
    for key in value:
        if key not in names:
            problems.append({"param": f"{where}{key}", "problem": _unknown(str(key), names)})
    for name, keys in fields.items():
        annotation = model.model_fields[name].annotation
        for key in keys:
            if key in value:
                _check_value(annotation, value[key], f"{where}{key}.", problems)


def _check_value(annotation: Any, value: Any, where: str, problems: list[dict[str, str]]) -> None:
    """Check `value` against the models `annotation` names (through Optional, unions of a
    single model, lists and dicts)."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        _check_model(annotation, value, where, problems)
    elif origin is Annotated:
        _check_value(args[0], value, where, problems)
    elif origin is Union or origin is types.UnionType:
        models = [arg for arg in args if isinstance(arg, type) and issubclass(arg, BaseModel)]
        others = [arg for arg in args if arg not in models and arg is not type(None)]
        if isinstance(value, Mapping) and len(models) == 1:
            _check_model(models[0], value, where, problems)
        elif len(others) == 1 and not models:
            _check_value(others[0], value, where, problems)
    elif _is(origin, Sequence) and args and isinstance(value, list):
        for index, item in enumerate(value):
            _check_value(args[0], item, f"{where}{index}.", problems)
    elif _is(origin, Mapping) and len(args) == 2 and isinstance(value, Mapping):
        for key, item in value.items():
            _check_value(args[1], item, f"{where}{key}.", problems)


def _is(origin: Any, kind: type) -> bool:
    return isinstance(origin, type) and issubclass(origin, kind)


def _unknown(key: str, names: Sequence[str]) -> str:
    if not names:
        return "unknown param: the method takes no params"
    import difflib  # only when a request holds an unknown param

    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    if close:
        return f"unknown param (did you mean '{close[0]}'?)"
    return "unknown param (known: " + ", ".join(f"'{name}'" for name in names) + ")"


__all__ = ["unknown_params"]
