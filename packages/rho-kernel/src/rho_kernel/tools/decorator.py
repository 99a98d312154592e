"""`@tool`: turn a plain (sync or async) function into a `Tool`."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    overload,
)

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from rho_kernel import diagnostics
from rho_kernel.tools.base import (
    UNDECLARED_RISK,
    Checker,
    Continuation,
    Outliner,
    Phase,
    Previewer,
    Risk,
    RiskOfCall,
    Tool,
    ToolContext,
    ToolResult,
)

if TYPE_CHECKING:
    from rho_kernel.approvals.preview import Preview

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_ARG_LINE = re.compile(r"^\s+(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def _split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description (text before an `Args:` section) and per-argument descriptions."""
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    arg_indent: int | None = None
    current: str | None = None
    for line in inspect.cleandoc(doc).splitlines() if doc else []:
        indent = len(line) - len(line.lstrip())
        if indent == 0 and line.strip():
            section = "args" if _ARGS_HEADER.match(line) else ("other" if section else None)
            if section:
                current = None
                continue
        if section is None:
            description.append(line)
        elif section == "args" and line.strip():
            match = _ARG_LINE.match(line)
            if match and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = match.group(1)
                params[current] = match.group(2).strip()
            elif current:
                params[current] = f"{params[current]} {line.strip()}".strip()
    return _unwrap(description).strip(), params


#: A line that keeps its own line: indented, or the start of a list item, table row,
#: quotation, heading or code fence.
_OWN_LINE = re.compile(r"\s|(?:[-*+•|>#]|\d+[.)])(?:\s|$)|```")
#: A line that nothing joins: a table row, heading or code fence.
_WHOLE_LINE = re.compile(r"[|#]|```")


def _unwrap(lines: list[str]) -> str:
    """The lines with each paragraph's hard wraps undone: they lay out the source, and each
    costs the model a token. Blank lines, lines that keep their own line (`_OWN_LINE`) and
    everything inside a code fence stay as they are."""
    out: list[str] = []
    fenced = False
    for line in lines:
        joins = (
            bool(out and out[-1] and line)
            and not fenced
            and not _OWN_LINE.match(line)
            and not _WHOLE_LINE.match(out[-1])
        )
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if joins:
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
    return "\n".join(out)


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


_NULL = {"type": "null"}


def _optional(prop: Any) -> Any:
    """A parameter defaulting to None as the model needs it: its own type, left out when not
    given (`{"type": "integer"}` for pydantic's `{"anyOf": [{"type": "integer"}, {"type":
    "null"}], "default": null}`). An explicit null still validates."""
    if not isinstance(prop, dict) or "default" not in prop or prop["default"] is not None:
        return prop
    prop = {k: v for k, v in prop.items() if k != "default"}
    options = prop.get("anyOf")
    if isinstance(options, list) and _NULL in options:
        rest = [option for option in options if option != _NULL]
        del prop["anyOf"]
        if len(rest) == 1 and isinstance(rest[0], dict):
            return {**rest[0], **prop}
        if rest:
            prop["anyOf"] = rest
    return prop


def _model_facing_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """pydantic's JSON Schema of a tool's arguments without what the model does not need:
    titles, `additionalProperties` (unknown arguments are still refused when the call is
    validated; no provider rho speaks to requires it without strict mode, which rho does
    not ask for) and the null branch and default of optional parameters (see `_optional`)."""
    schema = _strip_titles(schema)
    schema.pop("additionalProperties", None)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema["properties"] = {name: _optional(prop) for name, prop in properties.items()}
    return schema


def _format_validation_error(tool_name: str, error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return f"{tool_name}: invalid arguments: " + "; ".join(problems)


class FunctionTool(Tool):
    """A tool backed by a function; arguments are validated by a pydantic model of its signature."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        risk: Risk | str | None = None,
        phase: Phase | str | None = None,
        outline: Outliner | None = None,
        runs_processes: bool = False,
        continuation: Continuation | None = None,
        call_risk: RiskOfCall | None = None,
        confined_risk: Risk | str | None = None,
        fresh_process_per_call: bool = False,
        rule_subject: Literal["command", "path"] | None = None,
        preview: Previewer | None = None,
        cut_keeps_tail: bool = False,
        check: Checker | None = None,
    ) -> None:
        self.func = func
        self.cut_keeps_tail = cut_keeps_tail
        self.checker = check
        self.confined_risk = Risk(confined_risk) if confined_risk is not None else None
        self.risk_of_call = call_risk
        self.runs_processes = runs_processes
        self.fresh_process_per_call = fresh_process_per_call
        self.rule_subject = rule_subject
        self.previewer = preview
        self.outliner = outline
        self.continuer = continuation
        self.name = name or func.__name__
        doc_description, param_docs = _split_docstring(func.__doc__ or "")
        self.description = description if description is not None else doc_description
        self.risk = Risk(risk) if risk is not None else UNDECLARED_RISK
        self.phase = Phase(phase) if phase is not None else None
        self.is_async = inspect.iscoroutinefunction(func)
        hints = _type_hints(func, self.name)
        self._fields: dict[str, Any] = {}
        self.context_param: str | None = None
        for param in inspect.signature(func).parameters.values():
            annotation = hints.get(param.name, Any)
            if _is_context(annotation):
                if self.context_param is not None:
                    raise TypeError(f"@tool {self.name}: more than one ToolContext parameter")
                self.context_param = param.name
                continue
            if param.name == "ctx" and param.name not in hints:
                diagnostics.warn(
                    f"@tool {self.name}: parameter 'ctx' has no annotation, so the model "
                    "fills it in; annotate it 'ctx: ToolContext' to receive the context"
                )
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(f"@tool {self.name}: *args/**kwargs are not supported")
            default = ... if param.default is inspect.Parameter.empty else param.default
            self._fields[param.name] = (
                annotation,
                Field(default, description=param_docs.get(param.name)),
            )
        self._args_model: type[BaseModel] | None = None
        self._parameters: dict[str, Any] | None = None

    # The pydantic model and JSON Schema are built on first use (the first request, or
    # `ToolRegistry.prepare` right after startup), keeping them off the path to `ready`.

    @property
    def args_model(self) -> type[BaseModel]:
        """The pydantic model of the arguments (built on first use)."""
        if self._args_model is None:
            self._args_model = create_model(
                f"{self.name}_arguments", __config__=ConfigDict(extra="forbid"), **self._fields
            )
        return self._args_model

    @property
    def parameters(self) -> dict[str, Any]:  # type: ignore[override]
        """The JSON Schema of the arguments (built on first use)."""
        if self._parameters is None:
            schema = _model_facing_schema(self.args_model.model_json_schema())
            schema.setdefault("properties", {})
            self._parameters = schema
        return self._parameters

    def validate(self, args: dict[str, Any]) -> dict[str, Any]:
        """Validated keyword arguments for the function; raises `ValidationError`."""
        model = self.args_model.model_validate(args)
        return {name: getattr(model, name) for name in type(model).model_fields}

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            kwargs = self.validate(args)
        except ValidationError as exc:
            return ToolResult.error(_format_validation_error(self.name, exc))
        if self.context_param:
            kwargs[self.context_param] = ctx
        if self.is_async:
            value = await self.func(**kwargs)
        else:
            value = await asyncio.to_thread(self.func, **kwargs)
        return _to_result(value)

    async def check(self, arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """Why this call cannot run: its arguments do not fit the signature (the message
        `execute` would give), or the `check=` function's answer, given the validated
        arguments (None: both accept it)."""
        try:
            validated = self.validate(arguments)
        except ValidationError as exc:
            return _format_validation_error(self.name, exc)
        if self.checker is None:
            return None
        if inspect.iscoroutinefunction(self.checker):
            problem = await self.checker(validated, ctx)
        else:
            problem = await asyncio.to_thread(self.checker, validated, ctx)
        if inspect.isawaitable(problem):
            problem = await problem
        return problem if problem is None else str(problem)

    def outline(self, arguments: dict[str, Any], result: ToolResult) -> str | None:
        """The `outline=` function's line for this call (None without one, or if it fails)."""
        if self.outliner is None:
            return None
        try:
            return self.outliner(arguments, result)
        except Exception:  # an outline is a nicety: a broken one falls back to the generic
            return None

    async def preview(self, arguments: dict[str, Any], ctx: ToolContext) -> Preview | None:
        """The change `preview` plans for this call (None without one)."""
        if self.previewer is None:
            return None
        return await self.previewer(arguments, ctx)

    def continuation(
        self, arguments: dict[str, Any], result: ToolResult, kept_lines: int
    ) -> str | None:
        """The `continuation=` function's advice (None without one, or if it fails)."""
        if self.continuer is None:
            return None
        try:
            return self.continuer(arguments, result, kept_lines)
        except Exception:  # advice is a nicety: a broken one falls back to the generic
            return None

    def call_risk(self, arguments: dict[str, Any]) -> Risk:
        """The `call_risk=` function's risk for this call (the declared `risk` without one).

        Its answer is taken as a `Risk`; the loop treats a failure as `Risk.DESTRUCTIVE`."""
        if self.risk_of_call is None:
            return self.risk
        return Risk(self.risk_of_call(arguments))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calling the decorated name still calls the original function."""
        return self.func(*args, **kwargs)


def _type_hints(func: Callable[..., Any], name: str) -> dict[str, Any]:
    """The function's resolved annotations; a name that cannot be resolved is a clear error."""
    try:
        return get_type_hints(func)
    except Exception as exc:  # NameError for a name imported only under TYPE_CHECKING
        raise TypeError(
            f"@tool {name}: its annotations cannot be resolved ({exc}); import the types "
            "they name at module level"
        ) from None


def _is_context(annotation: Any) -> bool:
    """Whether a parameter is annotated `ToolContext` (a subclass, or `ToolContext | None`)."""
    if get_origin(annotation) in (Union, UnionType):
        options = [arg for arg in get_args(annotation) if arg is not type(None)]
        return bool(options) and all(_is_context(arg) for arg in options)
    return isinstance(annotation, type) and issubclass(annotation, ToolContext)


def _to_result(value: Any) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(value)
    if value is None:
        return ToolResult("")
    return ToolResult(json.dumps(value, ensure_ascii=False, default=str))


@overload
def tool(func: Callable[..., Any], /) -> FunctionTool: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    risk: Risk | str | None = None,
    phase: Phase | str | None = None,
    outline: Outliner | None = None,
    runs_processes: bool = False,
    continuation: Continuation | None = None,
    call_risk: RiskOfCall | None = None,
    confined_risk: Risk | str | None = None,
    fresh_process_per_call: bool = False,
    rule_subject: Literal["command", "path"] | None = None,
    preview: Previewer | None = None,
    cut_keeps_tail: bool = False,
    check: Checker | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    risk: Risk | str | None = None,
    phase: Phase | str | None = None,
    outline: Outliner | None = None,
    runs_processes: bool = False,
    continuation: Continuation | None = None,
    call_risk: RiskOfCall | None = None,
    confined_risk: Risk | str | None = None,
    fresh_process_per_call: bool = False,
    rule_subject: Literal["command", "path"] | None = None,
    preview: Previewer | None = None,
    cut_keeps_tail: bool = False,
    check: Checker | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool from a function.

    The JSON Schema comes from the signature (types, defaults) and the docstring (the text
    before an `Args:` section is the description; `name: text` lines under `Args:` describe
    parameters). Arguments are validated with pydantic before the call; invalid ones become an
    error result for the model. The function may be sync (run in a worker thread) or async,
    may take a parameter annotated `ToolContext` (only such a parameter receives the context
    and stays out of the schema), and may return a str, a `ToolResult`, or any
    JSON-serialisable value. `risk` defaults to undeclared, which is treated as
    `Risk.DESTRUCTIVE`: every call asks; declare `risk="read"` for a tool that only reads.
    `outline(arguments, result)` returns the call's one-line form used when old turns are
    shrunk (see `Tool.outline`). `runs_processes=True` declares that it starts processes
    (with `ctx.run_process`), see `Tool.runs_processes`.
    `continuation(arguments, result, kept_lines)` says how to read on after a result cut to
    fit the context window (see `Tool.continuation`).
    `call_risk(arguments)` gives one call's risk when calls differ; `risk` is then the
    highest (see `Tool.call_risk`). `confined_risk` is the risk while the OS sandbox
    confines the processes it starts (see `Tool.confined_risk`).
    `fresh_process_per_call=True` declares that each call starts a fresh process (see
    `Tool.fresh_process_per_call`). `rule_subject` says what approval rules match its calls
    on (see `Tool.rule_subject`); `preview(arguments, ctx)` (async) plans the change a call
    would make, for its approval (see `Tool.preview`); `check(arguments, ctx)` (sync or
    async, given the validated arguments) says why a call cannot run before its approval is
    asked (see `Tool.check`: the arguments are always validated first). `cut_keeps_tail=True`
    keeps a cut result's last lines as well as its first (see `Tool.cut_keeps_tail`).
    """

    def wrap(function: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            function,
            name=name,
            description=description,
            risk=risk,
            phase=phase,
            outline=outline,
            runs_processes=runs_processes,
            continuation=continuation,
            call_risk=call_risk,
            confined_risk=confined_risk,
            fresh_process_per_call=fresh_process_per_call,
            rule_subject=rule_subject,
            preview=preview,
            cut_keeps_tail=cut_keeps_tail,
            check=check,
        )

    if func is not None:
        return wrap(func)
    return wrap


__all__ = ["FunctionTool", "tool"]
