"""Run the `rho` console script and record `sys.modules` at the moment it writes `ready`.

Usage: python ready_probe.py OUT.json PATH/TO/rho [rho arguments...]

The real entry point runs unchanged (the script is executed as `__main__`, as the console
script runs); only `os.write` is wrapped, so that the first protocol line holding the `ready`
notification makes the probe write the sorted names of the loaded modules to OUT.json before
the line goes out. Nothing is timed: the record is taken at that write, whatever the pace.
"""

from __future__ import annotations

import json
import os
import runpy
import sys

_OUT = sys.argv[1]
_write = os.write


def _recording_write(fd: int, data: bytes, /) -> int:
    if fd == 1 and b'"method":"ready"' in bytes(data) and not os.path.exists(_OUT):
        with open(_OUT, "w", encoding="utf-8") as out:
            json.dump(sorted(n for n, m in sys.modules.items() if m is not None), out)
    return _write(fd, data)


os.write = _recording_write
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
