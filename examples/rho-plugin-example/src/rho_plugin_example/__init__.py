"""An example rho plugin: a word counter, a scratchpad, a tool-call tally and e-mail masking.

rho loads it through the entry point `rho-plugin-example` (group `rho`), which names
`rho_plugin_example.plugin`, the module holding the hook implementations.
"""

from __future__ import annotations

from rho_plugin_example.masking import mask_emails
from rho_plugin_example.tally import CallTally
from rho_plugin_example.tools import Scratchpad, word_count

__version__ = "0.1.0"

__all__ = ["CallTally", "Scratchpad", "__version__", "mask_emails", "word_count"]
