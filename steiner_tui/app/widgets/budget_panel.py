"""The context-budget panel: the latest request's sources, window, estimate and prefix.

It shows a ``BudgetView`` (built by the controller from request snapshots) and nothing else:
the window bar, the request as a stacked bar by source over the per-source table (each row
led by its segment's swatch), what costs the most (``CostRanking``, ``m`` masks a row), the
chart of tokens per request with the cache-reuse strip (``context_charts``), the last tool
output that was cut to its budget, the notes with the compaction mode, and the what-if view
(``WhatIfView``). A request that cannot fit the window says so in the error colour. Enter
asks the screen to open the request inspector on the request shown.

Before the first view (or error) the panel is its border and title alone: its parts are
mounted with the first one, which they then show (until then they would be empty, yet a new
session's first frame styled, laid out and drew ten more widgets). A view, an error or a cut
that arrives before the parts are mounted is kept and shown once they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from time import monotonic
from typing import ClassVar

import msgspec
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.app.budget_view import BudgetView, MoneyFigures, SourceRow
from steiner_tui.app.widgets.context_charts import (
    RequestChart,
    SourceBar,
    source_colour,
    source_colours,
)
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.widgets.window_bar import WindowBar
from steiner_tui.engine.cache_causes import minutes
from steiner_tui.engine.events import OutputCut
from steiner_tui.units import byte_count, cache_summary, cost_parts, count, dollars, token_count

__all__ = ["BudgetPanel", "format_rows", "money_lines"]

LABEL_WIDTH = 19
CACHE_CLOCK_SECONDS = 30.0
"""How often the time left until the cache expires is counted down."""
NUMBER_WIDTH = 8


def format_rows(
    rows: tuple[SourceRow, ...], *, swatches: Sequence[str] = (), label_width: int = LABEL_WIDTH
) -> Content:
    """The per-source table: label, bytes, tokens, share, truncated mark (``swatches``: the
    stacked bar's colours, ``source_colours``; each row is then led by the colour of its
    segment). A label longer than its column
    (``label_width``) is never cut: it takes its own line and the figures go on the next."""
    width = label_width - 2 if swatches else label_width
    lead = "  " if swatches else ""
    head = f"{lead}{'source':<{width}}{'bytes':>{NUMBER_WIDTH}}{'tok':>{NUMBER_WIDTH}}{'%':>5}"
    lines: list[Content] = [Content.styled(head, "bold $text-muted")]
    for position, row in enumerate(rows):
        figures = (
            f"{count(row.bytes):>{NUMBER_WIDTH}}{count(row.tokens):>{NUMBER_WIDTH}}"
            f"{row.share * 100:>4.0f}%"
        )
        swatch = Content.styled("■ ", source_colour(position, swatches)) if swatches else Content()
        if len(row.label) <= width:
            line = swatch + Content(f"{row.label:<{width}}{figures}")
        else:
            lines.append(swatch + Content(row.label))
            line = Content(f"{lead}{'':<{width}}{figures}")
        if row.truncated:
            line += Content.styled(" ✂", "$text-error")
        lines.append(line)
    if any(row.truncated for row in rows):
        lines.append(Content.styled("✂ truncated by its byte budget", "$text-muted"))
    return Content("\n").join(lines)


def over_window(view: BudgetView) -> Content:
    """The over-the-window line (empty when the request fits)."""
    if view.fits:
        return Content("")
    return Content.styled(
        f"over the window by {token_count(view.overflow_tokens)}: this request cannot be "
        "sent · /compact makes room, /clear starts over",
        "bold $text-error",
    )


def cut_note(name: str, cut: OutputCut) -> Content:
    """What a bounded tool result left out, and where the whole output is."""
    text = (
        f"last cut: {name} kept {byte_count(cut.shown_bytes)} of {byte_count(cut.total_bytes)}"
        f" · {count(cut.shown_lines)} of {count(cut.total_lines)} lines"
    )
    if cut.saved_at:
        text += f" · whole output: {cut.saved_at}"
    return Content.styled(text, "$text-warning")


def _notes(view: BudgetView) -> Content:
    lines = [
        f"estimate {token_count(view.estimate_tokens)} · {view.strategy} · "
        f"{view.confidence} confidence"
    ]
    doctor = view.window_doctor
    if doctor is not None:
        lines.append(doctor.line())
    elif view.window_origin:
        lines.append(
            f"window {token_count(view.window.context_size)} · source: {view.window_origin}"
        )
    if view.tools_ignored:
        lines.append("tools: the server ignores them · not sent, not counted")
    if view.calibration_samples:
        reports = "report" if view.calibration_samples == 1 else "reports"
        lines.append(
            f"calibration ×{view.calibration_factor:.2f} from {view.calibration_samples} {reports}"
        )
    drift = view.drift
    if drift is None:
        lines.append("drift: no provider usage yet")
    else:
        lines.append(
            f"drift {drift.percent:+.0f}%: est {count(drift.estimated)} vs reported "
            f"{count(drift.reported)} (request #{drift.request_index})"
        )
    prefix = view.prefix
    if view.preview:
        lines.append("cache prefix: nothing sent yet")
    elif prefix is None:
        lines.append("cache prefix: first request")
    elif prefix.first_broken is None:
        lines.append(f"cache prefix: all {prefix.matching} previous messages kept")
    else:
        lines.append(
            f"cache prefix: {prefix.matching}/{view.prefix_total} kept · broke at "
            f"#{prefix.first_broken} ({prefix.broken_source})"
        )
    health = view.health
    state = f"{health.severity} · {health.state}" if health is not None else "ok"
    lines.append(f"compactions {view.compactions} · health {state}")
    lines.append(trigger_line(view))
    if view.money is not None:
        lines.extend(money_lines(view.money))
    notes = Content("\n".join(lines))
    if doctor is not None and doctor.problem:
        notes += Content.styled("\n" + doctor.problem, "$text-warning")
    return notes


def trigger_line(view: BudgetView) -> str:
    """What decides compaction: the soft trigger, or for a stateful provider its reported
    usage against the trigger (the floor's when armed) and the cap."""
    window = view.window
    if not window.known:
        trigger = "soft trigger unknown"
    elif window.stateful:
        usage = f"reported {count(window.used)}" if window.used else "no usage reported yet"
        floor = f" (floor {count(window.floor)} + 10%)" if window.floor else ""
        trigger = (
            f"{usage} of trigger {count(window.soft_threshold)}{floor} · cap {count(window.cap)}"
        )
    else:
        trigger = f"soft trigger {count(window.soft_threshold)}"
    return f"compaction {view.compaction_mode} · {trigger}"


def money_lines(money: MoneyFigures) -> list[str]:
    """What the requests cost (the latest, its parts, the session) and what the cache did
    with the latest and will do with the next one, and how long it lives on."""
    lines: list[str] = []
    usage = money.usage
    if not money.priced:
        lines.append(f'cost: price unknown for {money.model} ([models."…"] price sets one)')
    elif usage is not None:
        lines.append(
            f"cost #{money.request_index} {dollars(usage.cost_usd)} · "
            f"session {dollars(usage.session_cost_usd)}"
        )
        lines.append(f"  {cost_parts(usage.cost)}")
    if usage is not None and usage.cache is not None:
        lines.append(f"cache #{money.request_index}: {cache_summary(usage.cache)}")
    if money.next_cache is not None:
        lines.append(f"next request: {cache_summary(money.next_cache)}")
    left, ttl = money.cache_left_seconds, money.ttl_seconds
    if left is not None and ttl is not None:
        if left >= 0:
            lines.append(f"cache expires in {minutes(left)} (TTL {minutes(ttl)})")
        else:
            lines.append(f"cache expired {minutes(-left)} ago (TTL {minutes(ttl)})")
    if money.actions and not (left is not None and left < 0):
        lines.append("before you act, what the cache would lose:")
        lines.extend(f"  {action}: {effect.text}" for action, effect in money.actions)
    return lines


class BudgetPanel(VerticalScroll, can_focus=True):
    """The context-budget panel (display only)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "inspect", "Inspect", id="context.inspect",
                tooltip="Open the request inspector on the request shown"),
    ]  # fmt: skip
    """Enter opens the inspector."""

    class InspectRequested(Message):
        """The user asked to inspect the request shown."""

    def __init__(
        self, *, whatif: bool = True, id: str | None = None, classes: str | None = None
    ) -> None:
        """``whatif``: show the what-if view (a read-only capture or import has no session
        whose thresholds could be tried). ``classes``: ``-preview`` when the first figures
        will be a dry run (then they restyle nothing when they come)."""
        super().__init__(id=id, classes=classes)
        self.whatif = whatif
        self._view: BudgetView | None = None
        self._error = ""
        self._cut: tuple[str, OutputCut | None] | None = None
        self._parts = False
        """Whether the parts are mounted (with the first view or error)."""
        self._shown_at = monotonic()
        """When the view on show came (the cache's time left counts from there)."""

    def _new_parts(self) -> Iterator[Widget]:
        over, cut = Static(id="budget-over"), Static(id="budget-cut")
        over.display = cut.display = False  # shown when there is something to say
        yield WindowBar()
        yield over
        yield SourceBar()
        yield Static(id="budget-rows")
        yield Static(Content.styled("what costs the most", "bold $text-muted"), id="top-title")
        yield CostRanking(id="top")
        yield RequestChart()
        yield cut
        yield Static(id="budget-notes")
        if self.whatif:
            yield WhatIfView(id="whatif")

    def on_mount(self) -> None:
        """Title until the first view arrives; the cache's time left counts down."""
        self.set_interval(CACHE_CLOCK_SECONDS, self.tick_cache_clock)
        self.border_title = "Context"
        self.border_subtitle = "F10 · /context · Enter: inspector"
        self._show_pending(mounted=True)

    def _show_pending(self, *, mounted: bool = False) -> None:
        """Show what arrived, mounting the parts first if they are not yet (``mounted``: from
        ``on_mount``, before Textual counts the panel as mounted)."""
        if not (mounted or self.is_mounted) or (self._view is None and not self._error):
            return
        first = not self._parts
        if first:
            # Attached at once (Textual mounts them afterwards): they take what follows now.
            self._parts = True
            self.mount_all(self._new_parts())
        if not self.query(WindowBar):
            return  # the panel is closing (the app quits): its parts are not mounted any more
        if self._view is not None:
            self._render_view(self._view)
        else:
            self.remove_class("-preview")  # no request to show, dry run or sent
            self.border_title = "Context · error"
            self.query_one("#budget-rows", Static).update(
                Content.styled(self._error, "$text-error")
            )
        if first and self._cut is not None:
            self._render_cut(*self._cut)

    def show(self, view: BudgetView) -> None:
        """Show ``view`` (once the panel's parts are mounted, if they are not yet)."""
        self._view, self._error = view, ""
        self._shown_at = monotonic()
        self._show_pending()

    def tick_cache_clock(self, elapsed: float | None = None) -> None:
        """Count down the time left until the cache expires, ``elapsed`` seconds (default:
        the time since the view came) after the view was built; the notes alone are redrawn."""
        view = self._view
        money = view.money if view is not None else None
        if view is None or money is None or money.cache_left_seconds is None or not self._parts:
            return
        if elapsed is None:
            elapsed = monotonic() - self._shown_at
        left = money.cache_left_seconds - elapsed
        ticked = msgspec.structs.replace(money, cache_left_seconds=left)
        notes = _notes(msgspec.structs.replace(view, money=ticked))
        self.query_one("#budget-notes", Static).update(notes)

    def _render_view(self, view: BudgetView) -> None:
        over = "" if view.fits else " · over the window"
        self.border_title = f"Context · {view.heading}{over}"
        self.set_class(view.preview, "-preview")
        self.set_class(not view.fits, "-over")
        self.query_one(WindowBar).figures = view.window
        self.query_one("#budget-over", Static).update(over_window(view))
        self.query_one("#budget-over").display = not view.fits
        self.query_one(SourceBar).rows = view.rows
        rows = format_rows(
            view.rows, swatches=source_colours(self.app), label_width=self._label_width()
        )
        self.query_one("#budget-rows", Static).update(rows)
        self.query_one("#budget-notes", Static).update(_notes(view))
        self.query_one(CostRanking).show(view.top, view.project_root)
        window = view.window
        if self.whatif:
            self.query_one(WhatIfView).set_budget(
                window.soft_threshold,
                window.context_size,
                view.compaction_mode,
                f"{view.heading} {view.estimate_tokens} {view.compactions}",
            )
        self.query_one(RequestChart).view = view

    def on_what_if_view_changed(self, message: WhatIfView.Changed) -> None:
        """The chart draws the threshold being tried and where it would have compacted (only
        while it differs from how the session went, which the chart already shows)."""
        observed, trial = message.figures
        self.query_one(RequestChart).whatif = None if trial.setting == observed.setting else trial

    def _label_width(self) -> int:
        """The label column: what the panel's width leaves beside the figures (a wider
        panel, ``/context``, cuts fewer labels onto their own line)."""
        inner = self.scrollable_content_region.width
        figures = 2 * NUMBER_WIDTH + 5
        return max(LABEL_WIDTH, min(48, inner - figures - 1)) if inner else LABEL_WIDTH

    def on_resize(self) -> None:
        """Labels take the width the panel has."""
        if self._view is not None and self._parts:
            rows = format_rows(
                self._view.rows, swatches=source_colours(self.app), label_width=self._label_width()
            )
            self.query_one("#budget-rows", Static).update(rows)

    def show_cut(self, name: str, cut: OutputCut | None) -> None:
        """Show what the latest bounded tool result cut (None: the note goes)."""
        self._cut = (name, cut)
        if self._parts:
            self._render_cut(name, cut)

    def _render_cut(self, name: str, cut: OutputCut | None) -> None:
        note = self.query_one("#budget-cut", Static)
        note.display = cut is not None
        if cut is not None:
            note.update(cut_note(name, cut))

    def show_error(self, text: str) -> None:
        """The request cannot be assembled (e.g. a misconfigured project): say why."""
        self._view, self._error = None, text
        self._show_pending()

    def action_inspect(self) -> None:
        """Ask for the inspector."""
        self.post_message(self.InspectRequested())
