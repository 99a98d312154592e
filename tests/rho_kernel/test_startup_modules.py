"""The modules a start does not need stay unloaded until `ready` has been sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: Modules that the kernel loads on first use, after `ready`, and why.
DEFERRED = (
    # The built-in redaction rules compile dozens of patterns: loaded on the first redaction.
    "rho_kernel.security.redaction_rules",
    "rho_kernel.security.redaction_apply",
    # Reading a session file (and moving its torn tail aside): a new session needs neither.
    "rho_kernel.session.loading",
    "rho_kernel.session.problems",
    "rho_kernel.session.torn",
    # The built-in system prompt is read beside its module, without importlib's readers.
    "importlib.resources.readers",
)

#: Builds the runtime as `rho --ephemeral` does (every installed plugin), then lists which
#: of the deferred modules are loaded, and which of rho's models had their validator built:
#: none has (plainly valid config tables, a new session's entries and its system message
#: are made from values already checked; see `rho_kernel.config.fast_path`).
PROBE = """
import sys
from pathlib import Path
from rho_kernel.runtime import Runtime, RuntimeOptions
from rho_kernel.session.stats import warm_estimates
from rho_rpc.app import add_discover, collect_methods
root = Path(sys.argv[1])
runtime = Runtime.build(RuntimeOptions(cwd=root, root=root, home=root, ephemeral=True,
                                       model="x/y", plugin_modules=(("rho-rpc", "rho_rpc.plugin"),)))
add_discover(collect_methods(runtime))
warm_estimates(runtime.session)
assert runtime.session.path_messages()[0].role == "system"
from pydantic import BaseModel
def models(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from models(sub)
built = sorted({m.__qualname__ for m in models(BaseModel)
                if m.__module__.startswith("rho") and m.__pydantic_complete__})
print(",".join([m for m in sys.argv[2:] if m in sys.modules] + built))
"""


#: A user's config as it usually is: kernel tables and a pack's, all plainly valid.
USUAL_CONFIG = """
[agent]
max_iterations = 40
tool_result_share = 0.4

[[providers]]
name = "local"
endpoint = "http://127.0.0.1:9/v1"

[shell]
timeout_secs = 60
denied_commands = ["shutdown"]

[sandbox]
network = ["pypi.org"]

[extensions]
disabled = ["old"]
"""


def test_deferred_kernel_modules_stay_off_the_startup_path(tmp_path: Path) -> None:
    (tmp_path / ".rho").mkdir()
    (tmp_path / ".rho" / "config.toml").write_text(USUAL_CONFIG)
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path), *DEFERRED],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_the_deferred_rules_still_redact_once_loaded() -> None:
    probe = (
        "import sys\n"
        "from rho_kernel.security.key_blocks import KeyBlockLines\n"
        "from rho_kernel.security.redaction import Redactor\n"
        "assert 'rho_kernel.security.redaction_rules' not in sys.modules\n"
        "redactor = Redactor()\n"
        "stream = redactor.stream()\n"
        "shown = stream.feed('-----BEGIN RSA PRIVATE KEY-----\\nMIIE\\n') + stream.flush()\n"
        "blocks = KeyBlockLines.of('a\\n-----BEGIN EC PRIVATE KEY-----\\nx\\n')\n"
        "print(redactor.redact('key sk-ant-' + 'a1' * 12), repr(shown), blocks.ranges)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split(" ", 2) == ["key", "[REDACTED]", "'[REDACTED]' ((2, 4),)\n"]
