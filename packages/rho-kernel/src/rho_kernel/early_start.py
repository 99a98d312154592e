"""What a start can tell before its runtime loads: the project root, the provider and the
model it gets, and the file of its new session.

A front end announces itself with these (rho's JSON-RPC server sends `ready` with them) and
builds the `Runtime` afterwards, while the client already writes its first requests. They
are read from the command line and the config files as they are, without validating the
config (no pydantic, no plugins): `early_start` answers only where the whole load is sure to
give the same values, and None wherever it might not —

- a config file that cannot be read or parsed, or a value the start needs of another type
  than the schema's (the load reports it, before the front end announces anything);
- provider settings in the project's file (`[[providers]]`, `[provider]`, `[agent]
  provider`): whether they apply depends on the project's trust;
- a provider `api` or an `[agent] compaction_mode` that none of the kernel's own plugins
  provides (whether an installed plugin does is known once the plugins load);
- a provider that needs the user's consent or whose endpoint cannot work (the load refuses
  to start);
- no model named and a local provider (the load asks that server which model it has loaded);
- a resumed session (`--continue`, `--session`: the load finds and opens it).

With None, the front end loads first and announces after, as it always did. The runtime
built afterwards must be given `new_session` (`RuntimeOptions.new_session`), so that its
session is the file announced. Imports nothing that loading the runtime needs later anyway
besides the standard library (paths, hashing, TOML).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rho_kernel.home import state_dir, user_home
from rho_kernel.project import ProjectRootError, find_project_root
from rho_kernel.providers.urls import endpoint_problem, is_local_endpoint
from rho_kernel.security.regular_file import read_optional
from rho_kernel.security.state_fence import StateFence
from rho_kernel.tomlparse import TomlError, parse_toml

# What `rho_kernel.providers.resolve` decides from a validated config, on the raw tables
# (that module builds on the config schema, i.e. pydantic); tests hold the two to the same
# answers (tests/rho_kernel/test_early_start.py).
DEFAULT_ENDPOINT = "http://localhost:1234/v1/chat/completions"
DEFAULT_MODEL = "anthropic/claude-sonnet-4"
MODEL_ENV = "RHO_MODEL"
#: Each preset's provider name and endpoint (`resolve.PRESETS`).
PRESET_PLACES: dict[str, tuple[str, str]] = {
    "lm-studio": ("lm-studio", "http://localhost:1234/v1/chat/completions"),
    "ollama": ("ollama", "http://localhost:11434/v1/chat/completions"),
    "openrouter": ("openrouter", "https://openrouter.ai/api/v1/chat/completions"),
    "openai": ("openai", "https://api.openai.com/v1/responses"),
    "groq": ("groq", "https://api.groq.com/openai/v1/chat/completions"),
    "zai": ("zai", "https://api.z.ai/api/paas/v4/chat/completions"),
    "zai-coding": ("zai", "https://api.z.ai/api/coding/paas/v4/chat/completions"),
}

#: The largest config file read (as the loader's `MAX_CONFIG_BYTES`: a larger one is left
#: to the loader, which names it).
_MAX_CONFIG_BYTES = 1024 * 1024
#: The project's config file, relative to its root.
_PROJECT_CONFIG = ".rho/config.toml"
#: What a project's file may set only once trusted, among what the start reads.
_TRUSTED_KEYS = ("providers", "provider")
#: The provider protocols and compaction strategies of the kernel's own plugins.
_KERNEL_APIS = ("chat_completions", "responses")
_KERNEL_COMPACTIONS = ("mechanical", "llm")


class _Unsure(Exception):
    """Only the whole load can tell."""


class EarlyStart:
    """What a start announces before its runtime loads: the canonical project `root`, the
    active `provider`'s name, the `model` its first prompt uses, and its new session's
    file (`session_path`, None when the session is kept in memory), created at
    `new_session[0]` with the id `new_session[1]`."""

    __slots__ = ("model", "new_session", "provider", "root", "session_path")

    def __init__(
        self,
        root: Path,
        provider: str,
        model: str,
        session_path: Path | None,
        new_session: tuple[int, str] | None,
    ) -> None:
        self.root = root
        self.provider = provider
        self.model = model
        self.session_path = session_path
        self.new_session = new_session


def early_start(
    *,
    cwd: Path,
    root: Path | None = None,
    home: Path | None = None,
    model: str | None = None,
    endpoint: str | None = None,
    accept_external_provider: bool = False,
    ephemeral: bool = False,
    resumes: bool = False,
) -> EarlyStart | None:
    """What a start with these options announces (see the module), or None when only the
    whole load can tell. `resumes`: the start resumes a saved session."""
    if resumes:
        return None
    try:
        project = _root(cwd, root, home)
        user, own = _tables(project, home)
        provider, configured = _provider(user, endpoint)
        consented = endpoint is not None or accept_external_provider
        if not consented and any(not is_local_endpoint(p[1]) for p in [provider, *configured]):
            raise _Unsure("consent")
        chosen = _named_model(user, own, model, provider, configured)
    except _Unsure:
        return None
    if chosen is None:
        if is_local_endpoint(provider[1]):
            return None  # the load asks the local server
        chosen = DEFAULT_MODEL
    path, identity = (None, None) if ephemeral else _new_session(project, home)
    return EarlyStart(project, provider[0], chosen, path, identity)


def _root(cwd: Path, root: Path | None, home: Path | None) -> Path:
    """The canonical project root, as the load finds it."""
    try:
        if root is not None:
            found = Path(os.path.realpath(root, strict=True))
        else:
            found = find_project_root(cwd, home=home)
    except (OSError, RuntimeError, ProjectRootError):
        raise _Unsure("root") from None
    if not found.is_dir() or StateFence(state_dir(home)).encloses(found):
        raise _Unsure("root")
    return found


def _read(path: Path) -> dict[str, Any]:
    try:
        data = read_optional(path, limit=_MAX_CONFIG_BYTES)
        if data is None:
            return {}
        return parse_toml(data.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, TomlError):
        raise _Unsure("config") from None


def _tables(root: Path, home: Path | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The user's config table and the project's (empty when there is none, or when it is
    the user's own file); provider settings in the project's make the start unsure."""
    user_path = user_home(home) / ".rho" / "config.toml"
    project_path = root / _PROJECT_CONFIG
    user = _read(user_path)
    try:
        same = project_path.exists() and os.path.samefile(user_path, project_path)
    except OSError:
        same = False
    project = {} if same else _read(project_path)
    agent = _table(project, "agent")
    if any(key in project for key in _TRUSTED_KEYS) or "provider" in agent:
        raise _Unsure("trust")
    for table in (_table(user, "agent"), agent):
        if table.get("compaction_mode", _KERNEL_COMPACTIONS[0]) not in _KERNEL_COMPACTIONS:
            raise _Unsure("compaction_mode")
    return user, project


def _table(table: dict[str, Any], key: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise _Unsure(key)
    return value


def _text(table: dict[str, Any], key: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise _Unsure(key)
    return value


#: A resolved provider: (name, endpoint, default model).
_Provider = tuple[str, str, str | None]


def _entries(user: dict[str, Any]) -> list[_Provider]:
    """The configured providers (`[[providers]]`, else the legacy `[provider]`), resolved."""
    entries = user.get("providers", [])
    if not isinstance(entries, list):
        raise _Unsure("providers")
    if not entries and "provider" in user:
        entries = [_table(user, "provider")]
    resolved = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _Unsure("providers")
        if entry.get("api", _KERNEL_APIS[0]) not in _KERNEL_APIS:
            raise _Unsure("api")
        name, endpoint = _entry_place(
            _text(entry, "name"),
            _text(entry, "preset"),
            _text(entry, "type"),
            _text(entry, "endpoint"),
            index,
        )
        resolved.append((name, endpoint, _text(entry, "default_model")))
    return resolved


def _provider(user: dict[str, Any], endpoint: str | None) -> tuple[_Provider, list[_Provider]]:
    """The active provider (`--endpoint`, else `[agent] provider`, else the first configured,
    else rho's default), and every configured one (a project's provider settings made the
    start unsure already)."""
    configured = _entries(user)
    wanted = _text(_table(user, "agent"), "provider")
    if endpoint:
        return (urlsplit(endpoint).hostname or "endpoint", endpoint, None), configured
    if wanted:
        chosen = next((p for p in configured if p[0] == wanted), None)
        if chosen is None:
            raise _Unsure("provider")  # the load names what is configured
    elif configured:
        chosen = configured[0]
    else:
        chosen = ("local", DEFAULT_ENDPOINT, None)
    if endpoint_problem(chosen[1]) is not None:
        raise _Unsure("endpoint")
    return chosen, configured


def _named_model(
    user: dict[str, Any],
    project: dict[str, Any],
    flag: str | None,
    provider: _Provider,
    configured: list[_Provider],
) -> str | None:
    """The model named anywhere, as `rho_kernel.providers.resolve.named_model` finds it:
    `--model`, `[agent] model` (the project's over the user's), the active provider's
    default, the first configured default, `RHO_MODEL`."""
    if flag:
        return flag
    project_agent = _table(project, "agent")
    agent = project_agent if "model" in project_agent else _table(user, "agent")
    named = _text(agent, "model") or provider[2]
    if named:
        return named
    for other in configured:
        if other[2]:
            return other[2]
    return os.environ.get(MODEL_ENV) or None


def _entry_place(
    name: str | None, preset: str | None, kind: str | None, endpoint: str | None, index: int
) -> tuple[str, str]:
    """A provider entry's name and endpoint, as `resolve.resolve_entry` makes them."""
    known = PRESET_PLACES.get(preset) if preset else None
    where = endpoint or (known[1] if known else None) or DEFAULT_ENDPOINT
    called = (
        name
        or (known[0] if known else None)
        or kind
        or urlsplit(where).hostname
        or f"provider-{index}"
    )
    return called, where


def _new_session(root: Path, home: Path | None) -> tuple[Path, tuple[int, str]]:
    """The file of a new session of `root` (not created) and its creation time and id."""
    canonical = os.fsencode(str(root))
    directory = state_dir(home) / "sessions" / hashlib.sha256(canonical).hexdigest()[:16]
    created_at = int(time.time())
    while True:
        session_id = os.urandom(4).hex()
        path = directory / f"{created_at}_{session_id}.jsonl"
        if not os.path.lexists(path):
            return path, (created_at, session_id)


__all__ = ["EarlyStart", "early_start"]
