"""Benchmark: the CPU cost of each phase of config loading and plugin discovery at start.

Run: uv run python bench/config_load.py [runs]
The workspace sources are byte-compiled first, as an installed rho would be.
Each run is a fresh process that goes through the phases rho's start goes through, in the
same order (pydantic, the config schema, the loader, `read_config`, plugin discovery, the
plugins' sections, `complete`), timing each with process CPU time. Prints the median of each
phase over the runs. A phase's cost includes the imports it is the first to need.
"""

from __future__ import annotations

import compileall
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: One run: times each phase (CPU milliseconds) and prints them as JSON.
PHASES = r"""
import json, sys, time
from pathlib import Path
clock, laps = time.process_time_ns, {}
def lap(name, start):
    laps[name] = (clock() - start) / 1e6
start = clock(); import pydantic; lap("import pydantic", start)
start = clock(); import pydantic.main; lap("import pydantic.main (BaseModel)", start)
start = clock(); import rho_kernel.config.markers, rho_kernel.config.errors; lap("markers, errors", start)
start = clock(); import rho_kernel.config.model; lap("config models built", start)
start = clock(); import rho_kernel.config.loader; lap("config.loader import", start)
from rho_kernel.config.loader import read_config
root, home = Path(sys.argv[1]), Path(sys.argv[2])
start = clock(); files = read_config(root, home=home, warn=lambda _: None); lap("read_config", start)
start = clock(); from rho_kernel.plugins import PluginHost; lap("plugins import", start)
start = clock()
host = PluginHost(disabled=files.kernel.plugins.disabled, report=lambda _: None)
host.load_defaults()
lap("built-in plugins", start)
start = clock(); host.load_entrypoints(); lap("entry-point plugins", start)
from rho_kernel.config.sections import collect_sections
start = clock()
specs = collect_sections(host.call_each("rho_register_config_sections"), host.report)
models = {name: spec.model for name, spec in specs.items()}
config = files.complete(models, not_loading=host.not_loading())
lap("plugin sections + complete", start)
print(json.dumps(laps))
"""

USER_CONFIG = """\
[agent]
model = "local/x"
max_iterations = 40
[shell]
denied_commands = ["rm"]
[[providers]]
name = "local"
endpoint = "http://127.0.0.1:1/v1"
[tools.edit]
syntax_check = true
"""

PROJECT_CONFIG = """\
[agent]
max_iterations = 20
[sandbox]
network = false
"""


def one_run(root: Path, home: Path) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", PHASES, str(root), str(home)],
        capture_output=True,
        text=True,
        check=True,
    )
    laps: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    return laps


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for source in (Path(__file__).resolve().parents[1] / "packages").glob("*/src"):
        compileall.compile_dir(source, quiet=1)  # as an installed rho is
    with tempfile.TemporaryDirectory() as tmp:
        home, root = Path(tmp, "home"), Path(tmp, "project")
        (home / ".rho").mkdir(parents=True)
        (root / ".rho").mkdir(parents=True)
        (root / ".git").mkdir()
        (home / ".rho" / "config.toml").write_text(USER_CONFIG)
        (root / ".rho" / "config.toml").write_text(PROJECT_CONFIG)
        results = [one_run(root, home) for _ in range(runs)]
    for phase in results[0]:
        print(f"{phase:36s} {statistics.median(r[phase] for r in results):8.1f} ms CPU")
    total = statistics.median(sum(r.values()) for r in results)
    print(f"{'all phases':36s} {total:8.1f} ms CPU  (median of {runs} runs)")


if __name__ == "__main__":
    main()
