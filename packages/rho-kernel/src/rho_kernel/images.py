"""Images a person attaches to a prompt: checked before they become part of a message.

An image comes from a client (an editor's prompt, a JSON-RPC request) as a media type and
base64 data. `image_part` accepts it only when the type is one every provider rho speaks
takes (PNG, JPEG, GIF, WebP), the data is valid base64, no larger than `MAX_IMAGE_BYTES`
decoded, and its first bytes are that format's signature: a file that only claims to be an
image is refused with a message saying why, before anything is sent or kept.
"""

from __future__ import annotations

import base64
import binascii

from rho_kernel.messages import ImagePart, ImageUrl

#: The largest image taken, in bytes once decoded.
MAX_IMAGE_BYTES = 20 * 1024 * 1024
#: The most images one prompt may carry.
MAX_IMAGES = 20

#: Each accepted media type and the signatures its data may start with.
_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}

#: The media types an image may have.
IMAGE_MEDIA_TYPES = frozenset(_SIGNATURES)


class ImageError(ValueError):
    """An image that cannot be sent; the message says why, for the person who gave it."""


def _decoded(data: str) -> bytes:
    if len(data) > (MAX_IMAGE_BYTES * 4) // 3 + 4:
        raise ImageError(f"the image is larger than {MAX_IMAGE_BYTES >> 20} MiB")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError("the image's data is not valid base64") from None


def image_part(media_type: str, data: str) -> ImagePart:
    """The message part for an image of `media_type` whose bytes are `data` (base64);
    raises `ImageError` naming what is wrong."""
    kind = media_type.strip().lower() if isinstance(media_type, str) else ""
    if kind not in _SIGNATURES:
        accepted = ", ".join(sorted(IMAGE_MEDIA_TYPES))
        shown = media_type if isinstance(media_type, str) else type(media_type).__name__
        raise ImageError(f"images of type {shown[:60]!r} are not taken (only {accepted})")
    if not isinstance(data, str):
        raise ImageError("the image's data must be a base64 string")
    raw = _decoded(data)
    if len(raw) > MAX_IMAGE_BYTES:
        raise ImageError(f"the image is larger than {MAX_IMAGE_BYTES >> 20} MiB")
    if not raw.startswith(_SIGNATURES[kind]) or (kind == "image/webp" and raw[8:12] != b"WEBP"):
        raise ImageError(f"the image's data is not {kind.removeprefix('image/').upper()}")
    encoded = base64.b64encode(raw).decode("ascii")  # one canonical form, whatever was sent
    return ImagePart(image_url=ImageUrl(url=f"data:{kind};base64,{encoded}"))


__all__ = ["IMAGE_MEDIA_TYPES", "MAX_IMAGES", "MAX_IMAGE_BYTES", "ImageError", "image_part"]
