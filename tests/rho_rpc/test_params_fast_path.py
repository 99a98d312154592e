"""Plainly valid request params become their model without a validator, exactly as the
strict validation of the params check would make them; anything else is left to it."""

from __future__ import annotations

import importlib
import types
import typing
from typing import Any, Literal, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_equality import assert_same, strictly_validated
from pydantic import BaseModel

from rho_kernel.frontend import constructed
from rho_rpc.method_table import CORE_TABLE


def _params_model(where: str) -> type[BaseModel]:
    module, name = where.rsplit(".", 1)
    model: type[BaseModel] = getattr(importlib.import_module(f"rho_rpc.protocol.{module}"), name)
    return model


#: Every core method's params model (once each).
MODELS = sorted({_params_model(row[2]) for row in CORE_TABLE}, key=lambda model: model.__name__)

_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-3, max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "x", "hi", "turn_0123456789ab", "allow", "deny", "session", "0", "a\nb"])
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


def _fitting(annotation: Any) -> st.SearchStrategy[Any]:
    """Values of the kind `annotation` takes (some still out of its bounds), so that the
    check is put to the test on params it accepts, not only on ones it refuses."""
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.integers(min_value=-3, max_value=10**20)
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False) | st.integers()
    if annotation is str:
        return st.text(max_size=8)
    if origin is Literal:
        return st.sampled_from(arguments)
    if origin in (Union, types.UnionType):
        return st.one_of([_fitting(member) for member in arguments])
    if annotation is type(None):
        return st.none()
    if origin is list:
        return st.lists(_fitting(arguments[0]), max_size=3)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _params(annotation)
    return _VALUES


def _params(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    """Params of the model's own fields, mostly of fitting kinds, with a value of another
    kind or an unknown member now and then."""
    fields = {
        name: _fitting(field.annotation) | _VALUES if index % 2 else _fitting(field.annotation)
        for index, (name, field) in enumerate(model.model_fields.items())
    }
    unknown = st.dictionaries(st.just("unknown"), _VALUES, max_size=1)
    return st.fixed_dictionaries({}, optional=fields).flatmap(
        lambda params: unknown.map(lambda extra: {**params, **extra})
    )


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_params_made_without_validation_are_what_validation_makes(
    model: type[BaseModel], data: st.DataObject
) -> None:
    params = data.draw(_params(model))
    made = constructed(model, params)
    if made is not None:
        validated = strictly_validated(model, params)
        assert validated is not None, f"accepted what validation refuses: {params!r}"
        assert_same(made, validated)


@pytest.mark.parametrize(
    ("where", "params"),
    [
        ("prompt.PromptParams", {"message": "hi"}),
        ("prompt.PromptParams", {"message": "steer this way", "steer": True}),
    ],
)
def test_the_usual_params_are_made_without_validation(where: str, params: dict[str, Any]) -> None:
    model = _params_model(where)
    made = constructed(model, params)
    assert made is not None
    validated = strictly_validated(model, params)
    assert validated is not None
    assert_same(made, validated)


@pytest.mark.parametrize(
    "params", [{"message": ""}, {"message": "hi", "steer": "true"}, {"message": None}, {}]
)
def test_what_validation_refuses_is_left_to_it(params: dict[str, Any]) -> None:
    model = _params_model("prompt.PromptParams")
    assert constructed(model, params) is None
    assert strictly_validated(model, params) is None
