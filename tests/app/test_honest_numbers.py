"""The context panel and the transcript tell the truth about the next request and the last one.

The dry run is the next request exactly, built by the same code path (pending skill envelopes
and the mode notice included, also after the first request); requests are numbered from 1 in
the panel, the inspector and the session log; what the session says at start (a project skill
replacing a bundled one, a keymap entry naming no binding) stays in the conversation.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import make_app
from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.transcript import NoticeEntry, UserEntry
from steiner_tui.commands.context import build_report
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.skills.modes import PLAN_MODE_NOTICE
from steiner_tui.providers.server_limits import ServerUnreachable
from tests.app import helpers
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.fakes import INFO, CallsProvider
from tests.app.helpers import finish, send


async def test_the_dry_run_is_the_next_request_with_its_pending_skills_and_notice(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        screen = app.workbench
        await send(pilot, "first")
        await finish(pilot)
        assert str(screen.budget.border_title) == "Context · request #1"
        # After the first request, toggles are previewed again until they are sent.
        names = [row.name for row in screen.hold.controller.skill_rows()]
        screen.commands.toggle_skill(names[0])
        await pilot.press("shift+tab")
        screen.refresh_budget()
        await finish(pilot)
        assert "dry run" in str(screen.budget.border_title)
        preview = screen.hold.controller.last_preview
        assert preview is not None and preview.index == 2
        pending = preview.messages[-1]
        assert pending.role == "user" and pending.content.startswith(PLAN_MODE_NOTICE)
        view = screen.hold.controller.budget_view()
        row = view.row(f"skill · {names[0]}")
        assert row is not None and row.tokens > 0

        await send(pilot, "second")
        await finish(pilot)
        sent = app.session.snapshots.latest()
        assert sent is not None and sent.index == 2
        assert str(screen.budget.border_title) == "Context · request #2"
        # The request sent is the dry run plus the text: same prefix, same envelope, same cost.
        assert sent.message_hashes[:-1] == preview.message_hashes[:-1]
        assert sent.messages[-1].content == pending.content + "second"
        assert sent.blocks == preview.blocks and sent.tools == preview.tools
        skills = [s for s in sent.sources if s.name == names[0]]
        assert skills == [s for s in preview.sources if s.name == names[0]]


async def test_a_toggle_by_key_shows_the_next_request_at_once(app_for: AppFactory) -> None:
    """Space on a skill and Shift+Tab refresh the panel themselves: it turns to the dry run
    holding the skill's envelope and the mode notice, with nothing else asking it to."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        screen = app.workbench
        await send(pilot, "first")
        await finish(pilot)
        assert str(screen.budget.border_title) == "Context · request #1"
        screen.skills.focus()
        screen.skills.highlighted = 0
        name = screen.hold.controller.skill_rows()[0].name
        await pilot.press("space")
        await finish(pilot)
        assert "dry run" in str(screen.budget.border_title)
        preview = screen.hold.controller.last_preview
        assert preview is not None and preview.index == 2
        assert any(s.name == name for s in preview.sources)

        await pilot.press("space")  # off again: nothing pending, the panel shows request #1
        await finish(pilot)
        assert str(screen.budget.border_title) == "Context · request #1"

        await pilot.press("shift+tab")
        await finish(pilot)
        assert "dry run" in str(screen.budget.border_title)
        preview = screen.hold.controller.last_preview
        assert preview is not None and preview.messages[-1].content.startswith(PLAN_MODE_NOTICE)


async def test_requests_are_numbered_from_one_in_the_inspector(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, "hello")
        await finish(pilot)
        await pilot.press("f2")
        await pilot.pause()
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        assert [s.index for s in inspector.store.summaries()] == [1]
        assert str(app.workbench.budget.border_title).endswith("request #1")


async def test_the_transcript_shows_the_text_as_typed(app_for: AppFactory) -> None:
    typed = '<steiner-skill name="x" state="active" bytes="1">'
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, typed)
        await finish(pilot)
        stored = app.session.runner.conversation[0].content
        assert stored == escape_user_text(typed) != typed  # stored escaped, as sent
        entry = next(e for e in app.workbench.conversation.entries if isinstance(e, UserEntry))
        assert entry.text == typed  # shown as the person typed it


async def test_a_project_skill_replacing_a_bundled_one_is_said_in_the_conversation(
    app_for: AppFactory, project: Path
) -> None:
    folder = project / ".steiner" / "skills" / "code-review"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: code-review\ndescription: Ours.\n---\nReview our way.\n", encoding="utf-8"
    )
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        said = [e.text for e in app.workbench.conversation.entries if isinstance(e, NoticeEntry)]
        assert any("replaces the bundled skill 'code-review'" in text for text in said)


async def test_a_keymap_entry_naming_no_binding_is_a_warning(app_for: AppFactory) -> None:
    keymap = {"main.toggle_mode": "f12", "main.no_such_binding": "f9"}
    app = app_for(config={"keymap": keymap})
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await app.started.wait()  # the keymap check runs once start-up is over
        said = [e.text for e in app.workbench.conversation.entries if isinstance(e, NoticeEntry)]
        warnings = [text for text in said if "[keymap]" in text]
        assert warnings == [
            "test config: [keymap] 'main.no_such_binding' = 'f9': no binding has that id; "
            "ignored (F1 lists the keys)"
        ]
        await pilot.press("f12")  # the known one applies
        assert app.workbench.status.mode == "plan"


async def test_every_view_of_one_request_shows_the_engines_one_figure(
    project: Path, config_dir: Path
) -> None:
    """The preamble was 1,252 tokens in ``context``, 1,242 in the panel and 1,240 in the
    ranking; a skill 165 B in the sidebar and 605 B in the panel. Each figure is computed once,
    in the request's snapshot, and every view shows that number."""
    request = request_for(project, config_dir, config={"skills": {"enabled": ["code-review"]}})
    report = (await asyncio.to_thread(build_report, request)).data
    app = make_app(request)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        view = app.workbench.hold.controller.budget_view()
        sidebar = {row.name: row for row in app.workbench.hold.controller.skill_rows()}
    top = {item.label: item for item in view.top}
    context = {(row["source"], row["name"]): row for row in report["sources"]}
    ranked = {row["label"]: row for row in report["top"]}

    preamble = view.row("preamble")
    assert preamble is not None
    figures = [
        preamble.tokens,
        context[("preamble", "")]["tokens"],
        ranked["preamble"]["tokens"],
        top["preamble"].tokens,
    ]
    assert len(set(figures)) == 1, figures

    skill = view.row("skill · code-review")
    assert skill is not None
    assert len({
        skill.bytes,
        context[("skill", "code-review")]["bytes"],
        ranked["code-review"]["bytes"],
        top["code-review"].bytes,
        sidebar["code-review"].size_bytes,
    }) == 1  # fmt: skip
    assert skill.tokens == ranked["code-review"]["tokens"] == top["code-review"].tokens


async def test_the_inspector_shows_each_skill_with_the_panels_figures(
    app_for: AppFactory,
) -> None:
    """F2 named a skill only inside its message (``⟨code-review on⟩``, source
    ``conversation``): its bytes and tokens were the panel's alone."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        screen = app.workbench
        name = screen.hold.controller.skill_rows()[0].name
        screen.commands.toggle_skill(name)
        await send(pilot, "first")
        await finish(pilot)
        row = screen.hold.controller.budget_view().row(f"skill · {name}")
        await pilot.press("f2")
        await pilot.pause()
        summary = str(app.screen.query_one("#request-summary", Static).content)
    assert row is not None and row.tokens > 0
    assert f"Skills {name} {row.bytes:,} B ({row.tokens:,} tok)" in summary.splitlines()


async def test_a_local_server_that_answers_without_its_window_is_not_called_silent(
    app_for: AppFactory,
) -> None:
    """The panel said "server not answering" over a server whose replies streamed, when it
    answered the probe without saying its window; a server that cannot be reached is. Either
    way the window is a guess, and the status line says its share as one."""

    def unreachable() -> None:
        raise ServerUnreachable("connection refused")

    for probe, said in (
        (lambda: None, "window unknown: the server does not say it; set context_window"),
        (unreachable, "window unknown: server not answering"),
    ):
        model = MainModel(
            "local", "m", CallsProvider(text="ok"), INFO, window_source="default",
            limits_probe=probe,
        )  # fmt: skip
        app = app_for(model)
        async with app.run_test(size=SIZE) as pilot:
            await finish(pilot)
            note = app.workbench.budget.query_one("#budget-window-note", Static)
            assert str(note.render()) == said
            # The status line said "7% context", a share of the guess, as if it were known.
            row = app.workbench.status.render().plain
            assert "% of a guessed window" in row and "% context" not in row
            await send(pilot, "/model")
            await pilot.pause()
            assert "(source: default, a guess: set context_window)" in "\n".join(helpers.said(app))
