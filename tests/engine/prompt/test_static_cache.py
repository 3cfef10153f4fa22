"""StaticContextCache: per-partition keys, reload counting, scope drop, invalidation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from steiner_tui.engine.events import EventSink, ListSink, WarningEvent
from steiner_tui.engine.prompt.files import LocalFileReader
from steiner_tui.engine.prompt.project_context import ProjectContextSpec
from steiner_tui.engine.prompt.static_cache import StaticContextCache, StaticPartition
from steiner_tui.engine.skills.discovery import SkillRoot
from steiner_tui.engine.skills.model import Skill


class FakeSkills:
    """A skill loader that counts calls and serves fixed skills."""

    def __init__(self, *names: str) -> None:
        self.calls = 0
        self.skills = tuple(
            Skill(n, f"{n} skill", f"Do {n}.", Path(f"/s/{n}/SKILL.md"), Path("/s"), 8)
            for n in names
        )

    def __call__(self, roots: Sequence[SkillRoot], sink: EventSink) -> Sequence[Skill]:
        self.calls += 1
        return self.skills


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "AGENTS.md").write_text("rules v1", encoding="utf-8")
    (root / "notes.md").write_text("notes v1", encoding="utf-8")
    return root


def test_each_partition_loads_once_for_an_unchanged_key(project: Path) -> None:
    skills = FakeSkills("tdd")
    cache = StaticContextCache(LocalFileReader(), skills)
    spec = ProjectContextSpec(files=("notes.md",))
    roots = (SkillRoot(Path("/s")),)
    sink = ListSink()
    cache.begin_scope("session-1")
    for _ in range(3):
        cache.begin_scope("session-1")
        agents = cache.agents(None, project, sink)
        context = cache.project_context(project, spec, 8000, sink)
        blocks = cache.skills(roots, ("tdd",), sink)
    assert [b.content for b in agents] == ["rules v1"]
    assert [b.content for b in context] == ["notes v1"]
    assert [b.path for b in blocks] == ["", "/s/tdd/SKILL.md"]
    assert blocks[1].content == "## Skill: tdd\n\nDo tdd."
    assert "tdd" in blocks[0].content
    assert {p: cache.loads(p) for p in StaticPartition} == {
        StaticPartition.AGENTS: 1,
        StaticPartition.PROJECT_CONTEXT: 1,
        StaticPartition.SKILLS: 1,
    }
    assert skills.calls == 1


def test_cached_content_stays_byte_stable_until_reloaded(project: Path) -> None:
    cache = StaticContextCache(LocalFileReader())
    first = cache.agents(None, project, ListSink())
    (project / "AGENTS.md").write_text("rules v2", encoding="utf-8")
    assert cache.agents(None, project, ListSink()) is first
    cache.mark_changed(StaticPartition.AGENTS)
    assert cache.agents(None, project, ListSink()) is first
    assert cache.reload_pending() == {StaticPartition.AGENTS}
    assert [b.content for b in cache.agents(None, project, ListSink())] == ["rules v2"]
    assert cache.loads("agents") == 2


def test_a_key_change_reloads_only_its_partition(project: Path) -> None:
    skills = FakeSkills("a", "b")
    cache = StaticContextCache(LocalFileReader(), skills)
    spec = ProjectContextSpec(files=("notes.md",))
    roots = (SkillRoot(Path("/s")),)
    sink = ListSink()

    def touch_all(names: tuple[str, ...], budget: int, s: ProjectContextSpec) -> None:
        cache.agents(None, project, sink)
        cache.project_context(project, s, budget, sink)
        cache.skills(roots, names, sink)

    touch_all(("a",), 8000, spec)
    touch_all(("a", "b"), 8000, spec)
    assert (cache.loads("agents"), cache.loads("project_context"), cache.loads("skills")) == (
        1,
        1,
        2,
    )
    touch_all(("a", "b"), 100, spec)
    touch_all(("a", "b"), 100, ProjectContextSpec(files=("notes.md",), ignore=("x",)))
    assert (cache.loads("agents"), cache.loads("project_context"), cache.loads("skills")) == (
        1,
        3,
        2,
    )
    cache.agents(Path("/nowhere/AGENTS.md"), project, sink)
    assert cache.loads("agents") == 2


def test_a_new_scope_drops_every_partition(project: Path) -> None:
    skills = FakeSkills("a")
    cache = StaticContextCache(LocalFileReader(), skills)
    roots = (SkillRoot(Path("/s")),)
    sink = ListSink()
    spec = ProjectContextSpec(files=("notes.md",))
    for scope in ("one", "one", "two"):
        cache.begin_scope(scope)
        cache.agents(None, project, sink)
        cache.project_context(project, spec, 8000, sink)
        cache.skills(roots, ("a",), sink)
    assert [cache.loads(p) for p in StaticPartition] == [2, 2, 2]


def test_failed_project_context_load_is_not_cached(tmp_path: Path, project: Path) -> None:
    cache = StaticContextCache(LocalFileReader())
    spec = ProjectContextSpec(files=("link.md",))
    (project / "link.md").symlink_to(tmp_path)
    with pytest.raises(ValueError):
        cache.project_context(project, spec, 8000, ListSink())
    (project / "link.md").unlink()
    (project / "link.md").write_text("fixed", encoding="utf-8")
    assert [b.content for b in cache.project_context(project, spec, 8000, ListSink())] == ["fixed"]
    assert cache.loads("project_context") == 1


def test_no_skill_names_means_no_skill_load() -> None:
    skills = FakeSkills("a")
    cache = StaticContextCache(LocalFileReader(), skills)
    assert cache.skills((SkillRoot(Path("/s")),), (), ListSink()) == ()
    assert skills.calls == 0


def test_unknown_skill_name_warns() -> None:
    cache = StaticContextCache(LocalFileReader(), FakeSkills("a"))
    sink = ListSink()
    blocks = cache.skills((SkillRoot(Path("/s")),), ("a", "ghost"), sink)
    assert [b.path for b in blocks] == ["", "/s/a/SKILL.md"]
    [warning] = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert warning.code == "skill_not_found"
    assert "ghost" in warning.message


def test_a_changed_file_waits_until_its_partition_is_reloaded(project: Path) -> None:
    cache = StaticContextCache(LocalFileReader(), FakeSkills())
    sink = ListSink()
    cache.begin_scope("session-1")
    assert [b.content for b in cache.agents(None, project, sink)] == ["rules v1"]
    (project / "AGENTS.md").write_text("rules v2", encoding="utf-8")
    cache.mark_changed(StaticPartition.AGENTS)
    assert cache.pending == {StaticPartition.AGENTS}
    # The key did not change: the prefix keeps its bytes.
    assert [b.content for b in cache.agents(None, project, sink)] == ["rules v1"]
    assert cache.loads(StaticPartition.AGENTS) == 1
    assert cache.reload_pending() == {StaticPartition.AGENTS}
    assert cache.pending == frozenset()
    assert [b.content for b in cache.agents(None, project, sink)] == ["rules v2"]
    assert cache.loads(StaticPartition.AGENTS) == 2


def test_a_key_change_or_a_new_scope_applies_what_was_pending(project: Path) -> None:
    cache = StaticContextCache(LocalFileReader(), FakeSkills())
    sink = ListSink()
    cache.begin_scope("session-1")
    cache.agents(None, project, sink)
    cache.mark_changed(StaticPartition.AGENTS)
    cache.agents(project / "global.md", project, sink)  # another key: reloads
    assert cache.pending == frozenset()
    cache.mark_changed(StaticPartition.PROJECT_CONTEXT)
    cache.begin_scope("session-2")
    assert cache.pending == frozenset()
