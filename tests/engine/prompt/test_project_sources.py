"""AGENTS.md and project-context sources: loading, ignore list, root escapes, config."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.engine.events import ListSink, WarningEvent
from steiner_tui.engine.prompt.agents_md import load_agents_md
from steiner_tui.engine.prompt.files import LocalFileReader
from steiner_tui.engine.prompt.project_context import (
    ProjectContextSpec,
    gather_project_context,
    load_project_context_spec,
)

READER = LocalFileReader()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("readme", encoding="utf-8")
    (root / "docs" / "guide.md").write_text("guide", encoding="utf-8")
    (root / "docs" / "secret.md").write_text("secret", encoding="utf-8")
    (tmp_path / "outside.md").write_text("outside", encoding="utf-8")
    return root


def test_agents_md_global_then_project(tmp_path: Path, project: Path) -> None:
    global_file = tmp_path / "config" / "AGENTS.md"
    global_file.parent.mkdir()
    global_file.write_text("global rules", encoding="utf-8")
    (project / "AGENTS.md").write_text("project rules", encoding="utf-8")
    blocks = load_agents_md(global_file, project, READER, ListSink())
    assert [(b.source, b.role, b.content, b.path) for b in blocks] == [
        ("global_agents_md", "system", "global rules", str(global_file)),
        ("project_agents_md", "system", "project rules", str(project / "AGENTS.md")),
    ]


def test_agents_md_missing_files_add_nothing(tmp_path: Path, project: Path) -> None:
    sink = ListSink()
    assert load_agents_md(tmp_path / "none.md", project, READER, sink) == ()
    assert load_agents_md(None, None, READER, sink) == ()
    assert sink.events == []


def test_each_file_is_its_own_block_with_its_path(project: Path) -> None:
    spec = ProjectContextSpec(files=("README.md", "docs/guide.md", "./README.md", "missing.md"))
    blocks = gather_project_context(project, spec, READER, ListSink())
    assert [(b.source, b.role, b.content, b.path) for b in blocks] == [
        ("project_context", "user", "readme", str(project / "README.md")),
        ("project_context", "user", "guide", str(project / "docs" / "guide.md")),
    ]


def test_folders_are_skipped(project: Path) -> None:
    blocks = gather_project_context(
        project, ProjectContextSpec(files=("docs",)), READER, ListSink()
    )
    assert blocks == ()


@pytest.mark.parametrize("ignore", ["docs/secret.md", "secret.md", "*.md", "docs/secret*"])
def test_ignored_paths_are_skipped(project: Path, ignore: str) -> None:
    spec = ProjectContextSpec(files=("docs/secret.md",), ignore=(ignore,))
    assert gather_project_context(project, spec, READER, ListSink()) == ()


def test_ignore_keeps_other_files(project: Path) -> None:
    spec = ProjectContextSpec(files=("docs/guide.md", "docs/secret.md"), ignore=("secret.md",))
    blocks = gather_project_context(project, spec, READER, ListSink())
    assert [b.content for b in blocks] == ["guide"]


@pytest.mark.parametrize("path", ["../outside.md", "docs/../../outside.md"])
def test_dotdot_escape_is_an_error(project: Path, path: str) -> None:
    spec = ProjectContextSpec(files=(path,))
    with pytest.raises(ValueError) as info:
        gather_project_context(project, spec, READER, ListSink())
    assert str(info.value) == f'project context path "{path}" escapes project root'


@pytest.mark.parametrize(
    ("path", "quoted"),
    [
        ("../a\tb.md", '"../a\\tb.md"'),
        ("../\x01é.md", '"../\\x01é.md"'),
        ('../"q".md', '"../\\"q\\".md"'),
    ],
)
def test_the_escaping_path_is_quoted_as_the_reference_quotes_it(
    project: Path, path: str, quoted: str
) -> None:
    with pytest.raises(ValueError) as info:
        gather_project_context(project, ProjectContextSpec(files=(path,)), READER, ListSink())
    assert str(info.value) == f"project context path {quoted} escapes project root"


def test_absolute_path_outside_is_an_error(tmp_path: Path, project: Path) -> None:
    outside = str(tmp_path / "outside.md")
    with pytest.raises(ValueError, match="escapes project root"):
        gather_project_context(project, ProjectContextSpec(files=(outside,)), READER, ListSink())


def test_absolute_path_inside_is_allowed(project: Path) -> None:
    inside = str(project / "README.md")
    blocks = gather_project_context(
        project, ProjectContextSpec(files=(inside,)), READER, ListSink()
    )
    assert [b.content for b in blocks] == ["readme"]


def test_symlink_escape_is_an_error(tmp_path: Path, project: Path) -> None:
    (project / "link.md").symlink_to(tmp_path / "outside.md")
    with pytest.raises(ValueError) as info:
        gather_project_context(project, ProjectContextSpec(files=("link.md",)), READER, ListSink())
    assert str(info.value) == 'project context path "link.md" escapes project root'


def test_symlinked_folder_escape_is_an_error(tmp_path: Path, project: Path) -> None:
    (project / "ext").symlink_to(tmp_path)
    spec = ProjectContextSpec(files=("ext/outside.md",))
    with pytest.raises(ValueError, match="escapes project root"):
        gather_project_context(project, spec, READER, ListSink())


def test_symlink_inside_the_root_is_fine(project: Path) -> None:
    (project / "alias.md").symlink_to(project / "README.md")
    spec = ProjectContextSpec(files=("alias.md",))
    assert [b.content for b in gather_project_context(project, spec, READER, ListSink())] == [
        "readme"
    ]


def test_negative_project_budget_is_rejected() -> None:
    with pytest.raises(ValueError) as info:
        ProjectContextSpec(budget_bytes=-1)
    assert str(info.value) == "project context budget must not be negative"


def test_spec_from_project_config(project: Path) -> None:
    (project / ".steiner").mkdir()
    (project / ".steiner" / "config.toml").write_text(
        '[context]\nfiles = ["README.md", "docs/guide.md"]\nignore = ["secret.md"]\n'
        "budget_bytes = 1234\n",
        encoding="utf-8",
    )
    spec = load_project_context_spec(project, READER, ListSink())
    assert spec == ProjectContextSpec(("README.md", "docs/guide.md"), ("secret.md",), 1234)


def test_spec_without_config_is_empty(project: Path) -> None:
    sink = ListSink()
    assert load_project_context_spec(project, READER, sink) == ProjectContextSpec()
    assert sink.events == []


def test_malformed_config_is_reported(project: Path) -> None:
    (project / ".steiner").mkdir()
    config = project / ".steiner" / "config.toml"
    config.write_text("[context\nfiles = 3\n", encoding="utf-8")
    sink = ListSink()
    assert load_project_context_spec(project, READER, sink) == ProjectContextSpec()
    [warning] = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert warning.code == "config_invalid"
    assert str(config) in warning.message
    assert "not valid TOML" in warning.message


def test_wrongly_typed_files_are_reported(project: Path) -> None:
    (project / ".steiner").mkdir()
    (project / ".steiner" / "config.toml").write_text(
        '[context]\nfiles = "README.md"\n', encoding="utf-8"
    )
    sink = ListSink()
    assert load_project_context_spec(project, READER, sink).files == ()
    assert [e.code for e in sink.events if isinstance(e, WarningEvent)] == ["config_invalid"]


def test_negative_budget_in_config_is_an_error(project: Path) -> None:
    (project / ".steiner").mkdir()
    (project / ".steiner" / "config.toml").write_text(
        "[context]\nbudget_bytes = -5\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"^project context budget must not be negative$"):
        load_project_context_spec(project, READER, ListSink())
