"""The bundled skills load cleanly and are real workflows."""

from __future__ import annotations

from steiner_tui.engine.events import ListSink
from steiner_tui.engine.skills.discovery import discover_skills, skill_roots
from steiner_tui.resources import bundled_skills_dir


def test_bundled_skills_discover_without_warnings() -> None:
    sink = ListSink()
    skills = discover_skills(skill_roots(bundled_skills_dir(), None, None), sink)
    assert sink.events == []
    assert [s.name for s in skills] == ["code-review", "commit-messages", "test-first"]
    for skill in skills:
        assert skill.bundled and not skill.truncated
        assert skill.path.parent.name == skill.name
        assert 40 <= len(skill.description) <= 300 and "\n" not in skill.description
        assert 20 <= len(skill.body.splitlines()) <= 60
