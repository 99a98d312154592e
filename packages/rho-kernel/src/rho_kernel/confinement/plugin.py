"""The built-in confinement backends (`rho.confinement`): bubblewrap, Landlock and Seatbelt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.plugins import hookimpl

if TYPE_CHECKING:
    from rho_kernel.confinement.backend import ConfinementBackend


@hookimpl(trylast=True)
def rho_register_confinement_backends() -> list[ConfinementBackend]:
    """bubblewrap, then Landlock (where bubblewrap is missing or cannot start) on Linux,
    Seatbelt on macOS (each says which platform it is for)."""
    # Imported here: the hook is called when the sandbox is first needed, not at start-up.
    from rho_kernel.confinement.bubblewrap import Bubblewrap
    from rho_kernel.confinement.landlock import Landlock
    from rho_kernel.confinement.seatbelt import Seatbelt

    return [Bubblewrap(), Landlock(), Seatbelt()]
