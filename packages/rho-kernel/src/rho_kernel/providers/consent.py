"""The consent gate: rho does not send a prompt off this machine unless the user said so."""

from __future__ import annotations

from collections.abc import Sequence

from rho_kernel.providers.resolve import ResolvedProvider


class ConsentRequired(Exception):
    """External providers are configured and the user has not consented (exit before `ready`)."""


def consent_message(providers: Sequence[ResolvedProvider]) -> str | None:
    """The refusal text when any provider is external, else None.

    The "No local model server detected" header is left out when a local provider is
    configured alongside the external ones.
    """
    external = [p for p in providers if not p.is_local]
    if not external:
        return None
    lines: list[str] = []
    if not any(p.is_local for p in providers):
        lines.append("  ⚠  No local model server detected")
    lines.append("  ⚠  External provider(s) configured:")
    lines.extend(f"      - {p.name} ({p.shown_endpoint})" for p in external)
    lines += [
        "",
        "      Your prompts and code will be sent to external servers.",
        "      This may expose proprietary code, secrets, or other",
        "      sensitive data to the providers and any intermediaries.",
        "",
        "  Aborting. Use --accept-external-provider to skip this prompt.",
    ]
    return "\n".join(lines)


__all__ = ["ConsentRequired", "consent_message"]
