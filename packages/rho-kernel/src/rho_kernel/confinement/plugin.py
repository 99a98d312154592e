"""The built-in confinement backends (`rho.confinement`): bubblewrap and Seatbelt."""

from __future__ import annotations

from rho_kernel.confinement.backend import ConfinementBackend
from rho_kernel.confinement.bubblewrap import Bubblewrap
from rho_kernel.confinement.seatbelt import Seatbelt
from rho_kernel.plugins import hookimpl


@hookimpl(trylast=True)
def rho_register_confinement_backends() -> list[ConfinementBackend]:
    """bubblewrap on Linux, Seatbelt on macOS (each says which platform it is for)."""
    return [Bubblewrap(), Seatbelt()]
