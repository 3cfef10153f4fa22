"""The jinja2 environment over the prompt templates in ``templates/``.

Templates fail loudly (``StrictUndefined``): a missing variable is an error, never an empty
string. ``keep_trailing_newline`` keeps the bytes exactly as written, because several templates
are part of the byte-stable cached prefix.

jinja2 lexes, parses and compiles a template to Python code the first time a process renders
it. The commands keep that code between launches (``cache_compiled_templates``, with a folder
under the user cache dir), through jinja2's own bytecode cache: jinja2 checks each entry against
the template's source and Python's version and compiles afresh when either differs. The cache
only saves time: an entry that cannot be read (missing, truncated, written by something else)
is compiled from source, and a folder that cannot be written is left as it is; neither stops a
render. Without a folder (the tests, a library caller) every process compiles from source.

``engine.templates`` imports this module with its first render, so jinja2 is not imported by
a launch before the workbench's first frame.
"""

from __future__ import annotations

from pathlib import Path
from types import CodeType

from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader, StrictUndefined
from jinja2.bccache import Bucket

from steiner_tui.resources import templates_dir

__all__ = ["template_environment"]


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
