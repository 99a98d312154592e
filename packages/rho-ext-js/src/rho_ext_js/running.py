"""The extension manager of a runtime, made only when there are extensions to run.

`rho_startup` makes the manager (and starts loading) when an extension folder holds
anything; in a project and home without any it only marks the runtime as started, and the manager is made
on the first request that needs one (`reloadExtensions` then finds extensions added since).
Either way the manager lives in `runtime.stash` under `MANAGER`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel import StashKey

if TYPE_CHECKING:
    from rho_ext_js.manager import ExtensionManager
    from rho_kernel import Runtime

#: The stash key of the runtime's `ExtensionManager`.
MANAGER: StashKey[ExtensionManager] = StashKey("rho-ext-js manager")
#: The stash key saying that `rho_startup` ran, so a manager may be made on demand.
STARTED: StashKey[bool] = StashKey("rho-ext-js started")


def current_manager(runtime: Runtime) -> ExtensionManager | None:
    """The runtime's manager if one was made (None: no extension has been looked at)."""
    return runtime.stash.get(MANAGER)


def manager_of(runtime: Runtime) -> ExtensionManager | None:
    """The runtime's manager, made now if extensions were started without one; None when
    extensions were never started in this runtime."""
    manager = current_manager(runtime)
    if manager is None and runtime.stash.get(STARTED):
        from rho_ext_js.manager import ExtensionManager

        manager = ExtensionManager(runtime, home=runtime.options.home)
        runtime.stash[MANAGER] = manager
    return manager


def start(runtime: Runtime) -> None:
    """Mark extensions as started; with any discovered, make the manager and load them in
    the background (work the first prompt and `listTools` wait for)."""
    from rho_ext_js.folders import any_entries

    runtime.stash[STARTED] = True
    if not any_entries(runtime.root.path, runtime.options.home):
        return  # nothing to discover: the manager is made if a request needs it
    manager = manager_of(runtime)
    assert manager is not None
    runtime.start_work(manager.reload(), "loading extensions")


__all__ = ["MANAGER", "STARTED", "current_manager", "manager_of", "start"]
