"""What a project's own config file may set before the person trusts its folder.

A repository can hold ``.steiner/config.toml``, and a cloned repository is anyone's. Until its
folder is trusted, the file may set only what can neither leak nor run: ``[context]``,
``[skills]``, ``[compaction]``, ``[ui]``, a model's ``compaction_threshold_tokens`` and
``compaction_mode``, and a ``default_model`` whose provider the user's config (or the built-in
aliases) defines. Everything else (providers, base URLs, key variables, other model settings,
``[permissions]``, ``[keymap]``, ``[sessions]``, ``[tools]``, ``[compaction_fallback]``) is held
back, named in one warning, and shown by the workbench's trust prompt. ``[trust]`` is read only
from the user's file: a project never trusts itself or another folder.

A folder is trusted when it, or a folder above it, is in the user config's ``[trust] folders``,
or for one run with ``--trust-project`` (or the trust prompt's "this time").
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["is_trusted", "key_names", "split_project"]

SAFE_TABLES = frozenset({"context", "skills", "compaction", "ui"})
"""Tables a project file may set whole before its folder is trusted."""
SAFE_MODEL_KEYS = frozenset({"compaction_threshold_tokens", "compaction_mode"})
"""The keys of a ``[models."<ref>"]`` table a project file may set before trust."""
USER_ONLY = frozenset({"trust"})
"""Tables read only from the user's file, trusted folder or not."""


def _alias(ref: str) -> str:
    return ref.split("/", 1)[0] if "/" in ref else ref


def split_project(
    table: Mapping[str, Any], aliases: Collection[str], *, trusted: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(kept, held_back)``: the project file's settings that apply, and the ones that do not.

    Args:
        table: the project file's TOML tables.
        aliases: the provider aliases the user's config and the built-ins define.
        trusted: the folder is trusted (only ``[trust]`` is held back then).
    """
    kept: dict[str, Any] = {}
    held: dict[str, Any] = {}
    for key, value in table.items():
        if key in USER_ONLY:
            held[key] = value
        elif (
            trusted
            or key in SAFE_TABLES
            or (key == "default_model" and isinstance(value, str) and _alias(value) in aliases)
        ):
            kept[key] = value
        elif key == "models" and isinstance(value, Mapping):
            safe, unsafe = _split_models(value)
            if safe:
                kept[key] = safe
            if unsafe:
                held[key] = unsafe
        else:
            held[key] = value
    return kept, held


def _split_models(models: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    safe: dict[str, Any] = {}
    unsafe: dict[str, Any] = {}
    for ref, entry in models.items():
        if not isinstance(entry, Mapping):
            unsafe[ref] = entry
            continue
        kept = {k: v for k, v in entry.items() if k in SAFE_MODEL_KEYS}
        held = {k: v for k, v in entry.items() if k not in SAFE_MODEL_KEYS}
        if kept:
            safe[ref] = kept
        if held:
            unsafe[ref] = held
    return safe, unsafe


def _part(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name, ensure_ascii=False)


def key_names(held: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The held-back keys as TOML writes them (``providers.evil.base_url``, ``keymap."a.b"``)."""
    names: list[str] = []
    for key, value in held.items():
        name = f"{prefix}{_part(str(key))}"
        if isinstance(value, Mapping) and value:
            names.extend(key_names(value, f"{name}."))
        else:
            names.append(name)
    return names


def is_trusted(root: Path, folders: Iterable[str]) -> bool:
    """Whether ``root`` or a folder above it is one of ``folders`` (``~`` expanded, resolved)."""
    real = root.resolve()
    for folder in folders:
        trusted = Path(folder).expanduser()
        if trusted.is_absolute() and real.is_relative_to(trusted.resolve()):
            return True
    return False
