"""`rho.d.ts`, the TypeScript declarations of the extension format and host API, shipped in
this package. `python -m rho_ext_js.typings` prints its path; `--copy [DIR]` copies it into
DIR, by default `~/.rho/types/` (the book's place: an extension in `~/.rho/extensions/`
refers to it as `../types/rho.d.ts`). A `.d.ts` file is never an extension entry point, so a
copy inside an extensions folder is harmless too."""

from __future__ import annotations

import sys
from importlib.resources import as_file, files
from pathlib import Path

from rho_kernel import user_home

#: The declarations' file name.
DTS_NAME = "rho.d.ts"
#: Where `--copy` puts it without a folder, relative to the user's home.
TYPES_DIR = Path(".rho") / "types"
USAGE = "usage: python -m rho_ext_js.typings [--copy [DIR]]"


def rho_dts_text() -> str:
    """The contents of `rho.d.ts`."""
    return files("rho_ext_js").joinpath(DTS_NAME).read_text(encoding="utf-8")


def default_types_dir(home: Path | None = None) -> Path:
    """`~/.rho/types/`, where `--copy` puts the declarations by default."""
    return user_home(home) / TYPES_DIR


def main(argv: list[str]) -> int:
    """Print the installed path of `rho.d.ts`, or copy it with `--copy [DIR]`."""
    if argv[:1] == ["--copy"] and len(argv) <= 2:
        target = (Path(argv[1]) if len(argv) == 2 else default_types_dir()) / DTS_NAME
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(rho_dts_text(), encoding="utf-8")
        except OSError as exc:
            print(
                f"cannot copy {DTS_NAME} to {target.parent}: {exc.strerror or exc}", file=sys.stderr
            )
            return 1
        print(target)
        return 0
    if argv:
        print(USAGE, file=sys.stderr)
        return 2
    with as_file(files("rho_ext_js").joinpath(DTS_NAME)) as path:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

__all__ = ["DTS_NAME", "TYPES_DIR", "default_types_dir", "main", "rho_dts_text"]
