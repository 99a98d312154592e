"""The bases of every wire type, and the two that many methods share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Wire(BaseModel):
    """Base of every wire type; schemas are built on first use, keeping them off startup.

    Every object rho sends holds exactly the members its type declares (`extra="forbid"`,
    so the OpenRPC document says `additionalProperties: false`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")


class Params(Wire):
    """Base of method params: strict types; a member the method does not declare is
    refused (-32602), by the server for every method (`rho_rpc.params_check`)."""

    model_config = ConfigDict(strict=True, extra="forbid", defer_build=True)


class Result(Wire):
    """Base of method results."""


class NoParams(Params):
    """The method takes no params."""


TURN_ID = (
    "Names the prompt's turn (`turn_` and 12 hex digits): agent/start, every event of the "
    "turn, agent/end or agent/error, and the prompt's response carry the same turnId."
)
"""The description of every `turnId`."""

NO_MODEL = (
    "null while no model is chosen: nothing names one and the local server reports none "
    "loaded (modelProblem says so; a prompt asks the server again, and setModel chooses one)."
)
"""How a result says that no model is chosen."""

MODEL_PROBLEM = (
    "Only while no model is chosen: why, in one sentence naming the server's address and "
    "how to choose a model (the error a prompt fails with)."
)
"""The description of every `modelProblem`."""


class EmptyResult(Result):
    """An empty object: the request was accepted."""


__all__ = [
    "MODEL_PROBLEM",
    "NO_MODEL",
    "TURN_ID",
    "EmptyResult",
    "NoParams",
    "Params",
    "Result",
    "Wire",
]
