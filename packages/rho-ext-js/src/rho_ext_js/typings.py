"""`rho.d.ts`, the TypeScript declarations of the extension format and host API, shipped in
this package. `python -m rho_ext_js.typings` prints its path (`--copy DIR` copies it there)."""

from __future__ import annotations

import sys
from importlib.resources import as_file, files
from pathlib import Path

#: The declarations' file name.
DTS_NAME = "rho.d.ts"


def rho_dts_text() -> str:
    """The contents of `rho.d.ts`."""
    return files("rho_ext_js").joinpath(DTS_NAME).read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    """Print the installed path of `rho.d.ts`, or copy it with `--copy DIR`."""
    if argv[:1] == ["--copy"] and len(argv) == 2:
        target = Path(argv[1]) / DTS_NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rho_dts_text(), encoding="utf-8")
        print(target)
        return 0
    if argv:
        print("usage: python -m rho_ext_js.typings [--copy DIR]", file=sys.stderr)
        return 2
    with as_file(files("rho_ext_js").joinpath(DTS_NAME)) as path:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

__all__ = ["DTS_NAME", "main", "rho_dts_text"]
