"""What a confined process may do, as one policy object every backend renders.

The policy speaks only of paths and the network; a backend (bubblewrap, Seatbelt, a
plugin's container runtime) turns it into its own mechanism. Every path is absolute and
canonical (symbolic links resolved), so a backend never has to resolve one itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rho_kernel.security.repositories import Repositories, find_repositories

#: Home-directory entries that hold credentials: never readable inside the sandbox.
DEFAULT_HOME_READ_DENY: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".azure",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/rho",
    ".rho",
    ".gnupg",
    ".password-store",
    ".local/share/keyrings",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    "Library/Keychains",
)
#: Sockets that hand out more than the sandbox allows (a container daemon is root on the
#: host; the user's runtime directory holds the ssh, gpg and D-Bus agents).
DEFAULT_SYSTEM_READ_DENY: tuple[str, ...] = (
    "/var/run/docker.sock",
    "/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
)
#: Names that stay read-only at any depth of the project: repository internals (hooks run
#: outside the sandbox) and rho's own project settings (see `find_repositories`).
READ_ONLY_NAMES: tuple[str, ...] = (".git", ".rho")


@dataclass(frozen=True, slots=True)
class ConfinementPolicy:
    """The rules for one confined process.

    `root` (the project) and `writable` are writable; everything else is read-only;
    `read_only` paths inside them stay read-only; `read_deny` paths can be neither read nor
    written. `network` is False (none), True (all), or the hosts that may be reached (a
    backend that cannot limit by host treats a list as False). `private_tmp` gives the
    process its own empty `/tmp`. `environment` is set for the command inside the sandbox
    (a backend that cannot do that leaves `sets_environment` False: rho then has `env` do
    it inside).
    """

    root: Path
    writable: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    read_deny: tuple[Path, ...] = ()
    network: bool | tuple[str, ...] = False
    private_tmp: bool = True
    #: Variables to set for the command inside the sandbox only, never for the backend's
    #: own launcher: the dynamic loader's (see `rho_kernel.confinement.environment`).
    environment: tuple[tuple[str, str], ...] = ()

    @property
    def network_allowed(self) -> bool:
        """Whether any network access is granted."""
        return bool(self.network)


def canonical(path: str | os.PathLike[str], *, base: Path, home: Path) -> Path:
    """`path` made absolute and canonical: `~` is `home`, a relative path is under `base`."""
    text = os.fspath(path)
    if text == "~" or text.startswith("~/"):
        text = str(home) + text[1:]
    candidate = Path(text)
    if not candidate.is_absolute():
        candidate = base / candidate
    return Path(os.path.realpath(candidate))


def account_homes(home: Path) -> list[Path]:
    """`home` and, when it differs, the account's home from the password database (a
    changed `$HOME` must not expose the real one)."""
    homes = [Path(os.path.realpath(home))]
    try:
        import pwd  # not on Windows

        real = Path(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))
    except (ImportError, KeyError, OSError):
        return homes
    return homes if real in homes else [*homes, real]


def _runtime_dirs() -> list[str]:
    """The user's runtime directory and the ssh agent's socket directory."""
    found = [os.environ.get("XDG_RUNTIME_DIR", "")]
    if hasattr(os, "getuid"):
        found.append(f"/run/user/{os.getuid()}")
    agent = os.environ.get("SSH_AUTH_SOCK", "")
    if agent:
        found.append(os.path.dirname(agent))
    return [entry for entry in found if entry]


def _contains(outer: Path, inner: Path) -> bool:
    return inner == outer or outer in inner.parents


def build_policy(
    root: Path,
    *,
    home: Path,
    writable: Iterable[str] = (),
    extra_read_deny: Iterable[str] = (),
    network: bool | Sequence[str] = False,
    repositories: Repositories | None = None,
) -> ConfinementPolicy:
    """The policy for commands of the project at `root`.

    `writable` (already granted) and `extra_read_deny` are config entries: `~/…`, absolute,
    or relative to the project root. A deny entry that would hide the project itself is
    left out (the project stays usable); deny entries win over writable ones. Every `.git`
    and `.rho` in the project, and the git directories they point to, stay read-only
    (`repositories`: a walk of the project just made; by default one is made here).
    """
    root = Path(os.path.realpath(root))
    if repositories is None or repositories.root != root:
        repositories = find_repositories(root)
    homes = account_homes(home)
    denied = [canonical(name, base=h, home=h) for h in homes for name in DEFAULT_HOME_READ_DENY]
    denied += [Path(os.path.realpath(p)) for p in (*DEFAULT_SYSTEM_READ_DENY, *_runtime_dirs())]
    denied += [canonical(entry, base=root, home=homes[0]) for entry in extra_read_deny]
    denied = [path for path in dict.fromkeys(denied) if not _contains(path, root)]
    extra = [canonical(entry, base=root, home=homes[0]) for entry in writable]
    places = [root, *extra]
    return ConfinementPolicy(
        root=root,
        writable=tuple(dict.fromkeys(p for p in extra if p != root)),
        # Only what lies where commands may write: a `.git` linking to `/proc` or `/` adds
        # nothing (and must not make a backend mount either again).
        read_only=tuple(
            path
            for path in repositories.read_only
            if any(
                _contains(place, path) or _contains(place, Path(os.path.realpath(path)))
                for place in places
            )
        ),
        read_deny=tuple(denied),
        network=network if isinstance(network, bool) else tuple(network),
    )


__all__ = [
    "DEFAULT_HOME_READ_DENY",
    "DEFAULT_SYSTEM_READ_DENY",
    "READ_ONLY_NAMES",
    "ConfinementPolicy",
    "account_homes",
    "build_policy",
    "canonical",
]
