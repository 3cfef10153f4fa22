"""The screen's view of one session: engine calls and the figures its panels show.

Kept apart from the widgets and free of Textual, so tests and benchmarks can drive it directly:
the main screen calls it and hands the results to widgets that only display them. It reads the
session (its snapshot store and driver); it never recomputes what the engine already knows.

The context panel shows the dry run of the next request while there is one to show (nothing
sent yet in this conversation, skill toggles and a mode change waiting for the next message, or
a model switched since the last request), and the latest request sent otherwise. The dry run
is assembled by the engine like any request (``Session.preview``); the screen asks for it in a
worker thread (``preview_view``), never on the UI loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

from steiner_tui.agent.cache_diagnostics import params_key
from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.agent.session import Session
from steiner_tui.app.budget_view import BudgetView, MoneyFigures, build_budget_view
from steiner_tui.app.live_files import FileChanges, WatchPlan, partitions_for
from steiner_tui.app.session import model_label
from steiner_tui.config import ConfigError
from steiner_tui.engine.cache_causes import CacheEffect, CacheTurn, cache_effect
from steiner_tui.engine.costs import CostItem
from steiner_tui.engine.events import (
    EngineEvent,
    HealthEvent,
    RequestSnapshot,
    StaticContextReloaded,
    UsageReported,
)
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import FREE, ModelPrice, cache_ttl_seconds
from steiner_tui.engine.prompt.pending_reload import (
    PendingReload,
    pending_reload,
    reload_break_index,
)
from steiner_tui.engine.prompt.static_cache import StaticPartition
from steiner_tui.engine.skills.delta import SkillStatus
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.engine.tokens import TokenizerLoadError
from steiner_tui.providers.offline import OFFLINE_MODEL
from steiner_tui.sessions.earlier_requests import InspectedRequest
from steiner_tui.tools.base import Mode
from steiner_tui.units import count

__all__ = ["SessionController"]

HISTORY = 240
"""Requests the context panel's chart can show (the latest ones)."""
_PREVIOUS_LOOKBACK = 8
"""How many request numbers back to look for the previous normal (non-compaction) request."""


def watch_plan_for(session: Session) -> WatchPlan:
    """The files and folders whose changes reach the session's static cache."""
    options = session.runner.context.options
    root = session.project_root
    agents = [root / "AGENTS.md"]
    if options.global_agents_path is not None:
        agents.append(options.global_agents_path)
    context = [root / ".steiner" / "config.toml"]
    context.extend(root / name for name in options.project_context.files)
    return WatchPlan(
        agents_files=tuple(path.resolve() for path in agents),
        context_files=tuple(path.resolve() for path in context),
        skill_roots=tuple(r.path.resolve() for r in session.skill_roots if not r.bundled),
    )


class SessionController:
    """Engine-facing operations of the main screen."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.driver = session.driver
        self.health: HealthEvent | None = None
        self.watch_plan = watch_plan_for(session)
        """What the live-file watcher follows."""
        self.last_preview: RequestSnapshot | None = None
        """The dry run shown last (the inspector opens on it before any request)."""
        self._usage: tuple[int, UsageReported] | None = None

    # -- what the panels show ---------------------------------------------------------------

    def sent_snapshot(self) -> RequestSnapshot | None:
        """The latest main request of this conversation, or None before the first."""
        latest = self.session.snapshots.parent_snapshot()
        if latest is not None and latest.index >= self.session.first_request:
            return latest
        return None

    def wants_preview(self) -> bool:
        """Whether the panel shows the dry run: nothing sent yet, something pending, the
        conversation was compacted or masked since the last request, or the last request went
        to another model (``/model``: its window, tokenizer and tools no longer apply)."""
        sent = self.sent_snapshot()
        if sent is None or self.driver.has_pending:
            return True
        model = self.driver.runner.model
        if (sent.provider, sent.model) != (model.alias, model.model):
            return True
        return str(sent.generation_id) != str(self.driver.lineage.active.id)

    def preview(self) -> RequestSnapshot:
        """The dry run of the next request (assembled by the engine; safe in a thread).

        Raises:
            ValueError: the project's context configuration is invalid.
            TokenizerLoadError: the model's tokenizer cannot be loaded.
        """
        snapshot = self.session.preview()
        self.last_preview = snapshot
        return snapshot

    def shown_snapshot(self) -> tuple[RequestSnapshot, bool]:
        """The request the panel shows and whether it is the dry run (computed here when it
        is: the screen's worker calls ``preview_view`` instead)."""
        sent = self.sent_snapshot()
        if sent is not None and not self.wants_preview():
            return sent, False
        return self.preview(), True

    def _previous(self, snapshot: RequestSnapshot) -> InspectedRequest | None:
        """The main request before ``snapshot`` (a resumed session's from its log)."""
        store = self.session.snapshots
        for index in range(snapshot.index - 1, snapshot.index - 1 - _PREVIOUS_LOOKBACK, -1):
            if index < self.session.first_request:
                lookback = _PREVIOUS_LOOKBACK - (snapshot.index - 1 - index)
                return self.session.requests.logged_main_before(index + 1, lookback)
            found = store.snapshot(index)
            if found is not None and not found.compaction:
                return found
        return None

    def view_of(self, snapshot: RequestSnapshot, preview: bool) -> BudgetView:
        """The panel's figures for ``snapshot``."""
        runner = self.driver.runner
        estimator = runner.context.estimator
        calibration = estimator.calibration
        model = runner.model.model
        top = runner.cost_ranking(snapshot)
        return build_budget_view(
            snapshot,
            budget=runner.model.budget,
            project_root=self.session.project_root,
            preview=preview,
            previous=self.sent_snapshot() if preview else self._previous(snapshot),
            usage=self._usage,
            calibration=(calibration.samples(model), calibration.factor(model)),
            tokenizer=estimator.choice(model).encoding,
            compactions=len(self.driver.lineage.generations) - 1,
            health=self.health,
            window_origin=runner.model.window_origin,
            window_doctor=runner.window_doctor(),
            tools_ignored=runner.model.tools_ignored,
            pinned=runner.pinned_share(snapshot),
            compaction_mode=runner.compaction_mode,
            top=top,
            history=self._history(),
            stateful=runner.parent_usage() if runner.model.stateful else None,
            money=self._money(snapshot, preview, top),
        )

    def _money(
        self, snapshot: RequestSnapshot, preview: bool, top: Sequence[CostItem]
    ) -> MoneyFigures | None:
        """Costs and the cache's state; for a free model (a local server) the cache's state
        only, where a miss costs time, not money; none for the offline model."""
        runner = self.driver.runner
        model = runner.model
        if model.price == FREE and model.model == OFFLINE_MODEL:
            return None
        now = runner.clock.now()
        cache = runner.cache
        ttl = cache_ttl_seconds(model.model)
        left = None
        if (last := cache.last_of(model.model)) is not None and ttl is not None:
            left = ttl - (now - last.at).total_seconds()
        next_cache = None
        if preview and cache.last is not None:
            params = params_key(model.params, model.extra_params)
            next_cache = cache.preview(snapshot, now, price=model.price, params=params)
        index, usage = self._usage if self._usage is not None else (0, None)
        return MoneyFigures(
            model.model,
            model.price is not None,
            index,
            usage,
            next_cache,
            left,
            ttl,
            self.action_effects(top),
            free=model.price == FREE,
        )

    def action_effects(self, top: Sequence[CostItem] = ()) -> tuple[tuple[str, CacheEffect], ...]:
        """What each action would do to the provider's cache if taken now: ``/compact``
        (a new conversation after the context blocks), ``/model`` (all of it, priced at this
        model's write price), a pending reload (from the first message it changes), masking
        the largest result the ranking (``top``) offers to mask (from its first message), and
        a skill toggle or a threshold change (appended after the conversation)."""
        runner = self.driver.runner
        last = runner.cache.last_of(runner.model.model)
        if last is None:
            return ()

        def effect(from_message: int | None) -> CacheEffect:
            return self._effect(last, from_message, runner.model.price)

        effects = [
            ("/compact", effect(last.snapshot.block_message_count)),
            ("/model", effect(0)),
        ]
        context = runner.context
        if context.pending_reloads:
            index = reload_break_index(last.snapshot, context.pending_reloads)
            effects.append(("reload", effect(index)))
        maskable = next((item for item in top if item.action and item.call_ids), None)
        if maskable is not None:
            calls = set(maskable.call_ids)
            messages = last.snapshot.messages
            first = next((i for i, m in enumerate(messages) if m.tool_call_id in calls), None)
            if first is not None:
                effects.append((f"m on {maskable.label}", effect(first)))
        effects.append(("skill or threshold", effect(None)))
        return tuple(effects)

    def model_effect(self, ref: str) -> CacheEffect | None:
        """What ``/model ref`` would do to the cache: all of it written again at ``ref``'s
        write price (None: nothing is cached, or ``ref`` names no configured model)."""
        runner = self.driver.runner
        last = runner.cache.last_of(runner.model.model)
        if last is None:
            return None
        try:
            return self._effect(last, 0, self.session.price_of(ref))
        except ConfigError:
            return None

    def _effect(
        self, last: CacheTurn, from_message: int | None, price: ModelPrice | None
    ) -> CacheEffect:
        """What rewriting the cache of ``last`` from ``from_message`` costs now at ``price``
        (None: appended after it, nothing rewritten)."""
        runner = self.driver.runner
        return cache_effect(
            last,
            at=runner.clock.now(),
            ttl_seconds=cache_ttl_seconds(runner.model.model),
            price=price,
            from_message=from_message,
        )

    def _history(self) -> tuple[RequestSummary, ...]:
        """The latest requests of this conversation (a resumed session's earlier ones read
        from its log, the others from the store; none rebuilt)."""
        requests = self.session.requests
        rows = requests.summaries(max(0, len(requests) - HISTORY))
        first = self.session.first_request
        return tuple(row for row in rows if row.logged or row.index >= first)

    def budget_view(self) -> BudgetView:
        """The context panel's figures (see ``shown_snapshot``; errors as ``preview``)."""
        snapshot, preview = self.shown_snapshot()
        return self.view_of(snapshot, preview)

    def preview_view(self) -> BudgetView:
        """The dry run's figures (the screen's worker thread calls it)."""
        return self.view_of(self.preview(), True)

    def skill_rows(self) -> list[SkillStatus]:
        """The sidebar's rows."""
        return self.driver.skill_states()

    @property
    def model_label(self) -> str:
        """How the status line names the model."""
        return model_label(self.driver.runner.model)

    def model_summary(self) -> str:
        """What ``/model`` shows."""
        model = self.driver.runner.model
        budget = model.budget
        origin = model.window_origin
        if origin == "default":  # nothing says it: the status line's "guessed window"
            origin += ", a guess: set context_window"
        lines = [
            f"{self.model_label} ({model.ref})",
            f"window {count(budget.context_size)} tokens (source: {origin}) · "
            f"max output {count(budget.max_output)} (source: {model.max_output_origin})",
            f"soft threshold {count(budget.soft_threshold)} · "
            f"hard limit {count(budget.hard_limit)}",
        ]
        if model.tools_ignored:
            lines.append(f"tools: the {model.server} server ignores them; none are sent")
        lines.append(self.switch_choices())
        return "\n".join(lines)

    def switch_choices(self, shown: int = 8) -> str:
        """What ``/model`` can switch to, the first ``shown`` named (a local server may list
        dozens of models: Tab after ``/model`` lists them all)."""
        refs = self.session.model_refs
        text = "/model can switch to: " + ", ".join(refs[:shown])
        if len(refs) > shown:
            text += f" and {len(refs) - shown} more (Tab after /model lists them)"
        return text

    def sub_agents(self) -> tuple[SubAgentInfo, ...]:
        """Every sub-agent of the session, in start order (none when delegation is off)."""
        manager = self.session.sub_agents
        return manager.infos() if manager is not None else ()

    def sub_agent_transcript(self, agent_id: str) -> tuple[Message, ...]:
        """The child's own conversation.

        Raises:
            KeyError: no sub-agent has that id.
        """
        manager = self.session.sub_agents
        if manager is None:
            raise KeyError(agent_id)
        return manager.transcript(agent_id)

    # -- what the engine reported -----------------------------------------------------------

    def observe_usage(self, usage: UsageReported) -> None:
        """Remember reported usage against the request it belongs to (the latest one)."""
        latest = self.session.snapshots.latest()
        self._usage = (latest.index if latest is not None else 0, usage)

    def observe_health(self, health: HealthEvent) -> None:
        """Remember the latest session health."""
        self.health = health

    # -- commands ---------------------------------------------------------------------------

    def toggle_skill(self, name: str) -> bool:
        """Toggle ``name``; returns whether it is now enabled.

        Raises:
            KeyError: enabling a skill that is in force but no longer discovered.
        """
        enabled = self.driver.toggle_skill(name)
        if self.session.log is not None:
            self.session.log.record_skill(name, enabled)
        return enabled

    def toggle_mode(self) -> Mode:
        """Switch between build and plan; the notice goes out with the next message."""
        mode: Mode = "plan" if self.driver.mode == "build" else "build"
        self.driver.set_mode(mode)
        if self.session.log is not None:
            self.session.log.record_mode(mode)
        return mode

    def clear(self) -> None:
        """Start a new conversation (``/clear``; see ``Session.clear``).

        Raises:
            DriverRefusal: while a run is generating or a sub-agent is pending.
        """
        self.session.clear()
        self._usage = None
        self.last_preview = None

    def apply_file_changes(self, paths: Iterable[Path]) -> FileChanges:
        """Note the partitions the changed ``paths`` belong to; the prefix keeps its bytes.

        A change of AGENTS.md or of the project context is pending (``pending_reload``) until
        the next compaction or ``reload_now``: applying it at once would break the provider's
        cached prefix without the person asking. While nothing is cached
        (``PendingReload.cached``), it applies at once (``FileChanges.applied``). Skills are
        rediscovered at once when a skill root changed (the sidebar; interactive skills travel
        as envelopes, not in the prefix)."""
        changed = partitions_for(self.watch_plan, (p.resolve() for p in paths))
        context = self.driver.runner.context
        notices: tuple[EngineEvent, ...] = ()
        if StaticPartition.SKILLS in changed:
            notices = self.session.rescan_skills()
        in_prefix = changed if context.options.skill_names else changed - {StaticPartition.SKILLS}
        context.mark_changed(in_prefix)
        applied: frozenset[StaticPartition] = frozenset()
        pending = self.pending_reload()
        if pending is not None and not pending.cached:
            # No cached prefix to break: the change is the next request's at once.
            applied, pending = self._reload("unsent"), None
        return FileChanges(changed, notices, applied, pending)

    @property
    def has_pending_reloads(self) -> bool:
        """Whether changed context files wait for the next compaction."""
        return bool(self.driver.runner.context.pending_reloads)

    def pending_reload(self) -> PendingReload | None:
        """The changes waiting for the next compaction, with the cost of reloading them now."""
        runner = self.driver.runner
        context = runner.context

        def count(messages: Sequence[Message]) -> int:
            return context.estimate(runner.model.model, messages, ()).tokens

        earlier_run = not runner.state.last_main_request.is_zero
        sent = self.session.snapshots.parent_snapshot()
        if sent is None and earlier_run and context.pending_reloads:
            sent = self._resumed_request()
        return pending_reload(
            context.pending_reloads, sent, count, runner.model.price, earlier_run=earlier_run
        )

    def _resumed_request(self) -> RequestSnapshot | None:
        """The resumed session's last request to this model, as this run would send it: the
        next request's dry run cut to the messages that request held, when their hashes are
        the ones it logged; None when there is none, or the conversation is no longer what it
        sent (a reload's cost is then said without a figure)."""
        earlier = self.session.requests.earlier
        if earlier is None:
            return None
        heads = earlier.records.heads
        position = next((p for p in reversed(range(len(heads))) if not heads[p].compaction), None)
        if position is None:
            return None
        logged = earlier.records[position]  # its hashes: not ``at``'s messages, read by hash
        model = self.driver.runner.model
        if (logged.provider, logged.model) != (model.alias, model.model):
            return None
        try:  # the dry run the panel shows (a pending change is not in it), else made now
            preview = self.last_preview or self.preview()
        except (ValueError, TokenizerLoadError):
            return None
        count = logged.hash_count
        hashes = tuple(preview.message_hashes[:count])
        if hashes != logged.message_hashes:
            return None
        return msgspec.structs.replace(
            preview, messages=tuple(preview.messages[:count]), message_hashes=hashes
        )

    def reload_now(self) -> frozenset[StaticPartition]:
        """Apply the pending changes now: the next request (and its dry run) has them."""
        return self._reload("manual")

    def _reload(self, reason: str) -> frozenset[StaticPartition]:
        runner = self.driver.runner
        reloaded = runner.context.reload_pending()
        if reloaded:
            names = tuple(sorted(str(p) for p in reloaded))
            runner.sink.emit(StaticContextReloaded(names, reason))
        return reloaded
