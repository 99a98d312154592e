"""crates.io API answers as the model sees them: `<crate …>` blocks, `<version … />` and
`<dependency … />` lines. Attribute values are XML-escaped; free text is put on one line,
shortened, and framed with `escape_tags` so it can neither end a block nor open one.
Every field is read defensively: a missing or mistyped one is left out, never a crash."""

from __future__ import annotations

from typing import Any, cast

from rho_kernel import escape_tags

#: Tags of the blocks this tool writes; free text may not contain them unescaped.
TAGS = ("crate", "version", "dependency")
MAX_TEXT = 400
MAX_VERSIONS = 30


class ShapeError(ValueError):
    """An answer that does not have the shape of the crates.io API's."""


def attr(value: Any) -> str:
    """`value` as a double-quoted XML attribute value, on one line, at most 200 chars."""
    text = " ".join(str(value).split())[:200]
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return '"' + text.replace('"', "&quot;") + '"'


def text(value: Any, limit: int = MAX_TEXT) -> str:
    """Free text on one line, at most `limit` chars, unable to close or open a block."""
    if not isinstance(value, str):
        return ""
    line = " ".join(value.split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return escape_tags(line, TAGS)


def field(data: Any, key: str, kind: type | tuple[type, ...] = str) -> Any:
    """`data[key]` if `data` is a dict and the value is of `kind` (not bool), else None."""
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        return None
    return value if isinstance(value, kind) else None


def crate_object(body: Any) -> dict[str, Any]:
    """The `crate` object of an info answer; `ShapeError` without one."""
    crate = field(body, "crate", dict)
    if crate is None or not field(crate, "name"):
        raise ShapeError("no 'crate' object")
    return cast("dict[str, Any]", crate)


def max_version(crate: dict[str, Any]) -> str:
    """The crate's highest version (`max_version`, else `newest_version`); `ShapeError` if none."""
    version = field(crate, "max_version") or field(crate, "newest_version")
    if not version:
        raise ShapeError("no 'max_version' for the crate")
    return str(version)


def _downloads(crate: dict[str, Any]) -> str:
    count = field(crate, "downloads", int)
    return str(count) if count is not None else "unknown"


def _line(label: str, value: Any) -> str:
    shown = text(value)
    return f"\n  {label}: {shown}" if shown else ""


def _docs(crate: dict[str, Any]) -> str:
    """The crate's documentation link; docs.rs hosts every crate's docs when none is given."""
    return field(crate, "documentation") or f"https://docs.rs/{crate['name']}"


def render_search(body: Any, query: str) -> tuple[str, int]:
    """The search answer as blocks after a count line; also the number of crates shown."""
    crates = field(body, "crates", list)
    if crates is None:
        raise ShapeError("no 'crates' list")
    found = [crate for crate in crates if field(crate, "name")]
    total = field(field(body, "meta", dict), "total", int)
    total_text = str(total) if total is not None else str(len(found))
    head = f"crates.io search {attr(text(query, 100))}: {total_text} crates found"
    if not found:
        return f"{head}.", 0
    blocks = []
    for crate in found:
        version = field(crate, "max_version")
        blocks.append(
            f"<crate name={attr(crate['name'])}"
            + (f" version={attr(version)}" if version else "")
            + f" downloads={attr(_downloads(crate))}>"
            + _line("description", field(crate, "description"))
            + _line("docs", _docs(crate))
            + "\n</crate>"
        )
    return f"{head}, showing {len(found)}:\n\n" + "\n\n".join(blocks), len(found)


def render_info(body: Any) -> tuple[str, str]:
    """The info answer as one `<crate>` block; also the crate's highest version."""
    crate = crate_object(body)
    version = max_version(crate)
    stable = field(crate, "max_stable_version")
    keywords = [k for k in field(crate, "keywords", list) or [] if isinstance(k, str)]
    license_ = _first_license(body, version)
    block = (
        f"<crate name={attr(crate['name'])} version={attr(version)}"
        + (f" stable={attr(stable)}" if stable and stable != version else "")
        + f" downloads={attr(_downloads(crate))}>"
        + _line("description", field(crate, "description"))
        + _line("license", license_)
        + _line("repository", field(crate, "repository"))
        + _line("homepage", field(crate, "homepage"))
        + _line("docs", _docs(crate))
        + _line("keywords", ", ".join(keywords))
        + "\n</crate>"
    )
    return block, version


def _first_license(body: Any, version: str) -> str | None:
    """The license of `version` from the answer's `versions` list (the crate has none)."""
    for entry in field(body, "versions", list) or []:
        if field(entry, "num") == version:
            return cast("str | None", field(entry, "license"))
    return None


def render_versions(body: Any, name: str) -> tuple[str, int]:
    """The first 30 versions, newest first, one line each; also how many were shown."""
    versions = field(body, "versions", list)
    if versions is None:
        raise ShapeError("no 'versions' list")
    rows = [entry for entry in versions if field(entry, "num")]
    total = field(field(body, "meta", dict), "total", int) or len(rows)
    shown = rows[:MAX_VERSIONS]
    lines = [
        f"<version num={attr(entry['num'])} "
        f"status={attr('yanked' if field(entry, 'yanked', bool) else 'available')} />"
        for entry in shown
    ]
    head = f"versions of {name} on crates.io, newest first"
    if total > len(shown):
        head += f" ({len(shown)} of {total} shown)"
    return head + ":\n" + "\n".join(lines), len(shown)


def render_deps(body: Any, name: str, version: str) -> tuple[str, int]:
    """The dependencies of `name` `version`, one line each; also how many."""
    deps = field(body, "dependencies", list)
    if deps is None:
        raise ShapeError("no 'dependencies' list")
    lines = [_dependency(dep) for dep in deps if field(dep, "crate_id")]
    head = f"dependencies of {name} {version}"
    if not lines:
        return f"{head}: none", 0
    return f"{head}:\n" + "\n".join(lines), len(lines)


def _dependency(dep: dict[str, Any]) -> str:
    """`<dependency name= req= kind=[ optional][ features="…"][ target="…"] />`."""
    features = [f for f in field(dep, "features", list) or [] if isinstance(f, str)]
    target = field(dep, "target")
    return (
        f"<dependency name={attr(dep['crate_id'])} req={attr(field(dep, 'req') or '*')}"
        f" kind={attr(field(dep, 'kind') or 'normal')}"
        + (" optional" if field(dep, "optional", bool) else "")
        + (f" features={attr(','.join(features))}" if features else "")
        + (f" target={attr(target)}" if target else "")
        + " />"
    )


__all__ = [
    "MAX_VERSIONS",
    "TAGS",
    "ShapeError",
    "attr",
    "crate_object",
    "max_version",
    "render_deps",
    "render_info",
    "render_search",
    "render_versions",
    "text",
]
