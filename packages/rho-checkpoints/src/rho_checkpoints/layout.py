"""Where a project's checkpoint store lives and how it is created.

A store is `STATE_DIR/checkpoints/KEY/`, KEY the first 16 hex digits of the SHA-256 of the
project root's canonical path: a git directory (no work tree of its own) readable by the
user alone. It is set up in a temporary folder and renamed into place, so a store is either
complete or absent, even when two rho processes open it at once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from rho_checkpoints.gitcmd import GitRunner

#: The store's `info/exclude`: never recorded, at any depth (besides the project's ignores).
EXCLUDE = ".git\n.rho\n"
#: The store's `info/attributes`, which beat every `.gitattributes`: no line-ending,
#: `ident` or encoding conversion and no filter, so files are stored and restored as bytes.
ATTRIBUTES = "* -text -ident -filter !eol !working-tree-encoding !diff\n"


def store_path(root: Path, state_dir: Path) -> Path:
    """The store folder for the project at the canonical `root`."""
    key = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    return state_dir / "checkpoints" / key


def create_store(store_dir: Path, work_tree: Path) -> None:
    """Create the store at `store_dir` unless it exists: `git init` without templates, the
    exclude and attribute files, mode 0700."""
    if (store_dir / "HEAD").exists():
        return
    store_dir.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = store_dir.with_name(f"{store_dir.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(mode=0o700)
    try:
        GitRunner(staging, work_tree).run(["init", "--quiet", "--template="])
        (staging / "info").mkdir(mode=0o700, exist_ok=True)
        (staging / "info" / "exclude").write_text(EXCLUDE)
        (staging / "info" / "attributes").write_text(ATTRIBUTES)
        staging.rename(store_dir)
    except OSError:
        if not (store_dir / "HEAD").exists():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    store_dir.chmod(0o700)
