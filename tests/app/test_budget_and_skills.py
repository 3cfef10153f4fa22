"""The budget panel fills from snapshots; skill toggles reach the next request as envelopes."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.notifications import Notify
from textual.widgets import Static

from steiner_tui.agent.from_config import main_model_from_config
from steiner_tui.app.app import make_app
from steiner_tui.app.budget_view import SourceRow
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.budget_text import LABEL_WIDTH, NUMBER_WIDTH, format_rows
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.config import parse_config
from steiner_tui.engine.budget import ESCALATION_GUIDANCE
from steiner_tui.engine.costs import CostItem
from steiner_tui.engine.events import HealthEvent
from steiner_tui.engine.skills.modes import PLAN_MODE_NOTICE
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.fakes import GateProvider, fake_model
from tests.app.helpers import finish, notices, said, send, static_text
from tests.providers.fake_servers import LLAMA_CPP, serving, url


def _rows_text(panel: BudgetPanel) -> str:
    return static_text(panel.query_one("#budget-rows", Static))


async def test_preview_then_request_fill_the_panel(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = app.workbench.budget
        assert "dry run" in str(panel.border_title)
        rows = _rows_text(panel)
        for label in ("preamble", "global AGENTS.md", "project AGENTS.md", "NOTES.md"):
            assert label in rows
        assert "conversation" not in rows

        await send(pilot, "what is in this project?")
        await finish(pilot)

        assert "request #" in str(panel.border_title)
        view = app.workbench.hold.controller.budget_view()
        assert not view.preview
        conversation = view.row("conversation")
        assert conversation is not None and conversation.bytes > 0 and conversation.tokens > 0
        assert view.row("tool definitions") is not None
        assert view.estimate_tokens > 0 and view.window.used == view.estimate_tokens
        assert view.drift is not None and view.drift.reported > 0
        assert view.prefix is not None and view.prefix.matching > 0
        assert "conversation" in _rows_text(panel)
        assert "drift" in static_text(panel.query_one("#budget-notes", Static))


async def test_digit_key_toggles_a_skill_into_the_next_request(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        names = [row.name for row in screen.hold.controller.skill_rows()]
        index = names.index("release-notes")
        screen.skills.focus()
        await pilot.press(str(index + 1))
        state = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert state["release-notes"] == "pending_activation"
        assert "pending on" in str(screen.skills.get_option("release-notes").prompt)

        await send(pilot, "hello")
        await finish(pilot)

        latest = app.session.snapshots.latest()
        assert latest is not None
        users = [m.content for m in latest.messages if m.role == "user"]
        assert any('<steiner-skill name="release-notes" state="active"' in c for c in users)
        state = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert state["release-notes"] == "active"
        view = screen.hold.controller.budget_view()
        skill_row = view.row("skill · release-notes")
        assert skill_row is not None and skill_row.tokens > 0


async def test_space_toggles_the_highlighted_skill(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        screen.skills.focus()
        screen.skills.highlighted = 0
        first = screen.hold.controller.skill_rows()[0].name
        await pilot.press("space")
        assert screen.hold.controller.skill_rows()[0].state == "pending_activation"
        await pilot.press("space")
        assert screen.hold.controller.skill_rows()[0].state == "inactive"
        assert first in app.session.driver.skills.skills


async def test_mode_toggle_shows_and_goes_out_with_the_next_message(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await pilot.press("shift+tab")
        assert screen.status.mode == "plan"
        assert screen.status.has_class("-plan")
        await send(pilot, "plan something")
        await finish(pilot)
        latest = app.session.snapshots.latest()
        assert latest is not None
        conversation = latest.messages[latest.block_message_count :]
        first_user = next(m for m in conversation if m.role == "user")
        assert first_user.content.startswith(PLAN_MODE_NOTICE)


async def test_skill_sidebar_keys_move_the_highlight_and_enter_toggles(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        names = [row.name for row in screen.hold.controller.skill_rows()]
        screen.skills.focus()
        assert screen.skills.highlighted_name == names[0]
        await pilot.press("down", "down")
        assert screen.skills.highlighted_name == names[2]
        await pilot.press("end")
        assert screen.skills.highlighted_name == names[-1]
        await pilot.press("down")  # round to the first, as in any OptionList
        assert screen.skills.highlighted_name == names[0]
        await pilot.press("end", "home", "enter")
        states = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert states[names[0]] == "pending_activation"
        assert "pending on" in str(screen.skills.get_option(names[0]).prompt)


async def test_clicking_a_skill_row_toggles_that_skill(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:  # wide enough for the sidebar
        await pilot.pause()
        screen = app.workbench
        second = screen.hold.controller.skill_rows()[1].name
        # Border (1 row) then two lines per skill: the second skill's name is on row 3.
        await pilot.click("#skills", offset=(4, 3))
        assert screen.skills.highlighted_name == second
        states = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert states[second] == "pending_activation"


async def test_the_panel_and_model_say_the_window_came_from_the_server(
    app_for: AppFactory, project: Path
) -> None:
    with serving(LLAMA_CPP) as server:
        config = parse_config([("c", {"providers": {"local": {"base_url": url(server)}}})])
        main = main_model_from_config(config, project, session_id="s", ref="local/tiny", env={})
        messages: list[object] = []
        app = app_for(main)
        async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
            # The limits worker asks in a thread, then the panel's dry run runs again: all of it.
            await finish(pilot)
            notes = static_text(app.workbench.budget.query_one("#budget-notes", Static))
            assert "window 4,096 from llama.cpp server · reserve 1,024" in notes
            # A quarter for the reply and the margin leave the prompt under 70% of 4,096.
            assert "Fix: set max_output = 972 (or less) or compaction_threshold_tokens" in notes
            assert "tools: the server ignores them" in notes
            assert app.workbench.hold.controller.budget_view().row("tool definitions") is None
            await send(pilot, "/model")
            await pilot.pause()
            text = "\n".join([*said(app), *notices(messages)])
            assert "window 4,096 tokens (source: llama.cpp server)" in text
            assert "max output 1,024 (source: default)" in text
            assert "ignores tool definitions" in text  # the runner's warning


async def test_after_a_model_switch_the_panel_shows_the_next_request_on_that_model(
    app_for: AppFactory, project: Path
) -> None:
    """The last request went to the old model: after /model the panel shows the dry run on
    the new one (its window, tokenizer and tools), not the old request under the new window."""
    with serving(LLAMA_CPP) as server:
        providers = {"providers": {"local": {"base_url": url(server)}}}
        app = app_for(config={**providers, "models": {"local/tiny": {"max_tokens": 300}}})
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            await send(pilot, "hello")
            await finish(pilot)
            panel = app.workbench.budget
            assert "request #" in str(panel.border_title)
            await send(pilot, "/model local/tiny")
            await finish(pilot)
            assert "dry run" in str(panel.border_title)
            view = app.workbench.hold.controller.budget_view()
            assert view.row("tool definitions") is None  # the server ignores them
            notes = static_text(panel.query_one("#budget-notes", Static))
            assert "window 4,096 from llama.cpp server · reserve 300" in notes


async def test_a_toggle_after_a_request_shows_the_dry_run_with_it(app_for: AppFactory) -> None:
    """A skill toggled (or the mode switched) after a request waits for the next message: the
    panel turns to the dry run of that message, the skill's envelope in it."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "hello")
        await finish(pilot)
        panel = screen.budget
        assert "request #" in str(panel.border_title)
        screen.skills.focus()
        await pilot.press("1")
        await finish(pilot)
        assert "dry run" in str(panel.border_title)
        name = screen.hold.controller.skill_rows()[0].name
        assert f"skill · {name}" in _rows_text(panel)
        # The envelope goes after the conversation: the dry run keeps the sent prefix, and
        # the panel says so instead of "nothing sent yet".
        view = screen.hold.controller.budget_view()
        assert view.prefix is not None and view.prefix.first_broken is None
        notes = static_text(panel.query_one("#budget-notes", Static))
        assert f"cache prefix: all {view.prefix.matching} previous messages kept" in notes

        await send(pilot, "again")
        await finish(pilot)
        assert "request #" in str(panel.border_title)
        await pilot.press("shift+tab")
        await finish(pilot)
        assert "dry run" in str(panel.border_title)


def test_figures_of_a_long_session_stay_apart_within_the_width() -> None:
    """A resumed 10,000-message session's conversation, 18,747,328 B and 4,723,193 tokens,
    read "18,747,3284,723,193" in the panel: figures wider than their column ran together."""
    rows = (
        SourceRow("preamble", "preamble", 4_960, 1_241, 0.0),
        SourceRow("conversation", "conversation", 18_747_328, 4_723_193, 1.0),
    )
    lines = format_rows(rows).plain.splitlines()
    assert lines[2].split() == ["conversation", "18,747,328", "4,723,193", "100%"]
    assert {len(line) for line in lines} == {LABEL_WIDTH + 2 * NUMBER_WIDTH + 5}


def test_a_label_takes_the_columns_small_figures_do_not_need() -> None:
    """At 80 columns "context · NOTES.md" went onto a line of its own, its figures on the next,
    while its 64 bytes and 17 tokens left five spare columns each."""
    rows = (
        SourceRow("preamble", "preamble", 4_960, 1_242, 0.9),
        SourceRow("context · NOTES.md", "project_context", 64, 17, 0.1),
    )
    lines = format_rows(rows, swatches=("red", "blue")).plain.splitlines()
    assert len(lines) == 3
    assert lines[2].split() == ["■", "context", "·", "NOTES.md", "64", "17", "10%"]
    assert {len(line) for line in lines} == {LABEL_WIDTH + 2 * NUMBER_WIDTH + 5}
    wide = (SourceRow("a label far too long to fit", "conversation", 18_747_328, 4_723_193, 1.0),)
    assert len(format_rows(wide).plain.splitlines()) == 3  # no room: it takes its own line


async def test_the_ranking_keeps_each_row_on_one_line_with_its_figure_apart() -> None:
    """A 10,000-message session's ranking read "…e steiner_tui/agent273,936 m", and a file
    read 8 times that offers a mask put its ``m`` on a line of its own."""
    items = [
        CostItem("bash", "bash command=ls -la steiner_tui/engine steiner_tui/agent", 273_936,
                 1_000_000, call_ids=("c1",), action="mask"),
        CostItem("file", "steiner_tui/agent/runner.py", 64_522, 250_000, count=8,
                 path="steiner_tui/agent/runner.py", call_ids=("c2",), action="drop_reads"),
    ]  # fmt: skip

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield CostRanking()

    async with Host().run_test(size=(41, 10)) as pilot:
        ranking = pilot.app.query_one(CostRanking)
        ranking.show(items)
        await pilot.pause()
        rows = [str(ranking.get_option_at_index(i).prompt) for i in range(2)]
        assert rows[0].endswith(" 273,936 m") and "agent" in rows[0]
        assert rows[1].endswith(" 64,522 ×8 m")
        assert all(len(row) <= ranking.scrollable_content_region.width for row in rows)


async def test_a_toggle_is_in_force_in_the_sidebar_once_its_message_is_sent(
    app_for: AppFactory,
) -> None:
    """The envelope went with the message: while its reply streams, the sidebar said the skill
    was still "pending on" (and the panel already listed it as sent)."""
    provider = GateProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        screen = app.workbench
        screen.skills.focus()
        await pilot.press("1")
        await pilot.pause()
        assert str(screen.skills.border_subtitle).startswith("1 pending")
        await send(pilot, "hello")
        await provider.reached.wait()
        await pilot.pause()
        assert "pending" not in str(screen.skills.border_subtitle)
        assert str(screen.skills.border_title).startswith("Skills · 1/")
        provider.release.set()
        await finish(pilot)


async def test_the_source_table_is_as_wide_live_as_resumed(project: Path, config_dir: Path) -> None:
    """Live, the table kept the width it was laid out at while the panel had a scrollbar: its
    columns were a character narrower than after a resume."""
    size = (120, 40)
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await send(pilot, "explain README.md")
        await finish(pilot)
        live = _rows_text(app.workbench.budget).splitlines()[0]
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=size) as pilot:
        await finish(pilot)
        assert _rows_text(resumed.workbench.budget).splitlines()[0] == live


async def test_a_health_warning_says_how_many_compaction_stages_the_run_applied(
    app_for: AppFactory,
) -> None:
    """The engine's pinned guidance says "repeated compaction is making retention fragile"
    after a first /compact whose summary was rejected too (one stage): the title says how many
    stages the run applied, so that reads as what it is."""
    messages: list[object] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await finish(pilot)
        guidance = ESCALATION_GUIDANCE["fragile"]
        app.workbench.budget.observe(HealthEvent("warning", "fragile", guidance, stage_count=2))
        app.workbench.budget.observe(HealthEvent("warning", "fragile", guidance, stage_count=1))
        app.workbench.budget.observe(HealthEvent("critical", "over_window", guidance))
        await pilot.pause()
        shown = [
            (m.notification.title, m.notification.message)
            for m in messages
            if isinstance(m, Notify)
        ]
        assert shown == [
            ("Session health · 2 compaction stages in this run", guidance),
            ("Session health · 1 compaction stage in this run", guidance),
            ("Session health", guidance),
        ]
