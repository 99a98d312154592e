"""`${VAR}` and `${VAR:-default}` in `.mcp.json` values, as Claude Code expands them."""

from __future__ import annotations

import re
from collections.abc import Mapping

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(text: str, environ: Mapping[str, str], missing: list[str]) -> str:
    """`text` with every `${VAR}` replaced by the variable's value and `${VAR:-default}` by
    the value, or `default` when it is unset or empty. A variable with neither is replaced
    by "" and its name added to `missing`."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if default is not None:
            return found if found else default
        if found is None:
            missing.append(name)
            return ""
        return found

    return _REFERENCE.sub(value, text)


__all__ = ["expand"]
