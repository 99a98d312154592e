"""A `session/prompt`'s content blocks as one rho prompt: its text and its images.

Text blocks are the user's words. An embedded resource (a file the editor attached) is given
to the model as framed context — `<context source="…">` … `<context:end>`, its text escaped so
it cannot close the frame — as rho frames what tools read; a resource link names the file
for the model to read (`[file: …]`). An image block (PNG, JPEG, GIF or WebP data) follows the
text, checked by `rho_kernel.image_part`; audio is not taken (the capabilities say so).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from acp import RequestError

from rho_kernel import ImagePart, escape_controls, escape_tags

#: The tags of a context frame.
FRAME_TAGS = ("context", "context:end")
#: The most text of embedded resources one prompt takes.
MAX_EMBEDDED = 1 << 20


@dataclass(frozen=True)
class Prompt:
    """What one `session/prompt` asks: its text, and the images that follow it."""

    text: str
    images: list[ImagePart] = field(default_factory=list)


def _image(block: Any) -> ImagePart:
    """The image of an image block (its data; a bare URI is not fetched)."""
    from rho_kernel import ImageError, image_part

    if not getattr(block, "data", None):
        raise RequestError.invalid_params({"message": "an image block must carry its data"})
    try:
        return image_part(block.mime_type, block.data)
    except ImageError as exc:
        raise RequestError.invalid_params({"message": f"image: {exc}"}) from None


def prompt_content(blocks: list[Any]) -> Prompt:
    """The prompt the blocks make; `RequestError` (invalid params) for a block rho does not
    take, or a prompt with neither text nor images."""
    parts: list[str] = []
    images: list[ImagePart] = []
    embedded = 0
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "image":
            images.append(_image(block))
        elif kind == "text":
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
    if not text.strip() and not images:
        raise RequestError.invalid_params({"message": "the prompt holds no text"})
    return Prompt(text, images)


__all__ = ["FRAME_TAGS", "MAX_EMBEDDED", "Prompt", "prompt_content"]
