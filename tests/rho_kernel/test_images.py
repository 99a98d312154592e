"""Images in prompts: checked on the way in, kept in messages, counted in the context, and
whether a model takes them."""

from __future__ import annotations

import base64

import pytest

from rho_kernel import ChatMessage, ImageError, ImagePart, image_part
from rho_kernel.config.model import ModelConfig
from rho_kernel.context.estimator import IMAGE_BYTES, message_bytes
from rho_kernel.images import MAX_IMAGE_BYTES
from rho_kernel.providers.catalog import ModelCatalog

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
WEBP = b"RIFF\x10\0\0\0WEBPVP8 " + b"\0" * 8


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    ("media_type", "data"),
    [
        ("image/png", PNG),
        ("IMAGE/PNG", PNG),
        ("image/jpeg", b"\xff\xd8\xff\xe0" + b"\0" * 8),
        ("image/gif", b"GIF89a" + b"\0" * 8),
        ("image/webp", WEBP),
    ],
)
def test_an_image_of_each_taken_type_becomes_a_data_url(media_type: str, data: bytes) -> None:
    part = image_part(media_type, _b64(data))
    assert part.media_type == media_type.lower()
    assert part.image_url.url == f"data:{media_type.lower()};base64,{_b64(data)}"


@pytest.mark.parametrize(
    ("media_type", "data", "why"),
    [
        ("image/svg+xml", _b64(b"<svg/>"), "are not taken"),
        ("text/plain", _b64(PNG), "are not taken"),
        ("image/jpeg", _b64(PNG), "is not JPEG"),
        ("image/webp", _b64(b"RIFF\0\0\0\0WAVE"), "is not WEBP"),
        ("image/png", "iVBOR w0K", "not valid base64"),
        ("image/png", "", "is not PNG"),
        ("image/png", "A" * (MAX_IMAGE_BYTES * 2), "larger than 20 MiB"),
    ],
)
def test_an_image_that_is_not_what_it_claims_is_refused(
    media_type: str, data: str, why: str
) -> None:
    with pytest.raises(ImageError, match=why):
        image_part(media_type, data)


def test_a_message_keeps_its_images_after_its_text_and_loads_again() -> None:
    image = image_part("image/png", _b64(PNG))
    message = ChatMessage.user("look", [image])
    assert message.text == "look" and message.images == [image]
    wire = message.to_wire()["content"]
    assert wire == [{"type": "text", "text": "look"}, image.model_dump()]
    assert ChatMessage.model_validate(message.to_record()) == message
    assert ChatMessage.user("plain").to_wire()["content"] == "plain"


def test_an_image_counts_as_a_fixed_share_of_the_context_not_its_data() -> None:
    text_only = message_bytes(ChatMessage.user("look"))
    image = ImagePart.model_validate(
        {"image_url": {"url": "data:image/png;base64," + "A" * 1_000_000}}
    )
    assert message_bytes(ChatMessage.user("look", [image, image])) == text_only + 2 * IMAGE_BYTES


def test_whether_a_model_takes_images() -> None:
    catalog = ModelCatalog(
        [
            ModelConfig(id="my-vision"),
            ModelConfig(id="my-vision", images=True),
            ModelConfig(id="gpt-4o", provider="proxy", images=False),
        ]
    )
    assert catalog.takes_images("gpt-4o") is True
    assert catalog.takes_images("openai/gpt-4o") is True
    assert catalog.takes_images("gpt-4o", "proxy") is False
    assert catalog.takes_images("deepseek-chat") is False
    assert catalog.takes_images("my-vision") is True
    assert catalog.takes_images("something-local") is None
