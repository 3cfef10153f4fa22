"""Skill discovery over temporary folders (and a fake reader for errors the disk cannot fake)."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.engine.events import ListSink, SkillTruncated, WarningEvent
from steiner_tui.engine.skills.discovery import (
    MAX_SKILL_FILE_BYTES,
    LocalSkillReader,
    SkillRoot,
    discover_skills,
    skill_roots,
)
from steiner_tui.engine.skills.envelopes import SKILL_CONTENT_CAP_BYTES, TRUNCATION_MARKER


def write_skill(
    root: Path, folder: str, name: str, body: str = "Do things.", desc: str = "d"
) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {desc}\n---\n\n{body}\n", encoding="utf-8")
    return path


def warnings(sink: ListSink) -> list[tuple[str, str]]:
    return [(e.code, e.message) for e in sink.events if isinstance(e, WarningEvent)]


def test_skill_roots_order(tmp_path: Path) -> None:
    roots = skill_roots(tmp_path / "b", tmp_path / "cfg", tmp_path / "proj", [tmp_path / "x"])
    assert roots == (
        SkillRoot(tmp_path / "b", bundled=True),
        SkillRoot(tmp_path / "cfg" / "skills"),
        SkillRoot(tmp_path / "proj" / ".steiner" / "skills"),
        SkillRoot(tmp_path / "x", required=True),
    )
    assert skill_roots(None, None, None) == ()


def test_later_root_replaces_earlier_and_results_are_sorted(tmp_path: Path) -> None:
    bundled, user, project = tmp_path / "bundled", tmp_path / "user", tmp_path / "project"
    write_skill(bundled, "review", "review", "bundled body")
    write_skill(bundled, "zeta", "zeta")
    write_skill(user, "my-review", "review", "user body")
    write_skill(project, "alpha", "alpha", desc='"quoted description"')
    roots = (SkillRoot(bundled, bundled=True), SkillRoot(user), SkillRoot(project))
    sink = ListSink()
    skills = discover_skills(roots, sink)
    assert [s.name for s in skills] == ["alpha", "review", "zeta"]
    review = skills[1]
    assert (review.body, review.root, review.bundled) == ("user body", user, False)
    assert review.path == user / "my-review" / "SKILL.md"
    assert skills[0].description == "quoted description"
    assert skills[2].bundled is True
    assert [e.code for e in sink.events if isinstance(e, WarningEvent)] == ["skill_shadows_bundled"]


def test_missing_roots_are_silent_unless_listed_in_config(tmp_path: Path) -> None:
    sink = ListSink()
    roots = (SkillRoot(tmp_path / "nope"), SkillRoot(tmp_path / "listed", required=True))
    assert discover_skills(roots, sink) == ()
    assert [code for code, _ in warnings(sink)] == ["skill_root_missing"]


def test_invalid_utf8_is_replaced_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "bad" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(b"---\nname: bad\ndescription: x\n---\nbody \xff end\n")
    sink = ListSink()
    [skill] = discover_skills((SkillRoot(tmp_path),), sink)
    assert skill.body == "body \ufffd end"
    [(code, message)] = warnings(sink)
    assert code == "invalid_utf8" and str(path) in message


def test_oversized_file_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "huge" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(b"---\nname: huge\n---\n" + b"x" * MAX_SKILL_FILE_BYTES)
    write_skill(tmp_path, "ok", "ok")
    sink = ListSink()
    assert [s.name for s in discover_skills((SkillRoot(tmp_path),), sink)] == ["ok"]
    [(code, message)] = warnings(sink)
    assert code == "file_too_large" and str(path) in message


def test_missing_front_matter_name_or_file_warns(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "SKILL.md").write_text("# Just markdown\n", encoding="utf-8")
    (tmp_path / "noname").mkdir()
    (tmp_path / "noname" / "SKILL.md").write_text("---\ndescription: x\n---\nb\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "README.md").write_text("not a skill", encoding="utf-8")
    sink = ListSink()
    assert discover_skills((SkillRoot(tmp_path),), sink) == ()
    got = warnings(sink)
    assert [code for code, _ in got] == ["file_unreadable", "skill_invalid", "skill_invalid"]
    assert str(tmp_path / "empty" / "SKILL.md") in got[0][1]
    assert str(tmp_path / "noname" / "SKILL.md") in got[1][1]
    assert str(tmp_path / "plain" / "SKILL.md") in got[2][1]


def test_over_cap_body_is_capped_with_event(tmp_path: Path) -> None:
    body = "é" * (SKILL_CONTENT_CAP_BYTES // 2 + 1)
    write_skill(tmp_path, "long", "long", body)
    sink = ListSink()
    [skill] = discover_skills((SkillRoot(tmp_path),), sink)
    assert skill.truncated is True
    assert skill.original_bytes == SKILL_CONTENT_CAP_BYTES + 2
    assert skill.body == "é" * (SKILL_CONTENT_CAP_BYTES // 2) + TRUNCATION_MARKER
    assert sink.events == [
        SkillTruncated("long", SKILL_CONTENT_CAP_BYTES + 2, SKILL_CONTENT_CAP_BYTES)
    ]


def test_duplicate_name_within_one_root_warns(tmp_path: Path) -> None:
    write_skill(tmp_path, "one", "same", "first")
    write_skill(tmp_path, "two", "same", "second")
    sink = ListSink()
    [skill] = discover_skills((SkillRoot(tmp_path),), sink)
    assert skill.body == "second"
    assert [code for code, _ in warnings(sink)] == ["skill_duplicate"]


class UnlistableReader(LocalSkillReader):
    """A reader whose root listing fails, as a permission error would."""

    def subdirectories(self, path: Path) -> list[Path]:
        raise PermissionError(13, "Permission denied")


def test_unlistable_root_warns(tmp_path: Path) -> None:
    write_skill(tmp_path, "a", "a")
    sink = ListSink()
    assert discover_skills((SkillRoot(tmp_path),), sink, UnlistableReader()) == ()
    [(code, message)] = warnings(sink)
    assert code == "skill_root_unreadable" and "Permission denied" in message


@pytest.mark.parametrize(
    "name",
    [
        "[unclosed",
        "{x: 1}",
        "../../etc",
        "a/b",
        "a\\\\b",
        'say "hi"',
        "it's",
        "</steiner-skill>",
        "<steiner-skill",
        "x" * 65,
        "*alias",
    ],
)
def test_bad_skill_names_are_refused_with_a_clear_message(tmp_path: Path, name: str) -> None:
    root = tmp_path / "skills"
    write_skill(root, "bad", name)
    sink = ListSink()
    assert discover_skills([SkillRoot(root)], sink) == ()
    [(code, message)] = warnings(sink)
    assert code == "skill_invalid"
    assert message.startswith(f"skipped {root / 'bad' / 'SKILL.md'}: the name")


def test_a_project_skill_replacing_a_bundled_one_is_announced(tmp_path: Path) -> None:
    bundled, project = tmp_path / "bundled", tmp_path / "project"
    write_skill(bundled, "code-review", "code-review", body="Bundled.")
    path = write_skill(project, "code-review", "code-review", body="Mine.")
    sink = ListSink()
    [skill] = discover_skills([SkillRoot(bundled, bundled=True), SkillRoot(project)], sink)
    assert skill.body == "Mine."
    assert warnings(sink) == [
        ("skill_shadows_bundled", f"{path} replaces the bundled skill 'code-review'")
    ]
