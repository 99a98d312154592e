"""How the config schema nests tables: which fields hold a model, a list or a map of models."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

#: How a field holds a nested model: as itself, as a list of them, or as a map of them.
Nesting = tuple[Literal["model", "list", "dict"], type[BaseModel]]


def _model_in(annotation: Any) -> Nesting | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in (Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                found = _model_in(arg)
                if found is not None and found[0] == "model":
                    return found
        return None
    if origin is list and args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
        return ("list", args[0])
    if (
        origin is dict
        and len(args) == 2
        and isinstance(args[1], type)
        and issubclass(args[1], BaseModel)
    ):
        return ("dict", args[1])
    return None


def field_nesting(model: type[BaseModel], name: str) -> Nesting | None:
    """How field `name` of `model` nests a model, or None for a plain value."""
    return _model_in(model.model_fields[name].annotation)


__all__ = ["Nesting", "field_nesting"]
