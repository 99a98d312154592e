"""Keeping a store compact: git writes each new object as its own file (a 10,000-file project
is 10,000 files of at least a disk block each), so once enough have gathered they are packed
into one delta-compressed pack file, and once enough packs have gathered they are packed
into one.
"""

from __future__ import annotations

from rho_checkpoints.gitcmd import GitRunner

#: Loose objects past which they are packed.
LOOSE_LIMIT = 1000
#: Packs past which they are packed into one (unreachable objects then go).
PACK_LIMIT = 20


def object_counts(git: GitRunner) -> dict[str, int]:
    """`git count-objects -v` as numbers: `count` (loose objects), `packs`, and so on."""
    counts = {}
    for line in git.run(["count-objects", "-v"]).decode().splitlines():
        name, _, value = line.partition(":")
        if value.strip().isdigit():
            counts[name.strip()] = int(value)
    return counts


def pack(git: GitRunner) -> bool:
    """Pack the loose objects, or all packs into one, when there are enough; whether it
    did."""
    counts = object_counts(git)
    if counts.get("packs", 0) >= PACK_LIMIT:
        git.run(["repack", "-a", "-d", "-q"])
        return True
    if counts.get("count", 0) > LOOSE_LIMIT:
        git.run(["repack", "-d", "-q"])
        return True
    return False


__all__ = ["LOOSE_LIMIT", "PACK_LIMIT", "object_counts", "pack"]
