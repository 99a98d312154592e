"""`prompt` and `approvalResponse`: params, result, and how a provider failure is told."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rho_rpc.protocol.base import TURN_ID, Params, Result, Wire


class PromptImage(Wire):
    """An image attached to a prompt."""

    mediaType: str = Field(description="image/png, image/jpeg, image/gif or image/webp.")
    data: str = Field(
        description="The image's bytes, base64-encoded (at most 20 MiB decoded); they must "
        "be of the format `mediaType` names."
    )


class PromptParams(Params):
    """`prompt`: run a user message through the agent, or steer the running turn."""

    message: str = Field(min_length=1, description="The user's message (must not be empty).")
    images: list[PromptImage] = Field(
        default_factory=list,
        description="Images that follow the message (at most 20), for a model that takes "
        "them. A prompt with images for a model the catalog knows takes none fails, saying "
        "so; an image that is not what its type says is invalid params. Not with `steer`.",
    )
    steer: bool = Field(
        False,
        description="Steer the running prompt: answered at once with {turnId} (the turn it "
        "steers); the message becomes a "
        "user turn at the next tool-batch seam, or one more round if the model has just "
        "answered. A prompt read before it and not started yet counts as running (the message "
        "goes in with its own). Refused (-32002) when no prompt is running.",
    )
    queue: bool = Field(
        False,
        description="Queue the prompt as a follow-up: answered at once with {turnId, queued: "
        "true}, it runs once the prompts and other requests read before it have ended, in "
        "arrival order, as the turn turnId names (its events, agent/end or agent/error carry "
        "it). getState lists it under `queued` until it starts; abort with its turnId takes "
        "it out. Not with `steer`.",
    )


class ProviderFailureInfo(Wire):
    """Why the model could not be reached or refused the request (the one shape of every
    provider failure: a refused connection, an unknown host, a TLS error, a timeout, an error
    status, a malformed stream, a retry budget used up)."""

    kind: str = Field(
        description='"connect" (no connection), "http" (an error status), "timeout" (no '
        'answer in time), "stream" (an error in or a break of the stream) or "decode" (a '
        "body or stream rho cannot read); a provider plugin may use another word."
    )
    reason: str | None = Field(
        None,
        description='For "connect": "refused", "dns" (the host name does not exist), '
        '"dns_temporary", "tls", "timeout", "unreachable", "closed" (dropped before a '
        'response) or "invalid_url".',
    )
    provider: str = Field(description="The provider's name.")
    endpoint: str = Field(description="The endpoint URL, credentials masked.")
    status: int | None = Field(None, description="The HTTP status, when one came.")
    attempts: int = Field(description="Requests sent: 1 plus the retries.")
    retryable: bool = Field(description="Whether sending the prompt again later may work.")
    hint: str = Field(
        description="What to do, fitting how the provider was chosen (--endpoint, a "
        "[[providers]] entry or rho's default endpoint)."
    )


class PromptResult(Result):
    """`prompt` result: `reply` when the turn ended, `error` when it failed (see agent/error);
    a steering prompt is answered at once with only the `turnId` of the turn it steers."""

    reply: str | None = Field(
        None, description="The assistant's final text, as streamed in message/delta and stored."
    )
    reasoning: str | None = Field(
        None,
        description="The reasoning behind that reply, with [agent] show_reasoning = true and "
        "when the model sent some.",
    )
    error: str | None = None
    failure: ProviderFailureInfo | None = Field(
        None,
        description="With `error`, when the model could not be reached or refused the request.",
    )
    turnId: str | None = Field(
        None, description=TURN_ID + " Absent only when the prompt failed before its turn began."
    )
    queued: bool | None = Field(
        None,
        description="True for a prompt sent with queue: true: it waits its turn, which runs "
        "as turnId (the response comes at once, before the turn).",
    )


class AbortParams(Params):
    """`abort`: cancel the running prompt, or the running or queued prompt `turnId` names."""

    turnId: str | None = Field(
        None,
        description="A queued prompt's turnId takes it out of the queue (it never runs); the "
        "running prompt's cancels it. Without it, the running prompt is cancelled (queued "
        "ones stay). An id naming neither is refused (-32002): the turn may have ended.",
    )


class RememberRule(Params):
    """A rule to remember: one of an approval request's `suggestedRules`."""

    scope: Literal["session", "project"]
    rule: str


class ApprovalResponseParams(Params):
    """`approvalResponse`: answer the pending `approval/request` named by `approvalId`."""

    approvalId: str = Field(
        description="The approvalId of the approval/request being answered. Required: a "
        "response without it, or naming an approval that is not pending (already answered, "
        "cancelled, or never asked), is an error and approves nothing."
    )
    approved: bool = Field(description="True runs the tool call; false denies it.")
    message: str | None = Field(
        None,
        description="With approved=false: redirect — the tool batch is abandoned and this text "
        "becomes a new user turn.",
    )
    remember: RememberRule | None = Field(
        None,
        description="With approved=true: remember one of the request's suggestedRules, so that "
        "the calls it covers run without asking from now on (in this session, or for this "
        "project). A rule the request did not offer is refused (-32602) and decides nothing.",
    )


__all__ = [
    "AbortParams",
    "ApprovalResponseParams",
    "PromptParams",
    "PromptResult",
    "ProviderFailureInfo",
    "RememberRule",
]
