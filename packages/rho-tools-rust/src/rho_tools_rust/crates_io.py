"""The `crates_io_lookup` tool: search, info, versions and dependencies from crates.io.

Arguments are validated before any request; answers come from the on-disk cache when fresh
(`crates_io_cache`), else from the API (`crates_io_http`), and are rendered as tagged
blocks (`crates_io_render`). It is a network tool: it asks before its first call unless
the user configured otherwise.
"""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import quote, urlencode

from rho_kernel import Cancelled
from rho_kernel.tools import Phase, Risk, ToolContext, ToolResult, tool
from rho_tools_rust.crates_io_cache import ResponseCache, default_cache_dir
from rho_tools_rust.crates_io_http import (
    TIMEOUT_SECS,
    CratesIoError,
    NotFound,
    api_base,
    fetch_json,
)
from rho_tools_rust.crates_io_render import (
    ShapeError,
    crate_object,
    max_version,
    render_deps,
    render_info,
    render_search,
    render_versions,
)

NAME = "crates_io_lookup"
Operation = Literal["info", "search", "versions", "deps"]
CRATE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: A version as crates.io writes it (semver with pre-release and build parts).
VERSION = re.compile(r"[0-9A-Za-z.+-]{1,64}")
MAX_QUERY = 100
SEARCH_PAGE = 10


class ArgumentError(CratesIoError):
    """Arguments refused before any request."""


def check_crate_name(crate_name: str | None, operation: str) -> str:
    """`crate_name` if it is a valid crates.io name; else a `CratesIoError` naming the problem."""
    if crate_name is None or not crate_name.strip():
        raise ArgumentError(f"operation '{operation}' needs the crate_name parameter")
    if not CRATE_NAME.fullmatch(crate_name):
        shown = crate_name[:64] + ("…" if len(crate_name) > 64 else "")
        raise ArgumentError(
            f"invalid crate_name {shown!r}: a crate name has 1 to 64 ASCII letters, "
            "digits, '-' or '_'"
        )
    return crate_name


def check_query(query: str | None) -> str:
    """The search text, trimmed; a `CratesIoError` when missing, too long or not plain text."""
    if query is None or not query.strip():
        raise ArgumentError("operation 'search' needs the query parameter")
    query = query.strip()
    if len(query) > MAX_QUERY:
        raise ArgumentError(f"query is {len(query)} characters long; at most {MAX_QUERY}")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in query):
        raise ArgumentError("query may not contain control characters")
    return query


async def lookup(
    operation: str,
    *,
    query: str | None = None,
    crate_name: str | None = None,
    cache: ResponseCache | None = None,
    timeout: float = TIMEOUT_SECS,
) -> ToolResult:
    """Run one lookup and render it; every failure is an error result starting with the
    tool's name. `cache` defaults to the user's cache directory; `timeout` bounds each request."""
    try:
        output, summary = await _run(
            operation, query, crate_name, cache or ResponseCache(default_cache_dir()), timeout
        )
    except CratesIoError as exc:
        return ToolResult.error(f"{NAME}: {exc}", details={"summary": "error"})
    except ShapeError as exc:
        message = f"{NAME}: crates.io sent an unexpected answer ({exc})"
        return ToolResult.error(message, details={"summary": "error"})
    return ToolResult(output, details={"summary": summary})


async def _run(
    operation: str,
    query: str | None,
    crate_name: str | None,
    cache: ResponseCache,
    timeout: float,
) -> tuple[str, str]:
    """The rendered answer and its one-word summary for the outline."""
    if operation == "search":
        text = check_query(query)
        url = f"{api_base()}/crates?{urlencode({'q': text, 'per_page': SEARCH_PAGE})}"
        output, count = render_search(await _get(url, cache, timeout, None), text)
        return output, f"{count} crates"
    if operation not in ("info", "versions", "deps"):
        raise ArgumentError(f"unknown operation {operation[:40]!r}: info, search, versions or deps")
    name = check_crate_name(crate_name, operation)
    crate_url = f"{api_base()}/crates/{quote(name, safe='')}"
    if operation == "versions":
        body = await _get(f"{crate_url}/versions", cache, timeout, name)
        output, count = render_versions(body, name)
        return output, f"{count} versions"
    info = await _get(crate_url, cache, timeout, name)
    if operation == "info":
        output, version = render_info(info)
        return output, version
    version = max_version(crate_object(info))
    if not VERSION.fullmatch(version):
        raise CratesIoError(f"crates.io gave {name} an invalid version {version[:64]!r}")
    deps_url = f"{crate_url}/{quote(version, safe='')}/dependencies"
    output, count = render_deps(await _get(deps_url, cache, timeout, name), name, version)
    return output, f"{count} dependencies"


async def _get(url: str, cache: ResponseCache, timeout: float, crate: str | None) -> Any:
    """The answer for `url`: fresh from the cache, else fetched (and cached); a 404 names
    `crate`."""
    cached = cache.get(url)
    if cached is not None:
        return cached
    try:
        body = await fetch_json(url, timeout=timeout)
    except NotFound:
        if crate is None:
            raise CratesIoError("crates.io answered HTTP 404 (Not Found)") from None
        raise CratesIoError(f"no crate named {crate!r}") from None
    cache.put(url, body)
    return body


def _outline(arguments: dict[str, Any], result: ToolResult) -> str:
    """`crates_io_lookup info serde: 1.0.210` (the query for a search)."""
    operation = str(arguments.get("operation", ""))[:20]
    subject = arguments.get("query") if operation == "search" else arguments.get("crate_name")
    summary = (result.details or {}).get("summary") if isinstance(result.details, dict) else None
    if result.is_error or not summary:
        summary = "error"
    return f"{NAME} {operation} {str(subject or '')[:60]}: {summary}"


@tool(name=NAME, risk=Risk.NETWORK, phase=Phase.EXPLORATION, outline=_outline)
async def crates_io_lookup(
    operation: Operation,
    query: str | None = None,
    crate_name: str | None = None,
    *,
    ctx: ToolContext,
) -> ToolResult:
    """Look up Rust crates on crates.io: search by keywords, a crate's details, its versions, or the dependencies of its latest version.

    Answers are cached for 10 minutes. Use it to pick a crate or a version before adding a
    dependency to Cargo.toml.

    Args:
        operation: `search` (needs query), `info`, `versions` or `deps` (need crate_name).
        query: Search keywords, e.g. `async http client` (at most 100 characters).
        crate_name: The crate's name on crates.io, e.g. `serde`.
    """
    try:
        return await ctx.cancel.run(lookup(operation, query=query, crate_name=crate_name))
    except Cancelled:
        return ToolResult.error(f"{NAME}: cancelled", details={"summary": "cancelled"})


__all__ = ["NAME", "check_crate_name", "check_query", "crates_io_lookup", "lookup"]
