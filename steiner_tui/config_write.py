"""Writing a setting the person chose into a config file, keeping the rest of the file.

The project config takes a compaction threshold or mode; the user config takes a folder the
person trusts (``plan_trust_folder``, from the workbench's trust prompt) and the theme chosen
in the workbench (``plan_theme``: kept for the next run, as Claude Code keeps ``/theme``).

Only on request (the what-if view's save key, ``/whatif N save``, ``/compaction save``, a theme
picked), and in two steps so the person sees the change before it is made: ``plan_*`` reads
``<root>/.steiner/config.toml`` and returns a ``ConfigChange`` (the file, its text before and
after, and ``diff_lines``, the unified diff between them), and ``write_change`` writes it.
The text after is made by ``tomlkit``, which keeps comments, order and formatting, so the file
reads as it did with one key added or changed. A plan is validated like any config file
(``config.parse_config``) before it is returned, and written atomically (a temporary file,
then a rename), only while the file still holds the text the plan was made from.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import tomlkit
from tomlkit.items import Table

from steiner_tui import paths
from steiner_tui.config import ConfigError, parse_config

__all__ = [
    "ConfigChange",
    "diff_lines",
    "plan_compaction_mode",
    "plan_compaction_threshold",
    "plan_theme",
    "plan_trust_folder",
    "write_change",
]


class ConfigChange(msgspec.Struct, frozen=True):
    """One planned change of a config file: its text before (None: no file yet) and after."""

    path: Path
    before: str | None
    after: str


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _load(path: Path, text: str | None) -> tomlkit.TOMLDocument:
    if text is None:
        return tomlkit.document()
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _table(parent: Any, key: str) -> Table:
    found = parent.get(key)
    if found is None:
        found = tomlkit.table()
        parent[key] = found
    if not isinstance(found, Table):
        raise ConfigError(f"'{key}' is not a table")
    return found


def _plan(project_root: Path, edit: Callable[[tomlkit.TOMLDocument], None]) -> ConfigChange:
    """The project config with ``edit`` applied, validated as strictly as reading it back."""
    return _plan_file(paths.project_config_file(project_root), edit)


def _plan_file(path: Path, edit: Callable[[tomlkit.TOMLDocument], None]) -> ConfigChange:
    before = _read(path)
    document = _load(path, before)
    edit(document)
    after = tomlkit.dumps(document)
    parse_config([(str(path), tomlkit.parse(after).unwrap())])
    return ConfigChange(path, before, after)


def plan_compaction_threshold(project_root: Path, model_ref: str, tokens: int) -> ConfigChange:
    """``[models."<model_ref>"] compaction_threshold_tokens = tokens`` in the project config.

    Raises:
        ConfigError: the file is not TOML, or the result would not be a valid config.
        OSError: the file cannot be read.
    """

    def edit(document: tomlkit.TOMLDocument) -> None:
        _table(_table(document, "models"), model_ref)["compaction_threshold_tokens"] = tokens

    return _plan(project_root, edit)


def plan_compaction_mode(project_root: Path, mode: str) -> ConfigChange:
    """``[compaction] mode = mode`` in the project config (raises as above)."""

    def edit(document: tomlkit.TOMLDocument) -> None:
        _table(document, "compaction")["mode"] = mode

    return _plan(project_root, edit)


def plan_trust_folder(project_root: Path, user_file: Path | None = None) -> ConfigChange:
    """``project_root`` (resolved) added to ``[trust] folders`` in the user config
    (``user_file``, default ``paths.user_config_file()``); raises as above."""
    folder = str(project_root.resolve())

    def edit(document: tomlkit.TOMLDocument) -> None:
        table = _table(document, "trust")
        folders = table.get("folders")
        if folders is None:
            table["folders"] = [folder]
        elif not isinstance(folders, list):
            raise ConfigError("'trust.folders' is not an array")
        elif folder not in folders:
            folders.append(folder)

    return _plan_file(user_file or paths.user_config_file(), edit)


def plan_theme(theme: str, user_file: Path) -> ConfigChange:
    """``[ui] theme = theme`` in the user config ``user_file`` (raises as above)."""

    def edit(document: tomlkit.TOMLDocument) -> None:
        _table(document, "ui")["theme"] = theme

    return _plan_file(user_file, edit)


def diff_lines(change: ConfigChange) -> list[str]:
    """The change as a unified diff's hunks (``@@`` headers, then `` ``, ``-`` and ``+`` lines;
    a new file is all added), without the ``---``/``+++`` file names; empty: no change."""
    before = [] if change.before is None else change.before.splitlines()
    lines = list(difflib.unified_diff(before, change.after.splitlines(), lineterm=""))
    return lines[2:]  # a diff starts with the two file names


def write_change(change: ConfigChange) -> Path:
    """Write ``change.after`` to ``change.path`` atomically (when it differs); the file.

    Raises:
        ConfigError: the file no longer holds the text the change was planned from (edited
            since): nothing is written.
        OSError: the file cannot be read or written (it is left as it was).
    """
    path = change.path
    if _read(path) != change.before:
        raise ConfigError(f"{path} changed since the change was shown; nothing was written")
    if change.after == change.before:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(change.after)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
