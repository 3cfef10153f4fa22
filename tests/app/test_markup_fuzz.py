"""Markup-looking data is shown as the text it is, on every screen and in the CLI (issue 15).

Hypothesis builds strings around Rich/Textual markup (``[/]``, ``[bold``, ``[link=...]``,
``[@click=app.quit]``), unbalanced brackets and escape sequences, and feeds them to the
workbench as a user message, a reply, a tool's summary, path and output, an error, a
notification, a permission request, a skill's name and description, and a session title on the
sessions screen. Nothing may crash, no action may run, and the text shown is the data (control
characters as their visible pictures, see ``app.plain``).
"""

from __future__ import annotations

import ast
import asyncio
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.content import Content
from textual.widgets import DataTable, Markdown

import steiner_tui
from steiner_tui.app.app import SteinerApp
from steiner_tui.app.plain import PlainToasts, one_line, printable
from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.app.screens.sessions import SessionsScreen
from steiner_tui.app.transcript import (
    ErrorEntry,
    NoticeEntry,
    PermissionEntry,
    ReplyEntry,
    ToolEntry,
    UserEntry,
)
from steiner_tui.app.widgets.error_row import ErrorRow
from steiner_tui.app.widgets.notice_row import NoticeRow
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.skill_list import skill_prompt
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.engine.provider import Remedy
from steiner_tui.engine.skills.delta import SkillStatus
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.store import SessionInfo, SessionStore
from steiner_tui.tools.base import PermissionRequest
from tests.app.conftest import AppFactory
from tests.app.helpers import said, send, static_text

NASTY = (
    "[/]",
    "[bold",
    "[bold]x[/bold]",
    "[link=https://example.invalid]x[/link]",
    "[@click=app.quit]quit[/]",
    "[@click=screen.answer_permission]",
    "]]][[[",
    "[$text-error]red",
    "\\[escaped]",
    "\x1b[31mred\x1b[0m",
    "\x1b]52;c;SGVsbG8=\x07",  # OSC 52: the clipboard
    "\x9b2J\x9d0;title\x9c",  # C1 CSI and OSC
    "__all__ **bold** `code`",
)
markupish = st.one_of(
    st.sampled_from(NASTY),
    st.builds(
        lambda a, b, c: a + b + c,
        st.text(alphabet="ab []/=@", max_size=6),
        st.sampled_from(NASTY),
        st.text(alphabet="xy []\\", max_size=6),
    ),
).filter(lambda s: s.strip() != "")
FUZZ = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _plain(visual: object) -> str:
    assert isinstance(visual, Content)
    return visual.plain


@FUZZ
@given(data=markupish)
def test_every_conversation_item_shows_the_data_as_text(app_for: AppFactory, data: str) -> None:
    asyncio.run(_conversation(app_for, data))


async def _conversation(app_for: AppFactory, data: str) -> None:
    app = app_for()
    shown = printable(data)
    async with app.run_test(size=(200, 50), notifications=True) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        request = PermissionRequest(tool="bash", summary=data, arguments={"command": data})
        entries = [
            UserEntry(data, (data,)),
            ReplyEntry(data),
            ToolEntry("c1", "read", f"read {data}", "done", data, {"path": data}),
            ToolEntry("c2", "bash", data, "failed", data),
            ErrorEntry("provider", data, (Remedy("retry", data),), "F5"),
            NoticeEntry(data),
            PermissionEntry(request, lambda decision: None),
        ]
        await pane.load(entries)
        app.notify(data, title=data, markup=False)
        await pilot.pause()
        assert shown in static_text(pane.query_one(UserMessage))
        reply = pane.query_one(Markdown)
        assert reply.source == printable(data)
        blocks = list(pane.query(ToolBlock))
        blocks[0].action_toggle_output()
        await pilot.pause()
        assert shown in static_text(blocks[0]) and shown in static_text(blocks[1])
        assert static_text(pane.query_one(ErrorRow)).count(shown) >= 2
        assert shown in static_text(pane.query_one(NoticeRow))
        prompt = pane.query_one(PermissionPrompt)
        assert shown in prompt.text.plain and prompt.is_open
        await pilot.pause()
        toasts = list(app.screen.query("Toast"))
        assert toasts and all(shown in _plain(t.render()) for t in toasts)
        assert app.is_running  # no [@click=app.quit] ran
        drawn = app.export_screenshot()  # what the screen holds, every widget rendered
        assert not any(ch in drawn for ch in "\x1b\x07\x9b\x9c\x9d"), "a control was drawn"


@FUZZ
@given(name=markupish, description=markupish)
def test_a_skill_row_shows_its_name_as_text(name: str, description: str) -> None:
    row = SkillStatus(name, description, 10, False, "inactive")
    assert printable(name) in skill_prompt(1, row).plain


@FUZZ
@given(title=markupish)
def test_the_sessions_screen_shows_titles_as_text(title: str) -> None:
    asyncio.run(_sessions(title))


async def _sessions(title: str) -> None:
    from textual.app import App

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SessionsScreen(SessionStore(Path("/nonexistent-sessions"))))

    app = Host()
    async with app.run_test(size=(200, 30)) as pilot:
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        at = datetime(2026, 1, 1, tzinfo=UTC)
        meta = SessionMeta(session_id="s1", title=title, project_root=title, created=at)
        broken = SessionMeta(session_id="s2", created=at)
        rows = [SessionInfo(meta, Path("/x")), SessionInfo(broken, Path("/y"), problem=title)]
        screen.show_rows(rows)
        await pilot.pause()
        table = screen.query_one("#sessions", DataTable)
        assert str(table.get_row_at(0)[-1]) == one_line(title)
        assert str(table.get_row_at(1)[-1]) == f"[{one_line(title)}]"
        assert str(table.get_row_at(0)[1]) == one_line(title)
        assert app.is_running


async def test_a_steering_command_s_error_shows_its_argument_as_text(app_for: AppFactory) -> None:
    """``/pin``, ``/unpin``, ``/compaction`` and ``/whatif`` name a wrong argument in the
    conversation: the argument is the person's text, shown as typed (a ``[@click=...]`` in it
    runs nothing)."""
    app = app_for()
    messages: list[object] = []
    async with app.run_test(
        size=(200, 50), notifications=True, message_hook=messages.append
    ) as pilot:
        await pilot.pause()
        for command in ("pin", "unpin", "compaction", "whatif"):
            messages.clear()
            await send(pilot, f"/{command} [b]y[/b][@click=app.quit]z[/]")
            await pilot.pause()
            texts = [t for t in said(app) if "[b]y" in t]
            assert texts, command
            rows = [static_text(row) for row in app.workbench.query(NoticeRow)]
            assert any("[b]y[/b][@click=app.quit]z[/]" in row for row in rows), command
        assert app.is_running


def test_every_notification_of_the_app_is_plain_text() -> None:
    """What a toast shows is data (a path, an id, a person's argument), never markup: both
    apps' ``notify`` (``plain.PlainToasts``, the one place) forwards ``markup=False`` whatever
    a caller passes, and no call in the app asks for markup."""
    package = Path(steiner_tui.__file__).parent
    asking = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr != "notify" or isinstance(node.func.value, ast.Call):
                continue  # super().notify(...): the one forwarding call
            if any(k.arg == "markup" for k in node.keywords):
                asking.append(f"{path.relative_to(package)}:{node.lineno}")
    assert asking == []
    assert issubclass(SteinerApp, PlainToasts) and issubclass(ReadOnlyApp, PlainToasts)
