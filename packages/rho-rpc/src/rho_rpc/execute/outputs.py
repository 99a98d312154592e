"""What a program reads from `rho exec`: `--json`'s one object, `--stream-json`'s lines.

`--json` prints, when the run ends, `agent/end`'s params (`reply`, `reasoning?`,
`iterations`, `usage`, `toolCalls`, `durationMs`, `finishReason`, `turnId`) with
`sessionPath`, and each call's `outcome.output` (a success's too: the result the model was
given, bounded and redacted); a run that failed prints `{error, failure?, turnId?, finishReason: "error",
sessionPath}`. `--stream-json` prints each notification the JSON-RPC server would send, as
it sends it (`{"jsonrpc": "2.0", "method", "params"}`), one per line (docs/exec.md documents
both).
"""

from __future__ import annotations

import json
import re
from typing import IO, TYPE_CHECKING, Any

from rho_rpc import render
from rho_rpc.peer import RpcPeer

if TYPE_CHECKING:
    from rho_kernel import AgentResult, Runtime
    from rho_kernel.frontend import AgentError


#: Characters JSON may carry raw that a terminal could obey or reorder by (DEL, the C1
#: controls such as the 8-bit CSI, the line separators, the bidirectional overrides): JSON
#: escapes the C0 controls itself; these are escaped too (they occur only inside strings).
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(value: Any) -> str:
    """`value` as one line of JSON, non-ASCII text as it is but every character a terminal
    could obey written as an escape (`\\u009b`), so that the line shows as text."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _line(stream: IO[str], value: dict[str, Any]) -> None:
    stream.write(json_text(value) + "\n")
    stream.flush()


def json_result(
    result: AgentResult | None, error: AgentError | None, runtime: Runtime
) -> dict[str, Any]:
    """`--json`'s object for a run that ended with `result`, or failed with `error`."""
    path = runtime.session.path
    session = str(path) if path is not None else None
    if result is not None:
        ended = render.agent_result(result)
        for call, record in zip(ended["toolCalls"], result.tool_calls, strict=True):
            if record.output is not None:  # a success's too: what the model was given
                call["outcome"]["output"] = record.output
        return {**ended, "sessionPath": session}
    wire: dict[str, Any] = {"error": error.message if error else "the run did not finish"}
    if error is not None and error.failure is not None:
        wire["failure"] = render.provider_failure(error.failure)
    if error is not None and error.turn_id is not None:
        wire["turnId"] = error.turn_id
    return {**wire, "finishReason": "error", "sessionPath": session}


def print_json(stream: IO[str], value: dict[str, Any]) -> None:
    """Write `value` as one line of JSON."""
    _line(stream, value)


def stream_peer(stream: IO[str], runtime: Runtime) -> RpcPeer:
    """An observer writing the server's notifications to `stream` (and the plugins' own,
    such as rho-hooks' `hook/run`)."""

    def notify(method: str, params: dict[str, Any] | None) -> None:
        _line(stream, {"jsonrpc": "2.0", "method": method, "params": params or {}})

    def plugin_notification(method: str, params: dict[str, Any]) -> None:
        turn = runtime.turn_id
        notify(method, {**params, "turnId": turn} if turn is not None else dict(params))

    runtime.notifier = plugin_notification
    return RpcPeer(notify)


__all__ = ["json_result", "json_text", "print_json", "stream_peer"]
