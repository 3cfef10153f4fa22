"""The screen's view of one session: engine calls and the figures its panels show.

Kept apart from the widgets and free of Textual, so tests and benchmarks can drive it directly:
the main screen calls it and hands the results to widgets that only display them. It reads the
snapshot store and the driver; it never recomputes what the engine already knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.agent.interactive import DriverRefusal
from steiner_tui.app.budget_view import BudgetView, TokenLedger, build_budget_view
from steiner_tui.app.live_files import partitions_for
from steiner_tui.app.session import AppSession
from steiner_tui.engine.compaction.escalation import replacement_refusal
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import (
    HealthEvent,
    RequestSnapshot,
    StaticContextReloaded,
    UsageReported,
)
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.pending_reload import PendingReload, pending_reload
from steiner_tui.engine.prompt.static_cache import StaticPartition
from steiner_tui.engine.skills.delta import SkillStatus
from steiner_tui.engine.skills.discovery import discover_skills
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.sessions.ids import new_session_id
from steiner_tui.sessions.resume import cache_key_for
from steiner_tui.tools.base import Mode
from steiner_tui.tools.results import RESULTS_FOLDER, DirectoryResultStore

__all__ = ["SessionController"]

_PREVIOUS_LOOKBACK = 8
"""How many request indexes back to look for the previous normal (non-compaction) request."""


class SessionController:
    """Engine-facing operations of the main screen."""

    def __init__(self, session: AppSession) -> None:
        self.session = session
        self.driver = session.driver
        self._count_text = self.driver.runner.context.estimator.count_text
        self._ledger: TokenLedger | None = None
        self.health: HealthEvent | None = None
        self._usage: tuple[int, UsageReported] | None = None
        self._preview: RequestSnapshot | None = None
        self._first_index = self.driver.runner.snapshots.next_index

    @property
    def ledger(self) -> TokenLedger:
        """Token counts of conversation messages, kept across panel refreshes."""
        if self._ledger is None:
            self._ledger = TokenLedger(self._count_text)
        return self._ledger

    # -- what the panels show ---------------------------------------------------------------

    def shown_snapshot(self) -> tuple[RequestSnapshot, bool]:
        """The request the budget panel shows and whether it is the dry-run preview.

        Raises:
            ValueError: the project's context configuration is invalid (preview only).
        """
        latest = self.session.snapshots.parent_snapshot()
        if latest is not None and latest.index >= self._first_index:
            return latest, False
        if self._preview is None:
            self._preview = self.driver.preview()
        return self._preview, True

    def _previous(self, snapshot: RequestSnapshot) -> RequestSnapshot | None:
        store = self.session.snapshots
        for index in range(snapshot.index - 1, snapshot.index - 1 - _PREVIOUS_LOOKBACK, -1):
            if index < self._first_index:
                return None
            found = store.snapshot(index)
            if found is not None and not found.compaction:
                return found
        return None

    def budget_view(self) -> BudgetView:
        """The context-budget panel's figures (see ``shown_snapshot`` for errors)."""
        snapshot, preview = self.shown_snapshot()
        runner = self.driver.runner
        calibration = runner.context.estimator.calibration
        model = runner.model.model
        return build_budget_view(
            snapshot,
            ledger=self.ledger,
            budget=runner.model.budget,
            project_root=self.session.project_root,
            preview=preview,
            previous=None if preview else self._previous(snapshot),
            usage=self._usage,
            calibration=(calibration.samples(model), calibration.factor(model)),
            compactions=len(self.driver.lineage.generations) - 1,
            health=self.health,
            window_origin=runner.model.window_origin,
            tools_ignored=runner.model.tools_ignored,
        )

    def skill_rows(self) -> list[SkillStatus]:
        """The sidebar's rows."""
        return self.driver.skill_states()

    def model_summary(self) -> str:
        """What ``/model`` shows."""
        model = self.driver.runner.model
        budget = model.budget
        lines = [
            f"{self.session.model_label} ({model.ref})",
            f"window {budget.context_size:,} tokens (source: {model.window_origin}) · "
            f"max output {budget.max_output:,} (source: {model.max_output_origin})",
            f"soft threshold {budget.soft_threshold:,} · hard limit {budget.hard_limit:,}",
        ]
        if model.tools_ignored:
            lines.append(f"tools: the {model.server} server ignores them; none are sent")
        if self.session.models:
            lines.append("configured: " + ", ".join(self.session.models))
        return "\n".join(lines)

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

    def skill_name_at(self, index: int) -> str | None:
        """The name on sidebar row ``index`` (0-based), or None past the end."""
        rows = self.skill_rows()
        return rows[index].name if 0 <= index < len(rows) else None

    def toggle_mode(self) -> Mode:
        """Switch between build and plan; the notice goes out with the next message."""
        mode: Mode = "plan" if self.driver.mode == "build" else "build"
        self.driver.set_mode(mode)
        if self.session.log is not None:
            self.session.log.record_mode(mode)
        return mode

    def clear(self) -> None:
        """Start a new conversation (``/clear``); undelivered sub-agent results are dropped.

        A recorded session becomes a new session: a new id (its own log, title, prompt cache
        key, request numbering and history archive); the old one stays as it was saved.

        Raises:
            DriverRefusal: while a run is generating or a sub-agent is pending.
        """
        log = self.session.log
        if log is not None:
            driver, runner = self.driver, self.driver.runner
            refusal = replacement_refusal(driver.busy, driver.pending_sub_agents)
            if refusal is not None:
                raise DriverRefusal(f"cannot replace the conversation now: {refusal}")
            new_id = new_session_id()
            log.start_new_session(log.session_dir.parent / new_id)
            runner.start_new_session(
                new_id,
                prompt_cache_key=cache_key_for(new_id),
                archive=FileHistoryArchive(log.session_dir),
                results=DirectoryResultStore(log.session_dir / RESULTS_FOLDER),
            )
        self.driver.replace_lineage(ConversationLineage())
        if self.session.sub_agents is not None:
            self.session.sub_agents.drain_results()  # results for the old conversation
        if log is not None:
            log.sync()
        self._first_index = self.driver.runner.snapshots.next_index
        self._preview = None
        self._usage = None

    def limits_learned(self) -> None:
        """The model's server told its limits: the dry run (window, tools) is out of date."""
        self._preview = None

    def apply_file_changes(self, paths: Iterable[Path]) -> frozenset[StaticPartition]:
        """Note the partitions the changed ``paths`` belong to; the prefix keeps its bytes.

        A change of AGENTS.md or of the project context is pending (``pending_reload``) until
        the next compaction or ``reload_now``: applying it at once would break the provider's
        cached prefix without the person asking. Skills are rediscovered at once when a skill
        root changed (the sidebar; interactive skills travel as envelopes, not in the prefix).
        """
        changed = partitions_for(self.session.watch_plan, (p.resolve() for p in paths))
        context = self.driver.runner.context
        if StaticPartition.SKILLS in changed:
            found = discover_skills(self.session.skill_roots, self.driver.runner.sink)
            self.driver.skills.replace_skills(found)
        in_prefix = changed if context.options.skill_names else changed - {StaticPartition.SKILLS}
        context.mark_changed(in_prefix)
        return changed

    def pending_reload(self) -> PendingReload | None:
        """The changes waiting for the next compaction, with the cost of reloading them now."""
        runner = self.driver.runner
        context = runner.context

        def count(messages: Sequence[Message]) -> int:
            return context.estimate(runner.model.model, messages, ()).tokens

        return pending_reload(
            context.pending_reloads, self.session.snapshots.parent_snapshot(), count
        )

    def reload_now(self) -> frozenset[StaticPartition]:
        """Apply the pending changes now: the next request (and the preview) has them."""
        runner = self.driver.runner
        reloaded = runner.context.reload_pending()
        if reloaded:
            names = tuple(sorted(str(p) for p in reloaded))
            runner.sink.emit(StaticContextReloaded(names, "manual"))
            self._preview = None
        return reloaded
