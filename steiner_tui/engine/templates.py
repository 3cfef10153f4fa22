"""Load and render the jinja2 prompt templates in ``templates/``.

Templates fail loudly (``StrictUndefined``): a missing variable is an error, never an empty
string. ``keep_trailing_newline`` keeps the bytes exactly as written, because several templates
are part of the byte-stable cached prefix. The environment is built on the first render.

jinja2 lexes, parses and compiles a template to Python code the first time a process renders
it. The commands keep that code between launches (``cache_compiled_templates``, with a folder
under the user cache dir), through jinja2's own bytecode cache: jinja2 checks each entry against
the template's source and Python's version and compiles afresh when either differs. The cache
only saves time: an entry that cannot be read (missing, truncated, written by something else)
is compiled from source, and a folder that cannot be written is left as it is; neither stops a
render. Without a folder (the tests, a library caller) every process compiles from source.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import CodeType
from typing import Any

from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
from jinja2.bccache import Bucket

from steiner_tui.resources import templates_dir

__all__ = [
    "cache_compiled_templates",
    "render_template",
    "template_environment",
    "template_source",
]


class _CompiledTemplates(FileSystemBytecodeCache):
    """jinja2's file cache of compiled templates, which never fails a render."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # unreadable or not jinja2's: compile from source instead
            bucket.reset()
        if not isinstance(bucket.code, CodeType | None):
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            Path(self.directory).mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:  # a read-only or full disk: the next launch compiles again
            pass


def template_environment(compiled: Path | None = None) -> Environment:
    """A template environment over ``templates/``, keeping compiled templates in
    ``compiled`` when given."""
    return Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=None if compiled is None else _CompiledTemplates(str(compiled)),
    )


_compiled_folder: Path | None = None
"""Where ``render_template`` keeps compiled templates (``cache_compiled_templates``)."""


@cache
def _environment() -> Environment:
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
