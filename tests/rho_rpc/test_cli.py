"""The command line's checks that need no runtime."""

from __future__ import annotations

from rho_kernel.frontend import AgentConfig
from rho_rpc.cli import FLAG_MINIMUMS


def test_flag_minimums_are_the_config_schemas_bounds() -> None:
    for field, minimum in FLAG_MINIMUMS.items():
        bounds = [getattr(c, "ge", None) for c in AgentConfig.model_fields[field].metadata]
        assert minimum in bounds, (field, bounds)
