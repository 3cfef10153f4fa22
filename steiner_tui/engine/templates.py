"""Load and render the jinja2 prompt templates in ``templates/``.

The environment (``engine.template_environment``: strict variables, bytes kept exactly, the
compiled templates kept between launches) is built on the first render, and jinja2 is imported
with it. A launch renders its first template when the session builds its first request, after
the workbench's first frame, so the frame does not wait for jinja2 (docs/ARCHITECTURE.md,
"Start-up", has what that import cost).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from steiner_tui.resources import templates_dir

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = [
    "cache_compiled_templates",
    "render_template",
    "template_source",
]


_compiled_folder: Path | None = None
"""Where ``render_template`` keeps compiled templates (``cache_compiled_templates``)."""


@cache
def _environment() -> Environment:
    # One of the four deferrals (docs/ARCHITECTURE.md, "Imports"): jinja2 loads with the first
    # render, not with the first frame.
    from steiner_tui.engine.template_environment import template_environment

    return template_environment(_compiled_folder)


def cache_compiled_templates(folder: Path | None) -> None:
    """Keep the templates ``render_template`` compiles in ``folder`` (None: compile them
    from source in every process); the folder is made when the first entry is written."""
    global _compiled_folder
    _compiled_folder = folder
    _environment.cache_clear()


def render_template(name: str, /, **variables: Any) -> str:
    """Render template ``name`` (e.g. ``"preamble.md.j2"``) with ``variables``.

    Raises:
        jinja2.UndefinedError: when the template uses a variable that was not given.
        jinja2.TemplateNotFound: when ``name`` is not in ``templates/``.
    """
    return _environment().get_template(name).render(**variables)


def template_source(name: str) -> str:
    """The raw text of a template, for templates used verbatim (no variables)."""
    return (templates_dir() / name).read_text(encoding="utf-8")
