"""Live files: a change waits for the next compaction or ctrl+r, then reloads only its partition."""

from __future__ import annotations

from pathlib import Path

from watchfiles import Change

from steiner_tui.app.app import SteinerApp
from steiner_tui.app.live_files import WatchPlan, classify_change
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.prompt.pending_reload import PendingReload
from steiner_tui.engine.prompt.static_cache import StaticPartition
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, notices, send


def _agents_block(snapshot: object) -> str:
    assert isinstance(snapshot, RequestSnapshot)
    return next(b.content for b in snapshot.blocks if b.source == "project_agents_md")


async def test_an_agents_change_waits_and_ctrl_r_reloads_only_agents(
    app_for: AppFactory, project: Path
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "hello")
        await finish(pilot)
        sent = app.session.snapshots.snapshot(1)
        assert sent is not None and "Keep answers short." in _agents_block(sent)
        cache = app.session.driver.runner.context.cache
        before = {p: cache.loads(p) for p in StaticPartition}

        agents = project / "AGENTS.md"
        agents.write_text("# Agent instructions\n\n- Answer in French.\n", encoding="utf-8")
        changed = screen.files.apply({(Change.modified, str(agents))})
        assert changed == {"agents"}
        # Pending: the next request keeps the cached prefix byte for byte.
        await send(pilot, "again")
        await finish(pilot)
        latest = app.session.snapshots.latest()
        assert latest is not None and _agents_block(latest) == _agents_block(sent)
        assert {p: cache.loads(p) for p in StaticPartition} == before
        pending = screen.hold.controller.pending_reload()
        assert pending is not None and pending.label == "AGENTS.md"
        # AGENTS.md sits in the first system message: reloading re-sends the whole prompt.
        assert pending.break_index == 0 and pending.resent_tokens > 0
        assert screen.status.pending_reload == pending.short
        assert f"~{pending.resent_tokens:,} tok re-sent" in pending.short

        await pilot.press("ctrl+r")
        await pilot.pause()
        assert screen.status.pending_reload == ""
        await send(pilot, "once more")
        await finish(pilot)
        after = {p: cache.loads(p) for p in StaticPartition}
        assert after[StaticPartition.AGENTS] == before[StaticPartition.AGENTS] + 1
        assert after[StaticPartition.SKILLS] == before[StaticPartition.SKILLS]
        assert after[StaticPartition.PROJECT_CONTEXT] == before[StaticPartition.PROJECT_CONTEXT]
        latest = app.session.snapshots.latest()
        assert latest is not None and "Answer in French." in _agents_block(latest)
        kept = app.session.snapshots.snapshot(1)
        assert kept is not None and _agents_block(kept) == _agents_block(sent)


async def test_the_next_compaction_applies_a_pending_change(
    app_for: AppFactory, project: Path
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        for text in ("one", "two", "three", "four"):
            await send(pilot, text)
            await finish(pilot)
        agents = project / "AGENTS.md"
        agents.write_text("# Agent instructions\n\n- Answer in French.\n", encoding="utf-8")
        screen.files.apply({(Change.modified, str(agents))})
        assert screen.status.pending_reload
        await send(pilot, "/compact")
        await finish(pilot)
        assert len(app.session.driver.lineage.generations) == 2
        assert screen.status.pending_reload == ""
        assert not app.session.driver.runner.context.pending_reloads
        await send(pilot, "after")
        await finish(pilot)
        latest = app.session.snapshots.latest()
        assert latest is not None and "Answer in French." in _agents_block(latest)


async def test_new_skill_folder_refreshes_the_sidebar(app_for: AppFactory, project: Path) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        folder = project / ".steiner" / "skills" / "docs-style"
        folder.mkdir()
        skill = folder / "SKILL.md"
        skill.write_text(
            "---\nname: docs-style\ndescription: d\n---\nWrite plainly.\n", encoding="utf-8"
        )
        changed = screen.files.apply({(Change.added, str(skill))})
        await pilot.pause()
        assert changed == {"skills"}
        assert "docs-style" in [row.name for row in screen.hold.controller.skill_rows()]
        assert screen.skills.get_option("docs-style").prompt


async def test_a_broken_skill_is_said_once_not_on_every_rescan(
    app_for: AppFactory, project: Path
) -> None:
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await finish(pilot)
        screen = app.workbench
        skills = project / ".steiner" / "skills"
        broken = skills / "broken" / "SKILL.md"
        broken.parent.mkdir(parents=True)

        def rescan(path: Path) -> None:
            screen.files.apply({(Change.modified, str(path))})

        def warned() -> list[str]:
            entries = screen.conversation.entries
            return [e.text for e in entries if isinstance(e, NoticeEntry) and e.kind == "warning"]

        broken.write_text("no front matter\n", encoding="utf-8")
        rescan(broken)
        await finish(pilot)
        said = [text for text in notices(messages) if "no front matter" in text]
        assert said == [f"skipped {broken}: no front matter (--- ... ---)"]
        assert warned() == said  # listed in the conversation, as the start's warnings are

        other = skills / "other" / "SKILL.md"
        other.parent.mkdir()
        for _ in range(3):  # the watcher rescans for another skill's edits
            other.write_text("---\nname: other\ndescription: d\n---\nBody.\n", encoding="utf-8")
            rescan(other)
            await finish(pilot)
        assert [t for t in notices(messages) if "no front matter" in t] == said
        assert warned() == said

        broken.write_text("---\nname: broken\ndescription: d\n---\nFixed.\n", encoding="utf-8")
        rescan(broken)
        broken.write_text("broken again\n", encoding="utf-8")
        rescan(broken)
        await finish(pilot)
        assert [t for t in notices(messages) if "no front matter" in t] == [*said, *said]
        assert warned() == [*said, *said]


async def test_a_change_before_anything_was_sent_applies_at_once(
    app_for: AppFactory, project: Path
) -> None:
    """Nothing is cached before the first request: a context file or AGENTS.md edited then is
    the first request's (the panel's preview follows at once), with no Ctrl+R to press."""
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = app.workbench
        row = screen.hold.controller.budget_view().row("context · NOTES.md")
        assert row is not None
        notes = project / "NOTES.md"
        notes.write_text("# Notes\n" + "more text " * 20, encoding="utf-8")
        changed = screen.files.apply({(Change.modified, str(notes))})
        assert changed == {"project_context"}
        assert screen.hold.controller.pending_reload() is None
        assert screen.status.pending_reload == "" and not screen.pending_reload
        grown = screen.hold.controller.budget_view().row("context · NOTES.md")
        assert grown is not None and grown.bytes > row.bytes
        await pilot.pause()
        assert (
            "project context changed on disk: your next message has it (nothing was sent yet)"
            in notices(messages)
        )
        agents = project / "AGENTS.md"
        agents.write_text("# Agent instructions\n\n- Answer in French.\n", encoding="utf-8")
        screen.files.apply({(Change.modified, str(agents))})
        await send(pilot, "hello")
        await finish(pilot)
        sent = app.session.snapshots.snapshot(1)
        assert sent is not None and "Answer in French." in _agents_block(sent)
        # Once a request went out, a change waits again (its cached prefix is kept).
        agents.write_text("# Agent instructions\n\n- Answer in German.\n", encoding="utf-8")
        screen.files.apply({(Change.modified, str(agents))})
        pending = screen.hold.controller.pending_reload()
        assert pending is not None and pending.label == "AGENTS.md"
        assert pending.break_index == 0
        assert screen.files.apply({(Change.modified, str(project / "README.md"))}) == set()


def test_classify_change(tmp_path: Path) -> None:
    plan = WatchPlan(
        agents_files=(tmp_path / "AGENTS.md",),
        context_files=(tmp_path / "NOTES.md",),
        skill_roots=(tmp_path / "skills",),
    )
    assert classify_change(plan, tmp_path / "AGENTS.md") is StaticPartition.AGENTS
    assert classify_change(plan, tmp_path / "NOTES.md") is StaticPartition.PROJECT_CONTEXT
    assert classify_change(plan, tmp_path / "skills" / "x" / "SKILL.md") is StaticPartition.SKILLS
    assert classify_change(plan, tmp_path / "other.md") is None
    (tmp_path / "skills").mkdir()
    assert plan.root_dirs() == (tmp_path / "skills",)
    assert plan.file_dirs() == (tmp_path,)


async def test_a_resumed_session_keeps_a_change_pending(app_for: AppFactory, project: Path) -> None:
    """A resumed session sent to this model before: its prefix may still be cached, so a change
    waits for the next compaction or Ctrl+R as in the session that sent it, and what reloading
    re-sends is counted as there: it was said without a figure ("the earlier run's cache")."""
    agents = project / "AGENTS.md"
    before = agents.read_text(encoding="utf-8")
    app = app_for(record=True)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await finish(pilot)
        agents.write_text("# Agent instructions\n\n- Answer in French.\n", encoding="utf-8")
        app.workbench.files.apply({(Change.modified, str(agents))})
        sending = app.workbench.hold.controller.pending_reload()
        assert sending is not None and sending.break_index == 0 and sending.resent_tokens
        agents.write_text(before, encoding="utf-8")
    pending = await _pending_once_resumed(app_for, agents)
    assert (pending.break_index, pending.resent_tokens) == (0, sending.resent_tokens)
    assert pending.short.endswith(f"reload now: ~{sending.resent_tokens:,} tok re-sent")


async def test_a_resumed_session_whose_conversation_changed_says_no_figure(
    app_for: AppFactory, project: Path
) -> None:
    """When the conversation is no longer the one the earlier run sent (here its AGENTS.md was
    edited while the app was closed), no figure is given rather than a wrong one."""
    async with app_for(record=True).run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await finish(pilot)
    agents = project / "AGENTS.md"
    agents.write_text("# Agent instructions\n\n- Answer in German.\n", encoding="utf-8")
    pending = await _pending_once_resumed(app_for, agents)
    assert pending.break_index is None
    assert pending.short.endswith("reload now: the earlier run's cache re-sent")


async def _pending_once_resumed(app_for: AppFactory, agents: Path) -> PendingReload:
    """The pending reload the latest session shows, resumed, once ``agents`` changes."""
    resumed = app_for(record=True, resume="latest")
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return _changed(resumed, agents)


def _changed(resumed: SteinerApp, agents: Path) -> PendingReload:
    agents.write_text("# Agent instructions\n\n- Answer in French.\n", encoding="utf-8")
    resumed.workbench.files.apply({(Change.modified, str(agents))})
    pending = resumed.workbench.hold.controller.pending_reload()
    assert pending is not None and pending.label == "AGENTS.md"
    assert resumed.workbench.status.pending_reload == pending.short
    return pending
