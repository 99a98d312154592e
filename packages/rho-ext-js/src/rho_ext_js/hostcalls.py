"""Runs one host request from an extension: checks its arguments and the host's answer.

Everything coming from the isolate is untrusted: a request with the wrong shape is refused
with a message the extension sees, never passed on to the host.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rho_ext_js.host import HostApi, HostError
from rho_kernel import diagnostics, scrub_json

_DIGESTS = {"SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512"}


def _strings(args: Any, count: int, op: str) -> list[str]:
    if (
        not isinstance(args, list)
        or len(args) != count
        or not all(isinstance(a, str) for a in args)
    ):
        raise HostError(f"{op}: expected {count} string argument(s)")
    return args


def _digest(args: Any) -> str:
    algorithm, data = _strings(args, 2, "digest")
    if algorithm not in _DIGESTS:
        raise HostError(f"digest: unsupported algorithm {algorithm}")
    try:
        raw = bytes.fromhex(data)
    except ValueError:
        raise HostError("digest: bad data") from None
    return hashlib.new(_DIGESTS[algorithm], raw).hexdigest()


def _command_result(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError("run_command must return a dict")
    return {
        "stdout": str(value.get("stdout", "")),
        "stderr": str(value.get("stderr", "")),
        "exitCode": int(value.get("exitCode", 0)),
    }


def _fetch_request(args: Any) -> dict[str, Any]:
    if not isinstance(args, list) or len(args) != 1 or not isinstance(args[0], dict):
        raise HostError("fetch: expected one request object")
    raw = args[0]
    url, method = raw.get("url"), raw.get("method", "GET")
    headers, body = raw.get("headers", {}), raw.get("body")
    if not isinstance(url, str) or not isinstance(method, str):
        raise HostError("fetch: url and method must be strings")
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise HostError("fetch: headers must map names to strings")
    if body is not None and not isinstance(body, str):
        raise HostError("fetch: body must be a string")
    request: dict[str, Any] = {"url": url, "method": method, "headers": headers}
    if body is not None:
        request["body"] = body
    return request


def _fetch_result(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError("fetch must return a dict")
    headers = value.get("headers") or {}
    return {
        "status": int(value.get("status", 0)),
        "statusText": str(value.get("statusText", "")),
        "headers": {str(k): str(v) for k, v in dict(headers).items()},
        "body": str(value.get("body", "")),
    }


async def run_host_call(host: HostApi, op: Any, args: Any, context: Any) -> Any:
    """The JSON-able answer to request `op(args)`; raises HostError for a refusal."""
    args = scrub_json(args)
    if op == "readFile":
        (path,) = _strings(args, 1, "readFile")
        text = await host.read_file(path, context)
        if not isinstance(text, str):
            raise TypeError("read_file must return a str")
        return text
    if op == "writeFile":
        path, content = _strings(args, 2, "writeFile")
        await host.write_file(path, content, context)
        return None
    if op == "runCommand":
        if not isinstance(args, list) or len(args) != 2 or not isinstance(args[0], str):
            raise HostError("runCommand: expected a command string")
        argv = args[1]
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise HostError("runCommand: args must be strings")
        return _command_result(await host.run_command(args[0], argv, context))
    if op == "fetch":
        return _fetch_result(await host.fetch(_fetch_request(args), context))
    if op == "digest":
        return _digest(args)
    raise HostError(f"unknown host function: {op!s:.60}")


async def answer_host_call(
    name: str, host: HostApi, op: Any, args: Any, context: Any
) -> dict[str, Any]:
    """`{"ok": true, "value": ...}` or `{"ok": false, "error": message}` for the isolate."""
    try:
        return {"ok": True, "value": await run_host_call(host, op, args, context)}
    except HostError as refusal:
        return {"ok": False, "error": refusal.message}
    except Exception as bug:
        diagnostics.error(f"extension {name}: host function {op!s:.60} failed: {bug!r}")
        return {"ok": False, "error": f"internal error in host function {op!s:.60}"}


__all__ = ["answer_host_call", "run_host_call"]
