"""The context-budget panel: the latest request's sources, window, estimate and prefix.

It shows a ``BudgetView`` (built by the controller from request snapshots) and nothing else;
Enter asks the screen to open the request inspector on the request shown. Below the sources:
what costs the most (``CostRanking``, ``m`` masks a row), the notes with the compaction mode,
and the what-if view (``WhatIfView``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from steiner_tui.app.budget_view import BudgetView, SourceRow
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.widgets.window_bar import WindowBar
from steiner_tui.units import count, token_count

__all__ = ["BudgetPanel", "format_rows"]

LABEL_WIDTH = 19
NUMBER_WIDTH = 8


def _label(text: str) -> str:
    return text if len(text) <= LABEL_WIDTH else text[: LABEL_WIDTH - 1] + "…"


def format_rows(rows: tuple[SourceRow, ...]) -> Content:
    """The per-source table: label, bytes, tokens, share, truncated mark."""
    head = f"{'source':<{LABEL_WIDTH}}{'bytes':>{NUMBER_WIDTH}}{'tok':>{NUMBER_WIDTH}}{'share':>6}"
    lines: list[Content] = [Content.styled(head, "bold $text-muted")]
    for row in rows:
        text = (
            f"{_label(row.label):<{LABEL_WIDTH}}{count(row.bytes):>{NUMBER_WIDTH}}"
            f"{count(row.tokens):>{NUMBER_WIDTH}}{row.share * 100:>5.0f}%"
        )
        line = Content(text)
        if row.truncated:
            line += Content.styled(" ✂", "$text-error")
        lines.append(line)
    if any(row.truncated for row in rows):
        lines.append(Content.styled("✂ truncated by its byte budget", "$text-muted"))
    return Content("\n").join(lines)


def _notes(view: BudgetView) -> Content:
    lines = [
        f"estimate {token_count(view.estimate_tokens)} · {view.strategy} · "
        f"{view.confidence} confidence"
    ]
    if view.window_origin:
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
    lines.append(
        f"compaction {view.compaction_mode} · soft trigger {count(view.window.soft_threshold)}"
    )
    return Content("\n".join(lines))


class BudgetPanel(VerticalScroll, can_focus=True):
    """The context-budget panel (display only)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "inspect", "Inspect", id="context.inspect",
                tooltip="Open the request inspector on the request shown"),
    ]  # fmt: skip
    """Enter opens the inspector."""

    @dataclass
    class InspectRequested(Message):
        """The user asked to inspect the request shown."""

    def compose(self) -> ComposeResult:
        yield WindowBar()
        yield Static(id="budget-rows")
        yield Static(Content.styled("what costs the most", "bold $text-muted"), id="top-title")
        yield CostRanking(id="top")
        yield Static(id="budget-notes")
        yield WhatIfView(id="whatif")

    def on_mount(self) -> None:
        """Title until the first view arrives."""
        self.border_title = "Context"
        self.border_subtitle = "/context · Enter: inspector"

    def show(self, view: BudgetView) -> None:
        """Show ``view``."""
        self.border_title = f"Context · {view.heading}"
        self.set_class(view.preview, "-preview")
        self.query_one(WindowBar).figures = view.window
        self.query_one("#budget-rows", Static).update(format_rows(view.rows))
        self.query_one("#budget-notes", Static).update(_notes(view))
        self.query_one(CostRanking).show(view.top, view.project_root)
        window = view.window
        self.query_one(WhatIfView).set_budget(
            window.soft_threshold,
            window.context_size,
            view.compaction_mode,
            f"{view.heading} {view.estimate_tokens} {view.compactions}",
        )

    def show_error(self, text: str) -> None:
        """The request cannot be assembled (e.g. a misconfigured project): say why."""
        self.border_title = "Context · error"
        self.query_one("#budget-rows", Static).update(Content.styled(text, "$text-error"))

    def action_inspect(self) -> None:
        """Ask for the inspector."""
        self.post_message(self.InspectRequested())
