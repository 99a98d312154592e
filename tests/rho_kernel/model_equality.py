"""Whether a model made without a validator is what pydantic's strict JSON validation makes
(shared by the tests of `rho_kernel.config.fast_path` and of the params it checks)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError


def strictly_validated(model: type[BaseModel], data: Any) -> BaseModel | None:
    """What strict JSON validation of `data` gives (None when it refuses)."""
    try:
        return model.model_validate_json(json.dumps(data), strict=True)
    except ValidationError:
        return None


def assert_same(made: BaseModel, validated: BaseModel) -> None:
    """`made` holds what `validated` holds: the same values, of the same types, set alike."""
    assert type(made) is type(validated)
    assert made.model_dump() == validated.model_dump()
    assert made.model_fields_set == validated.model_fields_set
    for name in type(made).model_fields:
        mine, theirs = getattr(made, name), getattr(validated, name)
        assert type(mine) is type(theirs), name
        if isinstance(theirs, BaseModel):
            assert_same(mine, theirs)
        if isinstance(theirs, list) and theirs and isinstance(theirs[0], BaseModel):
            for left, right in zip(mine, theirs, strict=True):
                assert_same(left, right)
