"""Load and render the jinja2 prompt templates in ``templates/``.

Templates fail loudly (``StrictUndefined``): a missing variable is an error, never an empty
string. ``keep_trailing_newline`` keeps the bytes exactly as written, because several templates
are part of the byte-stable cached prefix. The environment is built on the first render.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from steiner_tui.resources import templates_dir

__all__ = ["render_template", "template_source"]


@cache
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


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
