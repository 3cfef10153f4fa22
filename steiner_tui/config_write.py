"""Writing a setting the person chose into the project config, keeping the rest of the file.

Only on request (the what-if view's "save" key): the value goes into
``<root>/.steiner/config.toml`` through ``tomlkit``, which keeps comments, order and formatting,
so the file reads as it did with one key added or changed. The result is validated like any
config file before it is written (``config.parse_config``), and written atomically (a
temporary file, then a rename).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Table

from steiner_tui import paths
from steiner_tui.config import ConfigError, parse_config

__all__ = ["write_compaction_mode", "write_compaction_threshold"]


def _load(path: Path) -> tomlkit.TOMLDocument:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
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


def _save(path: Path, document: tomlkit.TOMLDocument) -> None:
    text = tomlkit.dumps(document)
    parse_config([(str(path), tomlkit.parse(text).unwrap())])  # as strict as reading it back
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_compaction_threshold(project_root: Path, model_ref: str, tokens: int) -> Path:
    """Set ``[models."<model_ref>"] compaction_threshold_tokens = tokens`` in the project config.

    Returns:
        The file written.

    Raises:
        ConfigError: the file is not TOML, or the result would not be a valid config.
        OSError: the file cannot be written.
    """
    path = paths.project_config_file(project_root)
    document = _load(path)
    models = _table(document, "models")
    model = _table(models, model_ref)
    model["compaction_threshold_tokens"] = tokens
    _save(path, document)
    return path


def write_compaction_mode(project_root: Path, mode: str) -> Path:
    """Set ``[compaction] mode = mode`` in the project config (see above)."""
    path = paths.project_config_file(project_root)
    document = _load(path)
    _table(document, "compaction")["mode"] = mode
    _save(path, document)
    return path
