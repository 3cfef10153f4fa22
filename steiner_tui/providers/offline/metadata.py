"""Describe a file the offline model has read: README title, package metadata, outline.

Each function takes the text a ``read`` tool returned and produces short Markdown lines. Parsing is
forgiving: a truncated or malformed file yields what can be recognised, never an exception.
"""

from __future__ import annotations

import json
import re
import tomllib
from itertools import islice
from pathlib import PurePosixPath
from typing import Any

from steiner_tui.providers.offline.textutil import md_code, md_text, trim

__all__ = ["describe_file", "readme_summary"]


_DEP_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


_PY_DEF = re.compile(r"^(?:async\s+)?(class|def)\s+([A-Za-z_]\w*)", re.M)


_MD_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*#*\s*$", re.M)


_SKIP_PARA = ("#", "<!--", "[![", "![", "```", "---", "|")
MAX_NAMES = 12


def _names(items: Any) -> list[str]:
    if isinstance(items, dict):
        return [str(k) for k in items]
    if isinstance(items, list):
        out = []
        for item in items:
            match = _DEP_NAME.match(str(item))
            if match:
                out.append(match.group(1))
        return out
    return []


def _listing(label: str, names: list[str]) -> str:
    shown = ", ".join(md_code(n) for n in names[:MAX_NAMES])
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    return f"{label} ({len(names)}): {shown}{more}"


def readme_summary(text: str) -> tuple[str, str]:
    """The README's title (first heading or first line) and its first prose paragraph."""
    heading = _MD_HEADING.search(text)
    lines = [line.strip() for line in text.splitlines()]
    title = heading.group(2) if heading else next((x for x in lines if x), "")
    paragraph: list[str] = []
    in_fence = False
    for line in lines:
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or (not paragraph and (not line or line.startswith(_SKIP_PARA))):
            continue
        if not line or line.startswith(_SKIP_PARA):
            break
        paragraph.append(line)
    return title, trim(" ".join(paragraph), 320)


def _pyproject(text: str) -> list[str]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ["(could not parse it as TOML; it may have been cut by the read line cap)"]
    project = data.get("project") or data.get("tool", {}).get("poetry") or {}
    out = []
    name = project.get("name")
    if name:
        version = project.get("version", "")
        version = f" version {md_text(str(version))}" if version else ""
        out.append(f"Python project {md_code(str(name))}{version}")
    if project.get("description"):
        out.append(f"Description: {md_text(trim(str(project['description']), 200))}")
    if project.get("requires-python"):
        out.append(f"Requires Python {md_text(str(project['requires-python']))}")
    deps = _names(project.get("dependencies"))
    if deps:
        out.append(_listing("Dependencies", deps))
    scripts = _names(project.get("scripts"))
    if scripts:
        out.append(_listing("Commands", scripts))
    return out or ["(no [project] metadata found)"]


def _package_json(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return ["(could not parse it as JSON; it may have been cut by the read line cap)"]
    if not isinstance(data, dict):
        return []
    out = []
    if data.get("name"):
        version = md_text(str(data.get("version", "?")))
        out.append(f"JavaScript package {md_code(str(data['name']))} version {version}")
    if data.get("description"):
        out.append(f"Description: {md_text(trim(str(data['description']), 200))}")
    for key, label in (("dependencies", "Dependencies"), ("scripts", "Scripts")):
        names = _names(data.get(key))
        if names:
            out.append(_listing(label, names))
    return out


def _cargo(text: str) -> list[str]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    package = data.get("package", {})
    out = [f"Rust crate {md_code(str(package['name']))}"] if package.get("name") else []
    deps = _names(data.get("dependencies"))
    if deps:
        out.append(_listing("Dependencies", deps))
    return out


def _outline(path: str, text: str) -> list[str]:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in (".py", ".pyi"):
        doc = re.match(r'\s*[rRuU]?("""|\'\'\')\s*(.+?)\s*(?:\1|$)', text, re.M)
        defs = [f"{kind} {name}" for kind, name in _PY_DEF.findall(text)]
        out = [f"Docstring: {md_text(trim(doc.group(2), 160))}"] if doc else []
        return out + ([_listing("Top-level definitions", defs)] if defs else [])
    if suffix in (".md", ".rst", ".txt"):
        heads = [h for _, h in _MD_HEADING.findall(text)]
        if heads:
            return [_listing("Headings", heads)]
    filled = islice(((n, x) for n, x in enumerate(text.splitlines(), 1) if x.strip()), 3)
    return [f"Line {n}: {md_code(trim(x, 100))}" for n, x in filled]


def describe_file(path: str, text: str) -> list[str]:
    """Short facts about the file at ``path`` (project metadata, README or an outline)."""
    name = PurePosixPath(path).name
    if name == "pyproject.toml":
        return _pyproject(text)
    if name == "package.json":
        return _package_json(text)
    if name == "Cargo.toml":
        return _cargo(text)
    if name.lower().startswith("readme"):
        title, paragraph = readme_summary(text)
        out = [f'Title: "{md_text(title)}"'] if title else []
        return out + ([f"First paragraph: {md_text(paragraph)}"] if paragraph else [])
    return _outline(path, text)
