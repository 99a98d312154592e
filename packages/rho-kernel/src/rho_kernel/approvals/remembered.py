"""Rules remembered from approvals: the session's (an entry in the session, so that a
resumed session keeps them) and the project's (`rho_kernel.approvals.project_store`).

A call a rule approves is recorded in the session too (the loop appends a
`rho.approved_by.v1` entry naming the call, the rule and where it came from).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rho_kernel.approvals.rules import parse_rule
from rho_kernel.approvals.ruleset import SourcedRule

if TYPE_CHECKING:
    from rho_kernel.approvals.suggest import RuleScope, SuggestedRule
    from rho_kernel.session.store import Session

#: The session entry holding the session's rules (the latest one counts).
SESSION_RULES_KIND = "rho.approval_rules.v1"
#: The session entry recording a call a rule approved.
APPROVED_BY_KIND = "rho.approved_by.v1"


class RememberedRules:
    """The remembered rules of the current session (`session()`) and of the project at
    `root`, for `home`'s user."""

    def __init__(self, session: Callable[[], Session], root: Path, home: Path | None) -> None:
        self._session = session
        self._root = root
        self._home = home
        self._project: list[str] | None = None
        #: The session's rules by session id: read when the session changes (a resumed or
        #: new session), kept up to date by `remember` and `revoke`, which alone write them.
        self._cached: tuple[str, list[str]] | None = None

    def rules(self) -> list[SourcedRule]:
        """The session's rules, then the project's (a stored rule that no longer reads as
        one is left out)."""
        pairs = [(text, "session") for text in self.session_rules()]
        pairs += [(text, "project") for text in self.project_rules()]
        found = []
        for text, source in pairs:
            try:
                found.append(SourcedRule(parse_rule(text), source))
            except ValueError:
                continue
        return found

    def session_rules(self) -> list[str]:
        """The rules remembered in the current session (the latest record of them, on any
        branch: going back in the conversation does not forget an approval). A session file
        outside rho's own state directory (`--session` naming a file from elsewhere, a
        repository's, say) was not written by this user's approvals: its rules are not
        applied, and that is said once."""
        session = self._session()
        if self._cached is None or self._cached[0] != session.id:
            rules = _latest_rules(session)
            if rules and not self._own(session):
                from rho_kernel.diagnostics import warn

                warn(
                    f"{session.path}: its {len(rules)} remembered approval rule(s) are not "
                    "applied: the session file is not in rho's state directory"
                )
                rules = []
            self._cached = (session.id, rules)
        return list(self._cached[1])

    def _own(self, session: Session) -> bool:
        """Whether `session` lives in memory or in this user's state directory."""
        if session.path is None:
            return True
        from rho_kernel.home import state_dir

        own = state_dir(self._home).resolve()
        return session.path.resolve().is_relative_to(own)

    def project_rules(self) -> list[str]:
        """The rules remembered for this project."""
        if self._project is None:
            from rho_kernel.approvals.project_store import project_rules

            self._project = project_rules(self._root, self._home)
        return list(self._project)

    def remember(self, suggested: SuggestedRule) -> None:
        """Keep `suggested.rule` where its scope says. Raises `PrivateFileError` when the
        project's store cannot be written."""
        if suggested.scope == "session":
            rules = self.session_rules()
            if suggested.rule not in rules:
                self._write_session([*rules, suggested.rule])
            return
        from rho_kernel.approvals import project_store

        project_store.remember(self._root, suggested.rule, self._home)
        self._project = None

    def revoke(self, rule: str, scope: RuleScope) -> bool:
        """Forget `rule` in `scope`; whether it was remembered there."""
        if scope == "session":
            rules = self.session_rules()
            if rule not in rules:
                return False
            self._write_session([kept for kept in rules if kept != rule])
            return True
        from rho_kernel.approvals import project_store

        found = project_store.forget(self._root, rule, self._home)
        self._project = None
        return found

    def _write_session(self, rules: list[str]) -> None:
        session = self._session()
        session.append_custom(SESSION_RULES_KIND, {"allow": rules})
        self._cached = (session.id, list(rules))


def _latest_rules(session: Session) -> list[str]:
    from rho_kernel.session.entries import CustomPayload

    for entry in reversed(list(session.entries.values())):
        payload = entry.payload
        if isinstance(payload, CustomPayload) and payload.kind == SESSION_RULES_KIND:
            data = payload.data
            rules = data.get("allow") if isinstance(data, dict) else None
            return (
                [rule for rule in rules if isinstance(rule, str)] if isinstance(rules, list) else []
            )
    return []


__all__ = ["APPROVED_BY_KIND", "SESSION_RULES_KIND", "RememberedRules"]
