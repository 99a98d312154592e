"""Testing helpers for rho and its plugins: a scripted model server, gates, an in-process loop.

Also a pytest plugin (fixtures `scripted_server`, `rho_root`, `approve_gate`, `deny_gate`).
"""

from rho_kernel.testing.declared import declared_differences
from rho_kernel.testing.gates import FixedGate, approve_all, deny_all, redirect_all
from rho_kernel.testing.harness import RecordingObserver, in_memory_session, run_prompt
from rho_kernel.testing.replies import (
    ErrorReply,
    HangReply,
    RawReply,
    SSEReply,
    fixture_reply,
    text_reply,
    tool_call_reply,
    tool_calls_reply,
)
from rho_kernel.testing.server import RecordedRequest, ScriptedServer
from rho_kernel.testing.streams import collect_stream, model_request

__all__ = [
    "ErrorReply",
    "FixedGate",
    "HangReply",
    "RawReply",
    "RecordedRequest",
    "RecordingObserver",
    "SSEReply",
    "ScriptedServer",
    "approve_all",
    "collect_stream",
    "declared_differences",
    "deny_all",
    "fixture_reply",
    "in_memory_session",
    "model_request",
    "redirect_all",
    "run_prompt",
    "text_reply",
    "tool_call_reply",
    "tool_calls_reply",
]
