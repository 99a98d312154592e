"""A `session/prompt`'s content blocks as the text of one rho prompt.

Text blocks are the user's words. An embedded resource (a file the editor attached) is given
to the model as framed context — `<context source="…">` … `<context:end>`, its text escaped so
it cannot close the frame — as rho frames what tools read; a resource link names the file
for the model to read (`[file: …]`). Images and audio are not taken (the capabilities say so).
"""

from __future__ import annotations

import json
from typing import Any

from acp import RequestError

from rho_kernel import escape_controls, escape_tags

#: The tags of a context frame.
FRAME_TAGS = ("context", "context:end")
#: The most text of embedded resources one prompt takes.
MAX_EMBEDDED = 1 << 20


def prompt_text(blocks: list[Any]) -> str:
    """The text of the prompt the blocks make; `RequestError` (invalid params) for a block
    rho does not take, or a prompt with no text at all."""
    parts: list[str] = []
    embedded = 0
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"[file: {escape_controls(block.uri)}]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if not isinstance(text, str):
                raise RequestError.invalid_params(
                    {"message": f"{resource.uri}: only text resources are taken"}
                )
            embedded += len(text)
            if embedded > MAX_EMBEDDED:
                raise RequestError.invalid_params(
                    {"message": f"the embedded resources exceed {MAX_EMBEDDED} characters"}
                )
            quoted = escape_tags(text, FRAME_TAGS)
            source = json.dumps(escape_tags(str(resource.uri), FRAME_TAGS))  # one quoted line
            parts.append(f"<context source={source}>\n{quoted}\n<context:end>")
        else:
            raise RequestError.invalid_params({"message": f"a {kind} block is not taken"})
    text = "\n\n".join(parts)
    if not text.strip():
        raise RequestError.invalid_params({"message": "the prompt holds no text"})
    return text


__all__ = ["FRAME_TAGS", "MAX_EMBEDDED", "prompt_text"]
