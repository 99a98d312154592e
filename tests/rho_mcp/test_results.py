"""A server's result as rho's: text joined, other content as placeholders, capped."""

from __future__ import annotations

import base64

import mcp_types as types

from rho_mcp.results import MAX_KEPT_DATA, MAX_OUTPUT_BYTES, cap, tool_result


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
