"""Rendering the simplest prompt templates without jinja2.

Importing jinja2 and compiling a template cost a resumed session 15-20 ms before its first
request, which is mostly the preamble: text, ``{{ name }}`` and ``{% if name %}``. A template
made only of those (``{% else %}`` and ``{% endif %}`` too, nested or not) is rendered here
with the environment's rules (``engine.template_environment``: ``trim_blocks``,
``lstrip_blocks``, the trailing newline kept); anything else in it (a filter, a comparison, a
loop, a comment, whitespace control, a ``\\r``) or a variable not given leaves it to jinja2,
which renders it, or raises, as always. ``tests/engine/test_plain_templates.py`` holds every
template this renders to jinja2's bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["render_plain"]

_TAG = re.compile(r"\{\{ *(\w+) *\}\}|([ \t]*)\{% *(?:if +(\w+)|(else)|endif) *%\}(\n?)")
"""A variable, or a block tag with the blanks before it (``lstrip_blocks``) and the newline
after it (``trim_blocks``)."""


def render_plain(source: str, variables: Mapping[str, object]) -> str | None:
    """``source`` rendered with ``variables`` as jinja2 renders it; None when it holds more
    than this renders, or a variable it uses is not given."""
    if "\r" in source:
        return None  # jinja2 turns line ends into "\n"
    out: list[str] = []
    texts: list[str] = []
    branches: list[list[bool]] = []  # per open ``if``: [its branch is shown, had its else]
    at = 0
    for tag in _TAG.finditer(source):
        text = source[at : tag.start()]
        if tag.group(2) and not (tag.start() == 0 or source[tag.start() - 1] == "\n"):
            text += tag.group(2)  # blanks not at a line's start are kept
        at = tag.end()
        texts.append(text)
        shown = all(branch[0] for branch in branches)
        name, condition = tag.group(1), tag.group(3)
        if (name or condition) is not None and (name or condition) not in variables:
            return None
        if shown:
            out.append(text)
            if name is not None:
                out.append(str(variables[name]))
        if condition is not None:
            branches.append([bool(variables[condition]), False])
        elif name is not None:
            continue
        elif not branches or (tag.group(4) and branches[-1][1]):
            return None  # an ``else`` or ``endif`` out of place: jinja2's error
        elif tag.group(4):
            branches[-1] = [not branches[-1][0], True]
        else:
            branches.pop()
    texts.append(source[at:])
    joined = "\0".join(texts)  # a text ending in "{" would open a tag with the one after
    if branches or any(opener in joined for opener in ("{{", "{%", "{#", "{\0")):
        return None
    out.append(source[at:])
    return "".join(out)
