"""@tool: schema from signature and docstring, validation, sync and async functions."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from rho_kernel import Risk, ToolContext, ToolResult, tool
from rho_kernel.cancel import CancelToken
from rho_kernel.config.model import RhoConfig
from rho_kernel.security.sandbox import SandboxRoot


@tool(risk="read")
def shout(text: str, times: int = 1) -> str:
    """Return the text in upper case, repeated.

    Args:
        text: What to shout.
        times: How many times to
            repeat it.
    """
    return " ".join([text.upper()] * times)


@tool(risk=Risk.WRITE, phase="execution", name="remember")
async def remember_async(items: list[str], ctx: ToolContext) -> dict[str, object]:
    """Store items."""
    return {"count": len(items), "root": str(ctx.root.path)}


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(root=SandboxRoot(tmp_path), config=RhoConfig(), cancel=CancelToken())


def test_schema_comes_from_signature_and_docstring() -> None:
    assert shout.name == "shout"
    assert shout.description == "Return the text in upper case, repeated."
    assert shout.risk is Risk.READ
    assert shout.parameters == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "What to shout."},
            "times": {
                "type": "integer",
                "default": 1,
                "description": "How many times to repeat it.",
            },
        },
        "required": ["text"],
    }


def test_the_schema_carries_only_what_the_model_needs() -> None:
    @tool
    def fetch(
        url: str,
        retries: int | None = None,
        mode: Literal["fast", "slow"] | None = None,
        either: int | str | None = None,
        label: str | None = "x",
    ) -> str:
        """Fetch a page.

        Args:
            url: The page.
            retries: How often to retry (default: never).
            mode: How to fetch.
            either: A number or a name.
            label: A label.
        """
        return url

    properties = fetch.parameters["properties"]
    assert "additionalProperties" not in fetch.parameters and "title" not in str(properties)
    assert properties["retries"] == {
        "type": "integer",
        "description": "How often to retry (default: never).",
    }
    assert properties["mode"] == {
        "type": "string",
        "enum": ["fast", "slow"],
        "description": "How to fetch.",
    }
    assert properties["either"] == {
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "description": "A number or a name.",
    }
    # A default other than None is kept, and so is the null its type allows.
    assert (
        properties["label"]["default"] == "x" and {"type": "null"} in properties["label"]["anyOf"]
    )
    assert fetch.parameters["required"] == ["url"]


async def test_an_omitted_or_null_optional_argument_and_no_unknown_one_is_taken(
    tmp_path: Path,
) -> None:
    @tool
    def count(text: str, limit: int | None = None) -> str:
        """Count."""
        return f"{text}:{limit}"

    assert (await count.execute({"text": "a"}, _ctx(tmp_path))).output == "a:None"
    assert (await count.execute({"text": "a", "limit": None}, _ctx(tmp_path))).output == "a:None"
    refused = await count.execute({"text": "a", "limits": 3}, _ctx(tmp_path))
    assert refused.is_error and "limits" in refused.output


def test_a_description_is_unwrapped_but_lists_and_code_keep_their_lines() -> None:
    @tool
    def tidy(path: str) -> str:
        """Tidy a file: sort its
        imports and wrap its lines.

        It does:
        - sorting, when the file
          has imports
        - wrapping
        1. first
        | a | b |
        | 1 | 2 |
        ```
        keep this
        as it is
        ```
        After the
        code.

        Args:
            path: The
                file.
        """
        return path

    assert tidy.description == (
        "Tidy a file: sort its imports and wrap its lines.\n\nIt does:\n- sorting, when the file\n"
        "  has imports\n- wrapping\n1. first\n| a | b |\n| 1 | 2 |\n```\nkeep this\nas it is\n"
        "```\nAfter the code."
    )
    assert tidy.parameters["properties"]["path"]["description"] == "The file."


def test_context_parameter_is_not_in_the_schema() -> None:
    assert set(remember_async.parameters["properties"]) == {"items"}
    assert remember_async.name == "remember"
    assert str(remember_async.phase) == "execution"


async def test_sync_function_runs(tmp_path: Path) -> None:
    result = await shout.execute({"text": "hi", "times": 2}, _ctx(tmp_path))
    assert result == ToolResult("HI HI")


async def test_async_function_gets_context_and_json_result(tmp_path: Path) -> None:
    result = await remember_async.execute({"items": ["a", "b"]}, _ctx(tmp_path))
    assert not result.is_error
    assert result.output == f'{{"count": 2, "root": "{tmp_path.resolve()}"}}'


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({}, "text: Field required"),
        ({"text": 3}, "text: Input should be a valid string"),
        ({"text": "a", "times": "many"}, "times: Input should be a valid integer"),
        ({"text": "a", "volume": 11}, "volume: Extra inputs are not permitted"),
    ],
)
async def test_invalid_arguments_become_an_error_result(
    tmp_path: Path, args: dict[str, object], fragment: str
) -> None:
    result = await shout.execute(args, _ctx(tmp_path))
    assert result.is_error
    assert result.output.startswith("shout: invalid arguments: ")
    assert fragment in result.output


def test_decorated_function_is_still_callable() -> None:
    assert shout("x", times=3) == "X X X"


def test_outline_comes_from_the_outline_function() -> None:
    from rho_kernel import ToolResult, tool

    @tool(outline=lambda arguments, result: f"count {arguments['text']}: {len(result.output)}")
    def count(text: str) -> str:
        """Count."""
        return text

    @tool(outline=lambda arguments, result: 1 / 0)
    def broken(text: str) -> str:
        """Broken outline."""
        return text

    @tool
    def plain(text: str) -> str:
        """No outline."""
        return text

    assert count.outline({"text": "abc"}, ToolResult("abc")) == "count abc: 3"
    assert broken.outline({"text": "a"}, ToolResult("a")) is None
    assert plain.outline({"text": "a"}, ToolResult("a")) is None


# ── safe defaults ────────────────────────────────────────────────────────────


def test_a_tool_that_declares_no_risk_is_treated_as_destructive() -> None:
    from rho_kernel import Tool

    @tool
    def undeclared() -> str:
        """No risk given."""
        return ""

    class Subclass(Tool):
        name = "subclass"

    assert undeclared.risk is Risk.DESTRUCTIVE
    assert tool(risk=None)(undeclared.func).risk is Risk.DESTRUCTIVE
    assert Subclass().risk is Risk.DESTRUCTIVE
    assert tool(risk="read")(undeclared.func).risk is Risk.READ


async def test_a_parameter_named_ctx_without_the_annotation_is_a_model_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    @tool(risk="read")
    def unannotated(path: str, ctx) -> str:  # type: ignore[no-untyped-def]
        """Echo what ctx is."""
        return f"{path}: {type(ctx).__name__} {ctx!r}"

    @tool(risk="read")
    def typed_str(ctx: str) -> str:
        """A string argument that happens to be called ctx."""
        return ctx

    assert set(unannotated.parameters["properties"]) == {"path", "ctx"}
    assert unannotated.parameters["required"] == ["path", "ctx"]
    assert "parameter 'ctx' has no annotation" in capsys.readouterr().err
    result = await unannotated.execute({"path": "a", "ctx": "model text"}, _ctx(tmp_path))
    assert result.output == "a: str 'model text'"
    assert (await typed_str.execute({"ctx": "three"}, _ctx(tmp_path))).output == "three"
    missing = await unannotated.execute({"path": "a"}, _ctx(tmp_path))
    assert missing.is_error and "ctx: Field required" in missing.output


async def test_only_a_parameter_annotated_tool_context_receives_it(tmp_path: Path) -> None:
    @tool(risk="read")
    def named_otherwise(text: str, context: ToolContext) -> str:
        """Context under another name."""
        return f"{text} {context.root.path}"

    @tool(risk="read")
    def optional(context: ToolContext | None = None) -> str:
        """Optional context."""
        return "none" if context is None else "given"

    assert set(named_otherwise.parameters["properties"]) == {"text"}
    assert optional.parameters["properties"] == {}
    ctx = _ctx(tmp_path)
    result = await named_otherwise.execute({"text": "root:"}, ctx)
    assert result.output == f"root: {ctx.root.path}"
    assert (await optional.execute({}, ctx)).output == "given"


def test_two_context_parameters_are_refused() -> None:
    def twice(a: ToolContext, b: ToolContext) -> str:
        """Two contexts."""
        return ""

    with pytest.raises(TypeError, match="more than one ToolContext parameter"):
        tool(risk="read")(twice)
