"""Context management: the token budget, the estimator, bounded tool results, outlines, and
the fitting of each request into the budget, in steps that keep a prompt cache's prefix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rho_kernel.lazy import exports_of, lazy_exports

if TYPE_CHECKING:
    from rho_kernel.context.bounding import (
        BatchAllowance,
        Bounded,
        bound_ends,
        bound_text,
        footer,
        shown,
    )
    from rho_kernel.context.budget import DEFAULT_CONTEXT_WINDOW, TokenBudget, resolve_budget
    from rho_kernel.context.estimator import TokenEstimator, family_ratio, message_bytes, utf8_len
    from rho_kernel.context.fitting import ContextFitter, ContextOverflow, FitResult, omitted_note
    from rho_kernel.context.outlines import (
        OUTLINE,
        SUMMARY,
        clip,
        downgrade,
        generic_outline,
        shrink_arguments,
        tool_outline,
    )
    from rho_kernel.context.steps import LOW_WATER, STEP_REASONS, FitStep

_ORIGIN = exports_of(
    {
        "rho_kernel.context.bounding": (
            "BatchAllowance",
            "Bounded",
            "bound_ends",
            "bound_text",
            "footer",
            "shown",
        ),
        "rho_kernel.context.budget": ("DEFAULT_CONTEXT_WINDOW", "TokenBudget", "resolve_budget"),
        "rho_kernel.context.estimator": (
            "TokenEstimator",
            "family_ratio",
            "message_bytes",
            "utf8_len",
        ),
        "rho_kernel.context.fitting": (
            "ContextFitter",
            "ContextOverflow",
            "FitResult",
            "omitted_note",
        ),
        "rho_kernel.context.outlines": (
            "OUTLINE",
            "SUMMARY",
            "clip",
            "downgrade",
            "generic_outline",
            "shrink_arguments",
            "tool_outline",
        ),
        "rho_kernel.context.steps": ("LOW_WATER", "STEP_REASONS", "FitStep"),
    }
)
if not TYPE_CHECKING:  # hidden from type checkers: an unknown name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _ORIGIN)

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "LOW_WATER",
    "OUTLINE",
    "STEP_REASONS",
    "SUMMARY",
    "BatchAllowance",
    "Bounded",
    "ContextFitter",
    "ContextOverflow",
    "FitResult",
    "FitStep",
    "TokenBudget",
    "TokenEstimator",
    "bound_ends",
    "bound_text",
    "clip",
    "downgrade",
    "family_ratio",
    "footer",
    "generic_outline",
    "message_bytes",
    "omitted_note",
    "resolve_budget",
    "shown",
    "shrink_arguments",
    "tool_outline",
    "utf8_len",
]
