"""One strict decoding of a tool call's arguments: exactly what will run, nothing ambiguous.

The model's argument string is decoded once, and that decoded object is what the approver is
shown (re-encoded canonically) and what the tool receives. JSON that two readers could
understand differently is refused instead of guessed at: a key repeated in one object (one
reader keeps the first, another the last), `NaN`/`Infinity`, and numbers too large for a
float. Lone surrogates are replaced so the arguments can always be encoded.
"""

from __future__ import annotations

import json
from typing import Any

from rho_kernel.encoding import RepeatedKeyError, scrub_json, unique_keys


class ArgumentsError(ValueError):
    """The arguments cannot be decoded unambiguously; the message is meant for the model."""


def _no_constant(name: str) -> Any:
    raise ArgumentsError(f"{name} is not a JSON number; send a finite number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ArgumentsError(f"the number {text[:40]} is too large")
    return value


def decode_arguments(raw: str) -> dict[str, Any]:
    """The arguments object of a tool call; blank text means no arguments (`{}`).

    Raises `ArgumentsError` for invalid JSON, a non-object, a repeated key at any depth, and
    non-finite numbers.
    """
    if not raw.strip():
        return {}
    try:
        decoded = json.loads(
            raw,
            object_pairs_hook=unique_keys,
            parse_constant=_no_constant,
            parse_float=_finite_float,
        )
    except ArgumentsError:
        raise
    except RepeatedKeyError as exc:
        raise ArgumentsError(f"{exc}; send each key once") from None
    except RecursionError:
        raise ArgumentsError("the arguments are nested too deeply") from None
    except ValueError as exc:
        raise ArgumentsError(f"the arguments are not valid JSON ({exc})") from None
    if not isinstance(decoded, dict):
        raise ArgumentsError(f"the arguments must be a JSON object, got {type(decoded).__name__}")
    scrubbed: dict[str, Any] = scrub_json(decoded)
    return scrubbed


def encode_arguments(arguments: dict[str, Any]) -> str:
    """The canonical JSON text of decoded arguments (what an approver is shown)."""
    return json.dumps(arguments, ensure_ascii=False, allow_nan=False)


__all__ = ["ArgumentsError", "decode_arguments", "encode_arguments"]
