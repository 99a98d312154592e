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


class EmptyResult(Result):
    """An empty object: the request was accepted."""


__all__ = ["TURN_ID", "EmptyResult", "NoParams", "Params", "Result", "Wire"]
