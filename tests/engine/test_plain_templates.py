"""Templates rendered without jinja2 give jinja2's bytes; anything more is left to jinja2."""

from __future__ import annotations

import itertools
import re

import pytest

from steiner_tui.engine.plain_templates import render_plain
from steiner_tui.engine.template_environment import template_environment
from steiner_tui.engine.templates import render_template
from steiner_tui.resources import templates_dir

VALUES: tuple[object, ...] = ("", "some text\n  indented", True, False)


def _jinja2(source: str, variables: dict[str, object]) -> str:
    return template_environment().from_string(source).render(**variables)


def _assignments(source: str) -> list[dict[str, object]]:
    names = sorted(set(re.findall(r"\{[{%] *(?:if +)?(\w+)", source)) - {"else", "endif"})
    return [
        dict(zip(names, values, strict=True))
        for values in itertools.product(VALUES, repeat=len(names))
    ]


@pytest.mark.parametrize("path", sorted(templates_dir().glob("*.j2")), ids=lambda p: p.name)
def test_each_template_rendered_plain_is_jinja2s_bytes(path: object) -> None:
    source = path.read_text(encoding="utf-8")  # type: ignore[attr-defined]
    for variables in _assignments(source):
        plain = render_plain(source, variables)
        if plain is not None:
            assert plain == _jinja2(source, variables), variables


def test_the_preamble_and_phase_prompts_need_no_jinja2() -> None:
    for name in ("preamble.md.j2", "phase_build.md.j2", "compaction_system.md.j2"):
        source = (templates_dir() / name).read_text(encoding="utf-8")
        for variables in _assignments(source):
            assert render_plain(source, variables) is not None, name
    assert render_template("preamble.md.j2", override="Be brief.").endswith("Be brief.\n")


EDGES = [
    "a {{ x }} b\n",
    "{{x}}\n{{ y }}",
    "{% if x %}\nyes\n{% else %}\nno\n{% endif %}\n",
    "  {% if x %}\n\tyes\n  {% endif %}\ntail",
    "text  {% if x %} mid {% endif %}  end\n",
    "{% if x %}{% if y %}both{% else %}x only{% endif %}"
    "{% else %}{% if y %}y only{% endif %}{% endif %}",
    "{{ x }}  {% if y %}\nafter\n{% endif %}",
    "{% if x %}\n\n{% endif %}\n\n",
    "{% if x %}a{% endif %}",
    "no tags at all\n",
]


@pytest.mark.parametrize("source", EDGES)
def test_blanks_and_newlines_around_tags_are_jinja2s(source: str) -> None:
    for variables in _assignments(source):
        assert render_plain(source, variables) == _jinja2(source, variables), variables


@pytest.mark.parametrize(
    ("source", "variables"),
    [
        ("{{ x | upper }}", {"x": "a"}),
        ('{% if x == "a" %}a{% endif %}', {"x": "a"}),
        ("{% for i in x %}{{ i }}{% endfor %}", {"x": "ab"}),
        ("{# a comment #}", {}),
        ("{%- if x %}a{% endif %}", {"x": True}),
        ("{% if x %}a", {"x": True}),
        ("a{% endif %}", {}),
        ("{% if x %}a{% else %}b{% else %}c{% endif %}", {"x": True}),
        ("{{{ x }}", {"x": "a"}),
        ("{{ x }}\r\n", {"x": "a"}),
        ("{{ x }}", {}),
        ("{% if x %}a{% endif %}", {}),
    ],
)
def test_anything_more_is_left_to_jinja2(source: str, variables: dict[str, object]) -> None:
    assert render_plain(source, variables) is None
