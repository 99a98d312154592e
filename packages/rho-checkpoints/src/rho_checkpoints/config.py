"""`[checkpoints]`: whether rho records the project's files, and how large a file it keeps."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from rho_kernel import NeedsTrust, turns_on


class CheckpointsConfig(BaseModel):
    """`[checkpoints]`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    #: Record checkpoints. A repository may only turn them off: turning them on from its
    #: config needs trust.
    enabled: Annotated[bool, NeedsTrust(turns_on)] = True
    #: Files larger than this many MiB are left out of checkpoints.
    max_file_mb: int = Field(10, ge=1, le=1024)
    #: The most files one snapshot may record afresh (every file, the first time): past it,
    #: checkpoints are off for the session (a build output not in .gitignore, say).
    max_files: int = Field(100_000, ge=1)
    #: The most the project's store may take on disk, in MiB: past it, the snapshots of the
    #: sessions used longest ago are pruned as a turn ends.
    max_size_mb: int = Field(500, ge=1)


__all__ = ["CheckpointsConfig"]
