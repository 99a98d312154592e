"""A server's result as rho's: text joined, other content as placeholders, capped."""

from __future__ import annotations

import base64

import mcp_types as types

from rho_mcp.connection import describe_error
from rho_mcp.results import (
    MAX_ERROR_BYTES,
    MAX_KEPT_DATA,
    MAX_OUTPUT_BYTES,
    MAX_SHORT_ERROR,
    cap,
    error_text,
    tool_result,
)


def test_text_is_joined_and_the_rest_named() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(text="one"),
            types.TextContent(text="two"),
            types.ResourceLink(uri="file:///x", name="x"),
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="file:///b", blob=base64.b64encode(b"12345").decode(), mime_type="x/y"
                )
            ),
        ]
    )
    out = tool_result(result, "s", "t")
    assert out.output == "one\ntwo\n[resource file:///x]\n[resource file:///b: x/y, 5 bytes]"
    assert out.details["server"] == "s" and out.details["content"][0]["type"] == "resource"
    assert not out.is_error


def test_structured_content_is_shown_only_without_text() -> None:
    alone = tool_result(types.CallToolResult(content=[], structured_content={"a": 1}), "s", "t")
    assert alone.output == '{\n  "a": 1\n}'
    both = types.CallToolResult(
        content=[types.TextContent(text="a is 1")], structured_content={"a": 1}
    )
    assert tool_result(both, "s", "t").output == "a is 1"


def test_an_error_result_is_an_error() -> None:
    empty = tool_result(types.CallToolResult(content=[], is_error=True), "srv", "t")
    assert empty.is_error and "srv" in empty.output


def test_a_huge_image_is_kept_without_its_data() -> None:
    data = "A" * (MAX_KEPT_DATA + 4)
    out = tool_result(
        types.CallToolResult(content=[types.ImageContent(data=data, mime_type="image/png")]),
        "s",
        "t",
    )
    block = out.details["content"][0]
    assert block["data"] is None and "not kept" in block["truncated"]


def test_cap_keeps_head_and_tail_within_the_limit() -> None:
    text = "é" * MAX_OUTPUT_BYTES
    capped = cap(text)
    assert len(capped.encode()) <= MAX_OUTPUT_BYTES + 100
    assert capped.startswith("é") and capped.endswith("é") and "left out" in capped
    assert cap("short") == "short"


def test_an_error_text_is_bounded_saying_how_much_of_it_was_left_out() -> None:
    assert error_text("no such tool") == "no such tool"
    text = "head " + "M" * 20_000_000 + " tail"
    bounded = error_text(text)
    assert bounded.startswith("head M") and bounded.endswith("M tail")
    assert len(bounded.encode()) < MAX_ERROR_BYTES + 100
    assert "bytes of the server's error left out …]" in bounded
    assert len(error_text(text, MAX_SHORT_ERROR).encode()) < MAX_SHORT_ERROR + 100


def test_a_failed_start_is_told_in_a_few_words_whatever_the_server_said() -> None:
    from mcp.shared.exceptions import MCPError

    refused = describe_error(MCPError(-32050, "M" * 20_000_000))
    assert refused.startswith("the server answered with an error: MMM")
    assert len(refused) < MAX_SHORT_ERROR + 100 and "left out" in refused
    group = ExceptionGroup("start", [RuntimeError("x\n" * 1_000_000)])
    assert len(describe_error(group)) < MAX_SHORT_ERROR + 100
