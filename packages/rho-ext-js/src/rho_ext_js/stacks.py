"""An extension's error as the user sees it: its message and the extension's own frames.

A V8 stack names every frame: the extension's modules (by their `sourceURL`, e.g.
`rust_docs/parser.ts:12:5`) but also rho's environment and bridge (`<anonymous>`), the
bundle's glue and code the extension evaluated itself. Only frames in the extension's
modules say something to its author; the rest is dropped. Lines are the source's (the
bundler and the TypeScript stripping keep them); on a module's first line the column is
moved back by what the bundle's prologue added there.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

#: At most this many of the extension's frames are shown, innermost first.
MAX_FRAMES = 5
_COMPILE_S = 2.0
_COMPILE_BYTES = 64 * 1024 * 1024
_PARSE_LINE = re.compile(r"^[^\n:]*:(\d+): SyntaxError")

_FRAME = re.compile(
    r"^at (?:(?P<function>.+?) \()?(?P<url>[^\s()]+):(?P<line>\d+):(?P<column>\d+)\)?$"
)


def own_frames(stack: str, modules: Mapping[str, int]) -> list[str]:
    """The frames of `stack` in the extension's modules (`sourceURL` to first-line shift),
    innermost first, as `at function (module:line:column)`."""
    frames: list[str] = []
    for raw in stack.splitlines()[1:]:
        match = _FRAME.match(raw.strip())
        if match is None or match["url"] not in modules:
            continue
        url, line, column = match["url"], int(match["line"]), int(match["column"])
        if line == 1:
            column = max(1, column - modules[url])
        place = f"{url}:{line}:{column}"
        function = match["function"]
        # A module's top-level code runs in the function its bundling made, which V8 calls
        # `eval` (no function of a module may have that name: modules are strict).
        named = function and function not in ("eval", "async eval")
        frames.append(f"at {function} ({place})" if named else f"at {place}")
        if len(frames) == MAX_FRAMES:
            break
    return frames


async def syntax_error_place(codes: Mapping[str, str]) -> str | None:
    """Where V8 finds a syntax error in the extension's modules (`module:line`), or None.

    V8 names no place for a syntax error in code compiled by `eval`, which is how modules
    load; compiled as a script of its own, it does. Each module's code is a function
    expression: evaluating it only creates the function, none of the module runs (and it
    runs in a bare isolate with a short time and memory limit, with nothing of rho's).
    """
    from py_mini_racer import JSParseException, MiniRacer

    racer = MiniRacer()
    try:
        racer.set_hard_memory_limit(_COMPILE_BYTES)
        for url, code in codes.items():
            try:
                await asyncio.wait_for(racer.eval_cancelable(code), _COMPILE_S)
            except JSParseException as error:
                line = _PARSE_LINE.match(str(error))
                return f"{url}:{line[1]}" if line else url
            except Exception:  # anything else is not a syntax error
                continue
    finally:
        racer.close()
    return None


def error_text(error: Exception, modules: Mapping[str, int]) -> str:
    """`error`'s message, followed by the extension's own frames when its stack has any."""
    message = getattr(error, "message", None) or str(error)
    frames = own_frames(getattr(error, "stack", "") or "", modules)
    return f"{message} ({'; '.join(frames)})" if frames else message


__all__ = ["MAX_FRAMES", "error_text", "own_frames", "syntax_error_place"]
