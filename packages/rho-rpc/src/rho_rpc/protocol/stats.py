"""`getSessionStats`: context usage estimates and API usage."""

from __future__ import annotations

from pydantic import Field

from rho_rpc.protocol.base import Result, Wire


class RoleTokens(Wire):
    """Estimated tokens per message role."""

    system: int
    user: int
    assistant: int
    tool: int


class ResolutionTokens(Wire):
    """Estimated tokens per entry resolution."""

    full: int
    outlined: int
    summarized: int
    pinned: int


class PhaseTokens(Wire):
    """Estimated tokens per phase of work."""

    exploration: int
    execution: int
    verification: int
    conclusion: int
    unclassified: int


class ApiUsageTotals(Wire):
    """What this rho process spent on model requests (LLM compactions' included), and the
    part of it spent on LLM compactions."""

    totalInputTokens: int
    totalOutputTokens: int
    totalCachedTokens: int
    totalTokens: int
    totalCost: float
    requestCount: int
    compactionInputTokens: int = Field(description="Input tokens of LLM compaction requests.")
    compactionOutputTokens: int = Field(description="Output tokens of LLM compaction requests.")
    compactionCost: float = Field(description="Cost of LLM compaction requests.")
    compactionRequestCount: int = Field(description="LLM compaction requests made.")


class FittedView(Wire):
    """The current path as the model receives it: fitted into the prompt budget."""

    estimatedTokens: int = Field(
        description="Estimated tokens of its messages and the tool definitions (at the "
        "model's calibrated bytes per token)."
    )
    promptBudget: int = Field(description="Context window minus completion reserve.")
    utilizationPercent: float = Field(description="estimatedTokens as a share of promptBudget.")
    messageCount: int = Field(description="Messages it holds.")
    outlined: int = Field(description="Session entries it shows as an outline.")
    summarized: int = Field(description="Session entries it shows as a summary.")
    evicted: int = Field(description="Session messages it leaves out.")


class CacheHitRate(Wire):
    """Input tokens of some model requests, and the part the provider read from its prompt
    cache (as it reports them: `prompt_tokens_details.cached_tokens`)."""

    cachedTokens: int = Field(
        description="Input tokens the provider read from its prompt cache (a request counts at "
        "most its input tokens)."
    )
    inputTokens: int = Field(description="Input tokens the provider counted.")
    requestCount: int = Field(description="Model requests counted.")
    hitRatePercent: float | None = Field(
        description="cachedTokens as a share of inputTokens, 0–100, rounded down to one "
        "decimal (100 only when every input token was cached); null while the provider "
        "reported no input tokens."
    )


class CacheStats(Wire):
    """The prompt cache's hit rate: cached ÷ input tokens, as the provider reports them."""

    session: CacheHitRate = Field(
        description="The model requests this rho process made in the current session (LLM "
        "compactions' included); a session this process only resumed has none yet (providers' "
        "usage is not kept in the session file)."
    )
    lastTurn: CacheHitRate | None = Field(
        description="The model requests of the last turn that made one (the running turn "
        "while a prompt runs); null before any."
    )


class GetSessionStatsResult(Result):
    """`getSessionStats` result: context usage estimates and API usage.

    The top-level estimates measure the session's raw path (every entry of it, at its
    resolution); `fitted` is what the model receives of it."""

    contextWindow: int
    completionReserve: int
    estimatedUsed: int = Field(
        description="Estimated tokens of the raw path's messages and the tool definitions."
    )
    estimatedRemaining: int
    utilizationPercent: float = Field(
        description="estimatedUsed (the raw path) as a share of the prompt budget."
    )
    messageCount: int
    entryCount: int
    pathEntryCount: int
    compactedEntryCount: int = Field(
        description="Entries of the current path folded into a compaction."
    )
    compactionTokens: int = Field(
        description="Estimated tokens of the compaction and branch summaries on the path."
    )
    compactionCount: int = Field(description="Compaction entries on the current path.")
    toolSchemaTokens: int = Field(
        description="Estimated tokens of the tool definitions sent with every request "
        "(included in estimatedUsed)."
    )
    roleTokens: RoleTokens
    resolutionTokens: ResolutionTokens
    phaseTokens: PhaseTokens
    apiUsage: ApiUsageTotals
    fitted: FittedView | None = Field(
        description="The path as the model receives it (fitted into the prompt budget, as the "
        "next request would be); null when even its parts that are never shortened do not fit."
    )
    cache: CacheStats = Field(
        description="The prompt cache's hit rate, for the session and for its last turn."
    )


__all__ = [
    "ApiUsageTotals",
    "CacheHitRate",
    "CacheStats",
    "FittedView",
    "GetSessionStatsResult",
    "PhaseTokens",
    "ResolutionTokens",
    "RoleTokens",
]
