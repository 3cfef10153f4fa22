"""Load and render the jinja2 prompt templates in ``templates/``.

The environment (``engine.template_environment``: strict variables, bytes kept exactly, the
compiled templates kept between launches) is built on the first render, and jinja2 is imported
with it. A launch renders its first template when the session builds its first request, after
the workbench's first frame, so the frame does not wait for jinja2 (docs/ARCHITECTURE.md,
"Start-up", has what that import cost).

Where compiled templates are kept, the last render of each template is kept too, under a digest
of all it depends on, so a launch whose preamble's inputs and templates did not change reads it
back and does not import jinja2 at all (about 16 ms of a resume's build). A variable without an
exact JSON form, an entry that does not match its digest (which covers its text) or a file that
cannot be read or written means a render, never an error.
"""

from __future__ import annotations

import json
import os
import sys
from functools import cache
from hashlib import sha256
from importlib.util import find_spec
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
    """Keep the templates ``render_template`` compiles, and its last render of each, in
    ``folder`` (None: compile and render them in every process); the folder is made when the
    first entry is written."""
    global _compiled_folder
    _compiled_folder = folder
    _environment.cache_clear()


def render_template(name: str, /, **variables: Any) -> str:
    """Render template ``name`` (e.g. ``"preamble.md.j2"``) with ``variables``.

    Raises:
        jinja2.UndefinedError: when the template uses a variable that was not given.
        jinja2.TemplateNotFound: when ``name`` is not in ``templates/``.
    """
    key, kept = _memo_key(name, variables)
    try:
        data = kept.read_bytes() if key else b""
        if sha256(key + data[32:]).digest() == data[:32]:
            return data[32:].decode("utf-8", "surrogatepass")
    except (OSError, ValueError):  # unreadable or not ours: render it again
        pass
    text = _environment().get_template(name).render(**variables)
    try:
        if key:
            kept.parent.mkdir(parents=True, exist_ok=True)
            body = text.encode("utf-8", "surrogatepass")
            kept.write_bytes(sha256(key + body).digest() + body)
    except OSError:  # a read-only or full disk: the next launch renders again
        pass
    return text


def _memo_key(name: str, variables: dict[str, Any]) -> tuple[bytes, Path]:
    """The digest of everything a render of ``name`` depends on, and the file that keeps the
    last render: Python's and jinja2's versions (jinja2's ``__init__`` holds its version; read,
    not imported), the environment's settings, every template's path, size and modification
    time (any may be included), the name and the variables as JSON. No digest (b"") without a
    folder, or when a variable has no exact JSON form or a file cannot be read."""
    kept = Path(_compiled_folder or ".", "rendered", name)
    if _compiled_folder is None:
        return b"", kept
    try:
        shown = json.dumps(sorted((k, _json_form(v)) for k, v in variables.items()))
        jinja2 = find_spec("jinja2")
        parts = [sys.version.encode(), Path(jinja2.origin or "").read_bytes() if jinja2 else b""]
        parts += [Path(__file__).with_name("template_environment.py").read_bytes()]
        parts += [name.encode(), shown.encode()]
        # Each template by its size and modification time, as Python's own bytecode cache
        # checks its sources (a stat a file: 0.08 ms for all, reading them took 0.35-0.55).
        for top, _, files in sorted(os.walk(templates_dir())):  # 3x faster than Path.rglob
            for path in (Path(top, file) for file in sorted(files)):
                stat = path.stat()
                parts.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    except (TypeError, RecursionError, OSError):
        return b"", kept
    return sha256(b"".join(sha256(part).digest() for part in parts)).digest(), kept


def _json_form(value: object) -> object:
    """``value`` as JSON, a list told from a tuple (they render differently); TypeError for
    anything but str, int, bool, None and lists or tuples of them (not their subclasses)."""
    if value is None or type(value) in (str, int, bool):
        return value
    if isinstance(value, list | tuple) and type(value) in (list, tuple):
        return [type(value).__name__, *map(_json_form, value)]
    raise TypeError(value)


def template_source(name: str) -> str:
    """The raw text of a template, for templates used verbatim (no variables)."""
    return (templates_dir() / name).read_text(encoding="utf-8")
