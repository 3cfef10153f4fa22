"""Start-up: a deferred session opens after the first frame.

A launch makes the app with ``defer_open``: the workbench draws from the request alone, builds
the session right after its first frame, and only then lists skills, fills the context panel and
enables its keys.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import msgspec
import pytest
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.messages import WorkbenchReady
from steiner_tui.app.session import OFFLINE_LABEL, planned_model_label
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.app.workbench_session import SessionOpenFailed
from steiner_tui.config import Config, ConfigError, parse_config
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.resume import find_session
from tests.app.conftest import SESSION_DATE, SIZE, request_for
from tests.app.helpers import finish, send, static_text


class _Watching(ManualClock):
    """A clock that notes the workbench's state when the session's build first asks the time."""

    app: list[SteinerApp] = msgspec.field(default_factory=list)
    seen: dict[str, object] = msgspec.field(default_factory=dict)

    def now(self) -> datetime:
        if not self.seen and self.app:
            app = self.app[0]
            screen = app.workbench
            self.seen.update(
                attached=screen.hold.attached,
                laid_out=screen.status.size.width > 0,
                project=screen.status.project,
                model=screen.status.model,
                skills=str(screen.skills.border_title),
                mode_key=screen.check_action("toggle_mode", ()),
                lineage_key=app.check_action("lineage", ()),
                palette_key=app.check_action("command_palette", ()),
            )
        return super().now()


async def test_a_deferred_session_opens_after_the_first_frame(
    project: Path, config_dir: Path
) -> None:
    seen: dict[str, object] = {}
    holder: list[SteinerApp] = []
    request = msgspec.structs.replace(
        request_for(project, config_dir),
        clock=_Watching(SESSION_DATE, holder, seen),
        session_date=None,
    )
    app = make_app(request, defer_open=True)
    holder.append(app)
    assert not app.workbench.hold.attached
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert seen == {
            "attached": False,
            "laid_out": True,
            "project": project.name,
            "model": OFFLINE_LABEL,
            "skills": "Skills",  # no rows yet
            "mode_key": None,  # shown dimmed, does nothing
            "lineage_key": None,
            "palette_key": None,
        }
        screen = app.workbench
        assert screen.hold.attached and app.session is screen.hold.session
        assert screen.status.model == OFFLINE_LABEL
        rows = screen.hold.controller.skill_rows()
        assert rows and all(screen.skills.get_option(row.name).prompt for row in rows)
        assert str(screen.skills.border_title).startswith("Skills · ")
        assert screen.prompt.has_focus
        assert screen.check_action("toggle_mode", ()) is True
        await pilot.press("shift+tab")
        assert screen.status.mode == "plan"


async def test_typing_ahead_while_the_session_opens_reaches_the_prompt_whole(
    project: Path, config_dir: Path
) -> None:
    app = make_app(request_for(project, config_dir), defer_open=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"What does")  # before and while the session opens
        await pilot.pause()
        await pilot.press(*" this do?")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.workbench
        assert screen.hold.attached
        assert screen.prompt.text == "What does this do?"
        assert screen.prompt.has_focus


async def test_the_budget_panel_fills_once_the_deferred_session_opens(
    project: Path, config_dir: Path
) -> None:
    app = make_app(request_for(project, config_dir), defer_open=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # the dry run is assembled in a worker
        await pilot.pause()
        panel = app.workbench.budget
        assert "dry run" in str(panel.border_title)
        assert "preamble" in static_text(panel.query_one("#budget-rows", Static))


async def test_a_new_sessions_panel_is_drawn_as_a_dry_run_from_the_first_frame(
    project: Path, config_dir: Path
) -> None:
    """Its first figures are a dry run: the panel has the dry run's class from the first
    frame, so the figures add no class (which would restyle the panel and its widgets)."""
    app = make_app(request_for(project, config_dir), defer_open=True)
    first: list[bool] = []

    def hook(message: Message) -> None:
        if isinstance(message, events.Resize) and not first and app.workbench.is_mounted:
            first.append(app.workbench.budget.has_class("-preview"))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = app.workbench.budget
        assert first == [True]
        assert "dry run" in str(panel.border_title) and panel.has_class("-preview")
        panel.show_error("no request")
        assert not panel.has_class("-preview")  # an error is no dry run


@pytest.mark.parametrize(
    ("width", "width_class"), [(80, "-narrow"), (120, "-medium"), (160, "-wide")]
)
async def test_the_first_frame_is_laid_out_as_the_workbench_stays(
    project: Path, config_dir: Path, width: int, width_class: str
) -> None:
    """When Textual first resizes the screen (after drawing it once) the width class, the
    focused prompt and the welcome at the bottom are already there: no later frame restyles
    the whole screen or moves the welcome for them. The session is open by then too: it opens
    right after the first frame, without waiting for another."""
    app = make_app(request_for(project, config_dir), defer_open=True)
    seen: list[tuple[set[str], bool, bool, bool]] = []

    def hook(message: Message) -> None:
        screen = app.workbench
        if isinstance(message, events.Resize) and not seen and screen.is_mounted:
            classes = {name for name in ("-narrow", "-medium", "-wide") if screen.has_class(name)}
            pane = screen.conversation
            welcome = pane.query_one("#welcome").region
            at_bottom = welcome.bottom == pane.content_region.bottom
            seen.append((classes, screen.focused is screen.prompt, at_bottom, screen.hold.attached))

    async with app.run_test(size=(width, 36), message_hook=hook) as pilot:
        await pilot.pause()
        assert seen == [({width_class}, True, True, True)]
        assert app.workbench.has_class(width_class)  # Textual's own choice is the same


class _BeforeOpening(ManualClock):
    """A clock that notes what is mounted when the session's build first asks the time."""

    app: list[SteinerApp] = msgspec.field(default_factory=list)
    seen: list[tuple[bool, int]] = msgspec.field(default_factory=list)

    def now(self) -> datetime:
        if not self.seen and self.app:
            screen = self.app[0].workbench
            self.seen.append((screen.skills.parent is not None, len(screen.budget.children)))
        return super().now()


@pytest.mark.parametrize(("width", "docked"), [(120, False), (160, True)])
async def test_the_first_frame_mounts_what_it_shows(
    project: Path, config_dir: Path, width: int, docked: bool
) -> None:
    """Before the session opens, the context panel is its border and title (its parts mount
    with its first view) and the skills sidebar is mounted only where the width docks it. Once
    the session is open both are filled, the sidebar in its place before the conversation (the
    focus order); F9 shows it where it is not docked."""
    holder: list[SteinerApp] = []
    clock = _BeforeOpening(SESSION_DATE, holder)
    request = msgspec.structs.replace(
        request_for(project, config_dir), clock=clock, session_date=None
    )
    app = make_app(request, defer_open=True)
    holder.append(app)
    async with app.run_test(size=(width, 36)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert clock.seen == [(docked, 0)]
        screen = app.workbench
        assert "dry run" in str(screen.budget.border_title)
        assert "preamble" in static_text(screen.budget.query_one("#budget-rows", Static))
        children = list(screen.children)
        assert children.index(screen.skills) == children.index(screen.conversation) - 1
        assert str(screen.skills.border_title).startswith("Skills · ")
        assert screen.skills.display == docked
        if not docked:
            await pilot.press("f9")
            await pilot.pause()
            assert screen.skills.display and app.focused is screen.skills


async def test_start_up_ends_once_the_context_panel_shows_its_dry_run(
    project: Path, config_dir: Path
) -> None:
    app = make_app(request_for(project, config_dir), defer_open=True)
    titles: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, WorkbenchReady):
            titles.append(str(app.workbench.budget.border_title))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        while not titles:
            await pilot.pause()
        assert "dry run" in titles[0]


async def test_a_session_that_cannot_open_ends_the_app_with_its_error(
    project: Path, config_dir: Path
) -> None:
    request = request_for(project, config_dir, record=True, resume="nosuch")
    app = make_app(request, defer_open=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    assert isinstance(app.return_value, SessionOpenFailed)
    assert "nosuch" in app.return_value.error
    assert app.opened_session is None


def test_the_planned_label_names_the_model_and_checks_its_provider(project: Path) -> None:
    def label(config: Config, env: dict[str, str]) -> str:
        return planned_model_label(SessionRequest(project, config, env=env))

    assert label(Config(), {}) == OFFLINE_LABEL
    config = parse_config([("c", {"default_model": "anthropic/claude-sonnet-4-6"})])
    assert label(config, {"ANTHROPIC_API_KEY": "sk-test"}) == config.default_model
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        label(config, {})
    with pytest.raises(ConfigError, match="unknown provider 'nowhere'"):
        label(parse_config([("c", {"default_model": "nowhere/x"})]), {})


async def saved_session(project: Path, config_dir: Path, text: str) -> LoadedSession:
    """A recorded session that sent ``text`` and got its reply, closed and loaded again."""
    first = make_app(request_for(project, config_dir, record=True))
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, text)
        await finish(pilot)
    first.session.close()
    return find_session(project, "latest", config_dir / "sessions")


async def test_a_resumed_session_shows_its_own_state_from_the_first_frame(
    project: Path, config_dir: Path
) -> None:
    """The welcome of a new session showed until the resumed conversation was read (0.4 s
    with 10,000 messages): from the first frame the conversation says which session loads and
    how many messages; the welcome never shows."""
    loaded = await saved_session(project, config_dir, "what is in [bold]this[/bold] project?")
    app = make_app(request_for(project, config_dir, record=True, resume=loaded), defer_open=True)
    shown: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, events.Resize) and not shown and app.workbench.is_mounted:
            pane = app.workbench.conversation
            welcome = pane.query_one("#welcome", Static)
            shown.append(static_text(welcome) if welcome.display else "")

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        count = len(loaded.as_logged)
        assert shown == [
            f"Loading {count} messages of session {loaded.session_id}: "
            "what is in [bold]this[/bold] project?…"
        ]
        pane = app.workbench.conversation
        assert pane.entries and not pane.query_one("#welcome").display


async def test_a_resumed_sessions_dry_run_waits_for_its_conversation(
    project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel's dry run (a thread) started with the conversation's mounting and took the
    interpreter from it: text typed at the first frame of a 10,000-message resume showed 0.3 s
    later."""
    loaded = await saved_session(project, config_dir, "what is in this project?")
    app = make_app(request_for(project, config_dir, record=True, resume=loaded), defer_open=True)
    shown: list[int] = []
    refresh = BudgetPanel.refresh_figures

    def noted(panel: BudgetPanel) -> None:
        shown.append(len(app.workbench.conversation.query(UserMessage)))
        refresh(panel)

    monkeypatch.setattr(BudgetPanel, "refresh_figures", noted)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert shown and shown[0] == 1


async def test_a_resumed_sessions_dry_run_starts_after_the_frame_that_draws_it(
    project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started once the conversation was mounted but before the frame that draws it, the dry
    run's thread still took the interpreter from that frame (text typed at the first frame of
    a 10,000-message resume showed about 80 ms later)."""
    loaded = await saved_session(project, config_dir, "what is in this project?")
    app = make_app(request_for(project, config_dir, record=True, resume=loaded), defer_open=True)
    events: list[str] = []
    show, draw, refresh = (
        ConversationPane.show_session,
        Widget.render_lines,
        BudgetPanel.refresh_figures,
    )

    async def shown(pane: ConversationPane, session: Session) -> None:
        await show(pane, session)
        events.append("shown")

    def drawn(widget: Widget, crop: Region) -> list[Strip]:
        if events and events[-1] == "shown":
            events.append("drawn")
        return draw(widget, crop)

    def dry_run(panel: BudgetPanel) -> None:
        events.append("dry run")
        refresh(panel)

    monkeypatch.setattr(ConversationPane, "show_session", shown)
    monkeypatch.setattr(Widget, "render_lines", drawn)
    monkeypatch.setattr(BudgetPanel, "refresh_figures", dry_run)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert events[:3] == ["shown", "drawn", "dry run"]


async def test_the_filesystem_root_as_the_project_is_named_in_the_status_line(
    config_dir: Path,
) -> None:
    """Opened at ``/``, the status line named no project: the root's name is empty."""
    app = make_app(request_for(Path("/"), config_dir))
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert app.workbench.status.project == "/"
