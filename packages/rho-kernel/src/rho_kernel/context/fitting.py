"""Fitting: the view of a session's current path that is sent to the model.

Before every request the path is fitted into the prompt budget. While the conversation fits,
a request is the one before with what the path gained since appended: nothing sent is
rewritten, so a provider's prompt cache reuses all of it. When it no longer fits, fitting
takes a *step* (see `rho_kernel.context.steps`): it frees the conversation down to a
low-water mark, so that the next requests only append again, in this order:

1. outline entries (Full → Outlined), oldest turn first and the largest entry of a turn
   first;
2. when every candidate is outlined and it is still too large, summarize them
   (→ Summarized), in the same order;
3. when everything is summarized, leave out whole turns, oldest first, with one note in
   their place saying how many messages were left out (written once per step).

A turn is a user or system message alone, or an assistant message with the tool results
that answer it, so a tool call and its result are always sent or left out together. The
system messages, the first user message, the last user message, the last turn, pinned
entries and compaction summaries are never shortened or left out; entries a session already
shows shortened (Outlined, Summarized) keep that form. A turn that loses its protection (the
previous request, once a new one comes) is shortened like the turns around it at the next
step. When even the protected parts do not fit, fitting fails with `ContextOverflow`
instead of sending a request the provider would refuse.

The session is not changed: the plan lives in a `ContextFitter`, which keeps it between
requests and extends it with what the path gained since, so the cost of a fit grows with
what changed, not with the length of the session. It starts over when the path changed in
another way (a branch, a resolution change, a compaction), for another session, or when
the prompt budget grew by more than a tenth (a larger window). Each result says in its
`step` whether the request rewrote part of what the one before sent, and why.
"""

from __future__ import annotations

import bisect
import gc
import json
import math
from typing import TYPE_CHECKING, Any

from rho_kernel.context.outlines import OUTLINE, SUMMARY, downgrade, generic_outline, short_size
from rho_kernel.context.path_items import _CALL_HEADS, _Group, _Info, _measure
from rho_kernel.context.results import _NOTE_BYTES, ContextOverflow, FitResult, omitted_note
from rho_kernel.context.steps import BUDGET, GREW, LOW_WATER, PATH, START, StepTracker
from rho_kernel.messages import ChatMessage

if TYPE_CHECKING:
    from rho_kernel.session.entries import Entry
    from rho_kernel.session.store import Session

_BULK = 1000  # new entries beyond which the garbage collector is paused while they are added

REBUILD_GROWTH = 1.1
"""The plan starts over when the prompt budget in tokens grew beyond this factor of what it
was built for, so that a larger window lets shortened entries back. A better calibrated
estimate (more bytes a token) only leaves more room for what comes next: letting entries
back would rewrite what was sent."""


class ContextFitter:
    """Fits a session's current path into a prompt budget, request after request.

    One fitter serves one conversation at a time (it starts over for another session). Call
    `fit` before every model request; it raises `ContextOverflow` when nothing fits.
    """

    def __init__(self) -> None:
        self._cache: dict[str, _Info] = {}
        self._session_key: tuple[int, str] | None = None
        self._generation = -1
        self._built_tokens = 0
        self._steps = StepTracker()
        self._reset()

    def _reset(self) -> None:
        self._infos: list[_Info] = []
        self._levels: list[int] = []
        self._sizes: list[int] = []
        self._group_index: list[int] = []
        self._groups: list[_Group] = []
        self._total = 0
        self._first_user: int | None = None
        self._last_user: int | None = None
        self._released: list[int] = []  # turns that lost their protection since the last step
        self._keeps: list[int] = []  # turns never left out (system, pinned, summaries)
        self._p1 = [0, 0]  # outline pointer: group, position in its order
        self._p2 = [0, 0]  # summary pointer
        self._p3 = 0  # eviction pointer: groups before it are left out or kept protected
        self._kept_before: list[int] = []
        self._first_evicted: int | None = None
        self._evicted_messages = 0
        self._outlined = 0
        self._summarized = 0
        #: The wire messages of the groups from `_tail_from` (the eviction pointer when they
        #: were emitted) on, and where each group's begin.
        self._tail: list[dict[str, Any]] = []
        self._tail_offsets: list[int] = []
        self._tail_from = 0

    # ── public ──────────────────────────────────────────────────────────────

    def fit(
        self,
        session: Session,
        *,
        budget_tokens: int,
        ratio: float,
        overhead_bytes: int = 0,
        tools: list[dict[str, Any]] | None = None,
        low_water: float = LOW_WATER,
        view: bool = False,
    ) -> FitResult:
        """The fitted messages of `session`'s current path (wire form).

        `budget_tokens` is the prompt budget, `ratio` the model's bytes per token and
        `overhead_bytes` the size of what else the request carries (the definitions of
        `tools`, which the step compares with the previous request's). A step frees the
        conversation down to `low_water` of the room beside them. `view`: the result is not
        sent (a statistic): the next request still compares itself with the last one sent.
        Raises `ContextOverflow` when even the protected parts exceed the budget.
        """
        ratio = ratio if ratio > 0 else 1.0
        available = math.floor(budget_tokens * ratio) - max(0, overhead_bytes)
        reason = self._restart(session, budget_tokens)
        rebuilt = reason is not None
        new = session.path_tail(len(self._infos))
        paused = len(new) > _BULK and gc.isenabled()
        if paused:
            gc.disable()  # a bulk of new entries allocates much and makes no cycles
        try:
            self._extend(new)
            self._prune(session)
            if rebuilt:
                self._released.clear()  # a fresh plan has passed no turn while it was protected
            if self._total > available:
                target = self._low_water(available, low_water)
                if rebuilt:
                    self._fast_forward(target)
                self._catch_up_released()
                self._shrink(target)
                reason = reason or BUDGET
        finally:
            if paused:
                gc.enable()
        overhead_tokens = math.ceil(max(0, overhead_bytes) / ratio)
        needed = math.ceil((self._total + max(0, overhead_bytes)) / ratio)
        if self._total > available:
            self._steps.note(reason)
            raise ContextOverflow(needed, budget_tokens, overhead_tokens)
        messages = self._messages()
        return FitResult(
            messages=messages,
            estimated_tokens=needed,
            budget_tokens=budget_tokens,
            outlined=self._outlined,
            summarized=self._summarized,
            evicted=self._evicted_messages,
            measured=len(new),
            rebuilt=rebuilt,
            step=self._steps.compare(messages, tools, reason, key=self._session_key, view=view),
        )

    @property
    def size(self) -> int:
        """The size in bytes of the messages the last fit produced."""
        return self._total

    def _low_water(self, available: int, share: float) -> int:
        """What a step frees the conversation down to: the turns it may not shorten or leave
        out (the first and the latest request's, the latest turn, those holding a system
        message, a pinned entry or a summary) as they stand, and `share` of the room they
        leave."""
        groups = self._groups
        protected = {self._first_user, self._last_user, len(groups) - 1, *self._keeps}
        fixed = sum(groups[g].size for g in protected if g is not None and 0 <= g < len(groups))
        share = min(1.0, max(0.0, share))
        return min(available, fixed + math.floor(max(0, available - fixed) * share))

    def _restart(self, session: Session, budget_tokens: int) -> str | None:
        """Start the plan over when it no longer holds for `session`; why (None: it holds)."""
        key = (id(session), session.id)
        if key != self._session_key:
            reason: str | None = START
        elif session.path_generation != self._generation or session.path_length() < len(
            self._infos
        ):
            reason = PATH
        elif budget_tokens > self._built_tokens * REBUILD_GROWTH:
            reason = GREW
        else:
            self._built_tokens = min(self._built_tokens, budget_tokens)
            return None
        self._reset()
        self._session_key, self._generation = key, session.path_generation
        self._built_tokens = budget_tokens
        return reason

    # ── adding path entries ─────────────────────────────────────────────────

    def _prune(self, session: Session) -> None:
        if len(self._cache) > 2 * session.entry_count + 256:
            entries = session.entries
            self._cache = {k: v for k, v in self._cache.items() if entries.get(k) is v.entry}

    def _extend(self, entries: list[Entry]) -> None:
        """Add path entries (in order) to the plan, each as part of a turn."""
        cache, infos, levels, sizes = self._cache, self._infos, self._levels, self._sizes
        group_index, groups = self._group_index, self._groups
        current = groups[-1] if groups else None
        for entry in entries:
            info = cache.get(entry.id)
            if info is None or info.entry is not entry:
                info = cache[entry.id] = _measure(entry)
            index = len(infos)
            infos.append(info)
            levels.append(0)
            size = info.size
            sizes.append(size)
            message = info.message
            if current is not None and (
                message is None or (message.role == "tool" and current.head in _CALL_HEADS)
            ):
                current.end = index + 1
                if current.head is None and message is not None:
                    current.head = message.role
            else:
                role = message.role if message is not None else None
                current = _Group(index, index + 1, role)
                groups.append(current)
                if role == "user":
                    self._user_group(len(groups) - 1)
            group_index.append(len(groups) - 1)
            current.size += size
            if info.keeps_group and not current.keep:
                current.keep = True
                self._keeps.append(len(groups) - 1)
            self._total += size

    def _user_group(self, group: int) -> None:
        if self._first_user is None:
            self._first_user = group
        released, self._last_user = self._last_user, group
        if released is not None and not self._protected(released):
            self._released.append(released)  # shortened at the next step, not now

    def _catch_up_released(self) -> None:
        """Bring the turns that lost their protection since the last step to the level of
        the turns around them (a step rewrites from its first change anyway)."""
        released, self._released = self._released, []
        for group in released:
            if not self._protected(group):
                self._catch_up(group)

    def _protected(self, group: int) -> bool:
        return group in (self._first_user, self._last_user) or group == len(self._groups) - 1

    def _catch_up(self, group: int) -> None:
        """Bring a turn that just lost its protection to the level of the turns around it."""
        if group < self._p1[0]:
            for index in self._order(group):
                self._set_level(index, OUTLINE)
        if group < self._p2[0]:
            for index in self._order(group):
                self._set_level(index, SUMMARY)
        if group < self._p3 and not self._groups[group].keep:
            self._kept_before.remove(group)
            self._evict(group)

    # ── shrinking ───────────────────────────────────────────────────────────

    def _order(self, group: int) -> list[int]:
        turn = self._groups[group]
        if turn.order is None:
            infos = self._infos
            candidates = [i for i in range(turn.start, turn.end) if not infos[i].fixed]
            candidates.sort(key=lambda i: -infos[i].size)
            turn.order = candidates
        return turn.order

    def _shrink(self, target: int) -> bool:
        """Shorten and leave out until the total fits `target` bytes; False if it cannot."""
        last = len(self._groups) - 1
        while self._total > target:
            if self._step(self._p1, last, OUTLINE):
                continue
            if self._p1[0] >= last and self._step(self._p2, self._p1[0], SUMMARY):
                continue
            if self._p1[0] >= last and self._p2[0] >= last and self._p3 < last:
                group = self._p3
                self._p3 += 1
                if self._protected(group) or self._groups[group].keep:
                    self._kept_before.append(group)
                else:
                    self._evict(group)
                continue
            return False
        return True

    def _fast_forward(self, target: int) -> None:
        """On a fresh plan that will have to leave turns out, reach the plan's end state
        directly: find from the newest turn back which turns fit at their smallest, shorten
        those to it and leave the older ones out, without shortening what is left out (the
        `target` of a step in bytes)."""
        last = len(self._groups) - 1
        if self._total <= target or last < 1:
            return
        groups = self._groups
        room = target - _NOTE_BYTES
        for group in range(last + 1):
            if self._protected(group) or groups[group].keep:
                room -= self._smallest(group)
        cut = None
        for group in range(last - 1, -1, -1):
            if self._protected(group) or groups[group].keep:
                continue
            room -= self._smallest(group)
            if room < 0:
                cut = group
                break
        if cut is None or not self._must_leave_out(cut, -room):
            return  # everything fits at its smallest: the ordinary plan leaves nothing out
        for group in range(last):
            turn = groups[group]
            if self._protected(group):
                if group <= cut:
                    self._kept_before.append(group)
                continue
            if group <= cut and not turn.keep:
                self._evict(group)
                continue
            for index in self._order(group):
                self._set_level(index, OUTLINE)
                self._set_level(index, SUMMARY)
            if group <= cut:
                self._kept_before.append(group)
        self._p1 = [last, 0]
        self._p2 = [last, 0]
        self._p3 = cut + 1

    def _must_leave_out(self, cut: int, excess: int) -> bool:
        """Whether, with the turns from `cut` on at their smallest `excess` bytes over the
        room left beside the note, some turn must be left out: it need not when all turns
        at their smallest fit without the note."""
        for group in range(cut - 1, -1, -1):
            if excess > _NOTE_BYTES:
                return True
            if not (self._protected(group) or self._groups[group].keep):
                excess += self._smallest(group)
        return excess > _NOTE_BYTES

    def _smallest(self, group: int) -> int:
        """The size of a turn once shortened as far as the plan can (protected: as it is)."""
        turn = self._groups[group]
        if self._protected(group):
            return turn.size
        size = turn.size
        sizes = self._sizes
        for index in self._order(group):
            smallest = min(
                sizes[index], self._short_size(index, OUTLINE), self._short_size(index, SUMMARY)
            )
            size -= sizes[index] - smallest
        return size

    def _step(self, pointer: list[int], limit: int, level: int) -> bool:
        """Apply `level` to the next candidate at `pointer` (before group `limit`); False when
        there is none."""
        while pointer[0] < limit:
            group = pointer[0]
            if self._protected(group):
                pointer[0], pointer[1] = group + 1, 0
                continue
            order = self._order(group)
            if pointer[1] >= len(order):
                pointer[0], pointer[1] = group + 1, 0
                continue
            index = order[pointer[1]]
            pointer[1] += 1
            self._set_level(index, level)
            return True
        return False

    def _short_size(self, index: int, level: int) -> int:
        info = self._infos[index]
        size = info.outline_size if level == OUTLINE else info.summary_size
        if size < 0:
            assert info.message is not None
            size = short_size(info.message, level, self._tool_outline(index))
            if level == OUTLINE:
                info.outline_size = size
            else:
                info.summary_size = size
        return size

    def _set_level(self, index: int, level: int) -> None:
        if self._levels[index] >= level:
            return
        new = self._short_size(index, level)
        old = self._sizes[index]
        if new >= old:
            return
        previous = self._levels[index]
        if previous == OUTLINE:
            self._outlined -= 1
        self._levels[index] = level
        if level == OUTLINE:
            self._outlined += 1
        else:
            self._summarized += 1
        self._sizes[index] = new
        group = self._groups[self._group_index[index]]
        if index < group.emitted:  # already sent once: send it shortened from now on
            self._replace_wire(index, group)
        group.size += new - old
        if not group.evicted:
            self._total += new - old

    def _evict(self, group: int) -> None:
        turn = self._groups[group]
        turn.evicted = True
        self._total -= turn.size
        if self._first_evicted is None:
            self._total += _NOTE_BYTES
            self._first_evicted = group
        else:
            self._first_evicted = min(self._first_evicted, group)
        infos, levels = self._infos, self._levels
        for index in range(turn.start, turn.end):
            if infos[index].message is not None:
                self._evicted_messages += 1
                if levels[index] == OUTLINE:
                    self._outlined -= 1
                elif levels[index] == SUMMARY:
                    self._summarized -= 1

    # ── rendering ───────────────────────────────────────────────────────────

    def _tool_outline(self, index: int) -> str | None:
        """The outline text of a tool result: recorded with it, or generic from its call."""
        info = self._infos[index]
        message = info.message
        if message is None or message.role != "tool":
            return None
        if info.outline_text is None:
            recorded = message.outline
            info.outline_text = recorded if recorded else self._generic_outline(index, message)
        return info.outline_text

    def _generic_outline(self, index: int, message: ChatMessage) -> str:
        name, arguments = "tool", None
        turn = self._groups[self._group_index[index]]
        head = self._infos[turn.start].message
        for call in (head.tool_calls if head is not None else None) or ():
            if call.id == message.tool_call_id:
                name = call.function.name
                raw = call.function.arguments
                if len(raw) <= 4096:
                    try:
                        arguments = json.loads(raw)
                    except ValueError:
                        arguments = None
                break
        return generic_outline(name, arguments, message.text, bool(message.is_error))

    def _wire(self, index: int) -> dict[str, Any]:
        info = self._infos[index]
        level = self._levels[index]
        assert info.message is not None
        if level == 0:
            wire = info.full_wire
            if wire is None:
                wire = info.full_wire = info.message.to_wire()
            return wire
        wire = info.outline_wire if level == OUTLINE else info.summary_wire
        if wire is None:
            wire = downgrade(info.message, level, self._tool_outline(index)).to_wire()
            if level == OUTLINE:
                info.outline_wire = wire
            else:
                info.summary_wire = wire
        return wire

    def _emit(self, group: int, out: list[dict[str, Any]]) -> None:
        turn = self._groups[group]
        wires, slots, infos, levels = turn.wires, turn.slots, self._infos, self._levels
        for index in range(max(turn.start, turn.emitted), turn.end):
            info = infos[index]
            if info.message is None:
                continue
            wire = info.full_wire if levels[index] == 0 else None
            wires.append(wire if wire is not None else self._wire(index))
            slots.append(index)
        turn.emitted = turn.end
        out.extend(wires)

    def _messages(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        marker = self._first_evicted
        note = None
        if marker is not None:
            note = ChatMessage.user(omitted_note(self._evicted_messages)).to_wire()
        for group in self._kept_before:
            if note is not None and marker is not None and group > marker:
                out.append(note)
                note = None
            self._emit(group, out)
        if note is not None:
            out.append(note)
        out.extend(self._tail_messages())
        return out

    def _replace_wire(self, index: int, group: _Group) -> None:
        """Put message `index`'s wire, as its level now stands, where it was emitted: in
        its group's wires and, when the group is in the kept tail, there too."""
        wire = self._wire(index)
        position = bisect.bisect_left(group.slots, index)
        group.wires[position] = wire
        emitted = self._group_index[index] - self._tail_from
        if 0 <= emitted < len(self._tail_offsets):
            self._tail[self._tail_offsets[emitted] + position] = wire

    def _tail_messages(self) -> list[dict[str, Any]]:
        """The wire messages of the groups from the eviction pointer on: those emitted for
        the last request (shortened ones replaced in place, see `_replace_wire`), and the
        last group (which may have grown) and any new one emitted."""
        if self._p3 != self._tail_from:
            self._tail, self._tail_offsets, self._tail_from = [], [], self._p3
        if self._tail_offsets:
            del self._tail[self._tail_offsets[-1] :]
            del self._tail_offsets[-1]
        for group in range(self._tail_from + len(self._tail_offsets), len(self._groups)):
            self._tail_offsets.append(len(self._tail))
            self._emit(group, self._tail)
        return self._tail


__all__ = ["ContextFitter", "ContextOverflow", "FitResult", "omitted_note"]
