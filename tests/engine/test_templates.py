"""Compiled templates and renders kept between launches: read back when sound and current,
never a failed render."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

import pytest
from jinja2.bccache import bc_magic

from steiner_tui.engine import template_environment as environment_module
from steiner_tui.engine import templates
from steiner_tui.engine.prompt.preamble import PreambleInputs, render_preamble
from steiner_tui.engine.template_environment import template_environment
from steiner_tui.engine.templates import (
    cache_compiled_templates,
    render_template,
)

NAME = "preamble_workflow.md.j2"
VARIABLES = {"workflow_mode": "documentor", "documentor_write_scope": ["docs/"]}


def render(compiled: Path | None) -> str:
    """Render in a fresh environment, as a new launch does."""
    return template_environment(compiled).get_template(NAME).render(**VARIABLES)


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.cache"))


def test_a_compiled_template_is_kept_and_read_back_by_the_next_launch(tmp_path: Path) -> None:
    folder = tmp_path / "cache" / "templates"  # made with the first entry
    expected = render(None)
    assert render(folder) == expected
    [entry] = entries(folder)
    written = entry.stat().st_mtime_ns
    assert render(folder) == expected
    assert entry.stat().st_mtime_ns == written  # read, not compiled and written again


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda sound: b"",
        lambda sound: b"not jinja2's",
        lambda sound: sound[: len(bc_magic) + 3],  # cut inside the source's checksum
        lambda sound: sound[: len(sound) // 2],  # cut inside the code
        lambda sound: sound[:-8] + b"\xff" * 8,  # the code's end overwritten
    ],
    ids=["empty", "foreign", "cut-in-checksum", "cut-in-code", "overwritten"],
)
def test_a_corrupt_entry_is_compiled_from_source_and_replaced(
    tmp_path: Path, corrupt: Callable[[bytes], bytes]
) -> None:
    expected = render(None)
    render(tmp_path)
    [entry] = entries(tmp_path)
    sound = entry.read_bytes()
    entry.write_bytes(corrupt(sound))
    assert render(tmp_path) == expected
    assert entry.read_bytes() == sound


def test_a_folder_that_cannot_be_written_leaves_the_render_as_it_was(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")  # the cache folder's place is taken (even root fails)
    assert render(blocked / "templates") == render(None)
    assert render(blocked) == render(None)
    assert blocked.read_text() == "in the way"


def test_render_template_uses_the_folder_it_is_given(tmp_path: Path) -> None:
    try:
        cache_compiled_templates(tmp_path)
        text = render_template(NAME, **VARIABLES)
        assert entries(tmp_path)
    finally:
        cache_compiled_templates(None)
    assert render_template(NAME, **VARIABLES) == text


@pytest.fixture
def own_templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A templates folder of the test's own, ``outer.j2`` including ``inner.j2``."""
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "outer.j2").write_text("{{ who }} {{ items }}: {% include 'inner.j2' %}")
    (folder / "inner.j2").write_text("inner")
    for module in (templates, environment_module):
        monkeypatch.setattr(module, "templates_dir", lambda: folder)
    return folder


def launch(cache: Path | None, **variables: Any) -> str:
    """Render ``outer.j2`` as a new launch does: a fresh environment keeping to ``cache``."""
    cache_compiled_templates(cache)
    try:
        return render_template("outer.j2", **variables)
    finally:
        cache_compiled_templates(None)


def another_jinja2(folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    version = folder.parent / "jinja2_init.py"
    version.write_text("__version__ = '9.9.9'")
    spec = ModuleSpec("jinja2", None, origin=str(version))
    monkeypatch.setattr(templates, "find_spec", lambda name: spec)
    return {}


@pytest.mark.parametrize(
    "change",
    [
        lambda folder, monkeypatch: {"who": "b"},
        lambda folder, monkeypatch: {"items": ("x",)},
        lambda folder, monkeypatch: (folder / "outer.j2").write_text("{{ who }}!") and {},
        lambda folder, monkeypatch: (folder / "inner.j2").write_text("changed") and {},
        lambda folder, monkeypatch: (folder / "new.j2").write_text("may be included") and {},
        another_jinja2,
    ],
    ids=["a-variable", "list-to-tuple", "the-template", "an-included-one", "a-new-one", "jinja2"],
)
def test_a_kept_render_is_read_back_until_anything_it_depends_on_changes(
    tmp_path: Path,
    own_templates: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Path, pytest.MonkeyPatch], dict[str, Any]],
) -> None:
    cache, variables = tmp_path / "cache", {"who": "a", "items": ["x"]}
    entry = cache / "rendered" / "outer.j2"
    assert launch(cache, **variables) == "a ['x']: inner"
    kept = entry.read_bytes()
    with monkeypatch.context() as patched:
        patched.setattr(
            environment_module, "template_environment", lambda _: pytest.fail("rendered")
        )
        assert launch(cache, **variables) == "a ['x']: inner"
    variables |= change(own_templates, monkeypatch)
    assert launch(cache, **variables) == launch(None, **variables)
    assert entry.read_bytes() != kept  # replaced by the fresh render's


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda sound: b"",
        lambda sound: sound[:20],
        lambda sound: sound[:-1],
        lambda sound: sound[:32] + b"a ['x']: not what jinja2 rendered",
        lambda sound: sound + b"\xff",
    ],
    ids=["empty", "cut-in-digest", "cut-in-text", "another-text", "not-utf8"],
)
def test_a_damaged_kept_render_is_rendered_again_and_replaced(
    tmp_path: Path, own_templates: Path, corrupt: Callable[[bytes], bytes]
) -> None:
    cache = tmp_path / "cache"
    launch(cache, who="a", items=["x"])
    entry = cache / "rendered" / "outer.j2"
    sound = entry.read_bytes()
    entry.write_bytes(corrupt(sound))
    assert launch(cache, who="a", items=["x"]) == "a ['x']: inner"
    assert entry.read_bytes() == sound


class Shown(str):
    def __str__(self) -> str:
        return "shown otherwise"


@pytest.mark.parametrize("items", [Shown("x"), ["x", 1.5], {"x": 1}, object()])
def test_a_render_with_a_variable_without_an_exact_json_form_is_not_kept(
    tmp_path: Path, own_templates: Path, items: object
) -> None:
    assert launch(tmp_path, who="a", items=items) == launch(None, who="a", items=items)
    assert not (tmp_path / "rendered").exists()


def test_a_launch_reading_a_kept_preamble_does_not_import_jinja2(tmp_path: Path) -> None:
    script = (
        "import sys; from pathlib import Path\n"
        "from steiner_tui.engine.templates import cache_compiled_templates\n"
        "from steiner_tui.engine.prompt.preamble import PreambleInputs, render_preamble\n"
        "cache_compiled_templates(Path(sys.argv[1]))\n"
        "text = render_preamble(PreambleInputs(delegation_enabled=True, workflow_mode='build'))\n"
        "print(repr(text), 'jinja2' in sys.modules)"
    )
    first, second = (
        subprocess.run(
            [sys.executable, "-c", script, str(tmp_path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for _ in range(2)
    )
    inputs = PreambleInputs(delegation_enabled=True, workflow_mode="build")
    assert first == f"{render_preamble(inputs)!r} True\n"
    assert second == f"{render_preamble(inputs)!r} False\n"
