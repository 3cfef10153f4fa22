"""``Session.rescan_skills``: what the skills' discovery says is said once, not on every rescan."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import ListSink, WarningEvent

BROKEN = "no front matter, just a body\n"


def _skill(root: Path, name: str, text: str) -> Path:
    folder = root / ".steiner" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(text, encoding="utf-8")
    return path


def _good(name: str) -> str:
    return f"---\nname: {name}\ndescription: d\n---\nBody of {name}.\n"


def _warnings(sink: ListSink) -> list[str]:
    return [e.message for e in sink.events if isinstance(e, WarningEvent)]


def test_a_warning_is_said_when_it_first_appears_and_again_only_after_it_went_away(
    tmp_path: Path,
) -> None:
    sink = ListSink()
    broken = _skill(tmp_path, "broken", BROKEN)
    session = build_session(SessionRequest(tmp_path, record=False, sink=sink))
    said = _warnings(sink)
    assert len(said) == 1 and "no front matter" in said[0]  # at start, once
    assert [e.message for e in session.skill_scan if isinstance(e, WarningEvent)] == said

    _skill(tmp_path, "other", _good("other"))  # another skill changes: nothing new to say
    assert session.rescan_skills() == ()
    assert _warnings(sink) == said

    broken.write_text(_good("broken"), encoding="utf-8")  # fixed: the warning goes away
    assert session.rescan_skills() == ()
    broken.write_text(BROKEN, encoding="utf-8")  # broken again: said again
    (again,) = session.rescan_skills()
    assert isinstance(again, WarningEvent) and again.message == said[0]
    assert _warnings(sink) == [*said, said[0]]

    _skill(tmp_path, "twin", _good("other"))  # a new warning, with the old one still there
    fresh = session.rescan_skills()
    assert [e.code for e in fresh if isinstance(e, WarningEvent)] == ["skill_duplicate"]
    assert session.rescan_skills() == ()
    assert "other" in [s.name for s in session.driver.skill_states()]
