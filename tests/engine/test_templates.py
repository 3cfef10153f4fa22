"""Compiled templates kept between launches: read back when sound, never a failed render."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from jinja2.bccache import bc_magic

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
