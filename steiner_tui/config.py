"""The typed configuration, loaded once from TOML and passed in.

Files: the user file ``CONFIG/config.toml`` (``steiner_tui.paths.user_config_file()``) and the
optional project file ``<root>/.steiner/config.toml``. Both are optional. **The project file
wins**: tables are merged key by key (deep), and a key set in both takes the project's value;
arrays are replaced, not concatenated.

Defaults: ``default_model`` is always ``"offline"`` unless a file sets it; an API key in the
environment does not change the default. Provider aliases ``anthropic``, ``openai``,
``openai_responses``, ``offline`` and ``local`` (an OpenAI-compatible server at Ollama's default
address, no key) always exist; ``[providers.<alias>]`` adjusts them or adds new ones (``type`` is
then required).

Secrets: API keys are never read from files. ``api_key_env`` names the environment variable a
provider's key comes from (defaults ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``; ``OPENAI_BASE_URL``
is the built-in ``openai`` providers' default base URL). Nothing here writes files.

Errors: a wrong type or value raises ``ConfigError`` naming the file and the key; unknown keys
only produce ``Config.warnings``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from steiner_tui import paths
from steiner_tui.engine.frozen import freeze, thaw

__all__ = [
    "PROVIDER_TYPES",
    "CompactionFallbackConfig",
    "Config",
    "ConfigError",
    "ModelConfig",
    "ProviderConfig",
    "load_config",
    "parse_config",
    "parse_duration",
]

PROVIDER_TYPES = ("anthropic", "openai", "openai_responses", "offline")
PERMISSION_VALUES = ("ask", "allow", "deny")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


class ConfigError(ValueError):
    """The configuration cannot be used; the message names the file and key."""


def parse_duration(text: str) -> timedelta:
    """Parse ``90s``, ``10m``, ``1h30m``, ``250ms`` (``h m s ms us µs ns``; ``0`` is zero).

    Raises:
        ValueError: the text is not a duration.
    """
    value = text.strip()
    if value == "0":
        return timedelta(0)
    pos, total = 0, 0.0
    for match in _DURATION.finditer(value):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos == 0 or pos != len(value):
        raise ValueError(f"not a duration: {text!r} (use e.g. 90s, 10m, 1h30m)")
    return timedelta(seconds=total)


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """One provider alias: its API type, endpoint and where its key comes from."""

    alias: str
    type: str
    base_url: str | None = None
    api_key_env: str = ""
    """Environment variable holding the key; empty means the server needs none."""
    timeout: float = 600.0
    max_retries: int = 2
    stream_delay_ms: int = 0
    """Offline model only: pause between streamed chunks, so streaming and Esc can be seen."""


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """Overrides for one model ref (``alias/model``); ``None`` keeps the registry's value."""

    context_window: int | None = None
    """The window in tokens; wins over what the server reports and over the registry."""
    max_output: int | None = None
    """The model's largest reply in tokens (the default completion reserve)."""
    vision: bool | None = None
    compaction_threshold_tokens: int | None = None
    max_tokens: int | None = None
    """An explicit completion limit: lowers the reserve (and the request's max tokens)."""
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Request fields sent with every call (``temperature``, ``top_p``, ``seed``...)."""
    extra_params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Server-specific request fields (``cache_prompt``, ``top_k``...); win over ``params``."""


@dataclass(frozen=True, slots=True)
class CompactionFallbackConfig:
    """A second model for compaction summaries once the main cache is idle for ``after``."""

    model: str = ""
    after: timedelta = timedelta(0)


def _builtin_providers(env: Mapping[str, str]) -> dict[str, ProviderConfig]:
    openai_url = env.get("OPENAI_BASE_URL") or None
    return {
        "anthropic": ProviderConfig("anthropic", "anthropic", api_key_env="ANTHROPIC_API_KEY"),
        "openai": ProviderConfig("openai", "openai", openai_url, "OPENAI_API_KEY"),
        "openai_responses": ProviderConfig(
            "openai_responses", "openai_responses", openai_url, "OPENAI_API_KEY"
        ),
        "offline": ProviderConfig("offline", "offline"),
        "local": ProviderConfig("local", "openai", "http://127.0.0.1:11434/v1"),
    }


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the app, the runner and the providers read from configuration."""

    default_model: str = "offline"
    providers: Mapping[str, ProviderConfig] = field(
        default_factory=lambda: MappingProxyType(_builtin_providers({}))
    )
    models: Mapping[str, ModelConfig] = field(default_factory=lambda: MappingProxyType({}))
    compaction_fallback: CompactionFallbackConfig = CompactionFallbackConfig()
    permissions: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType(dict.fromkeys(("write", "edit", "bash"), "ask"))
    )
    """Tool name -> ``ask`` | ``allow`` | ``deny``."""
    keymap: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Binding id -> keys (``App.set_keymap`` format)."""
    sessions_keep: int = 50
    context_files: tuple[str, ...] = ()
    context_ignore: tuple[str, ...] = ()
    skills_enabled: tuple[str, ...] = ()
    skill_roots: tuple[str, ...] = ()
    theme: str | None = None
    warnings: tuple[str, ...] = ()
    """Unknown keys and other non-fatal findings, one sentence each."""
    sources: tuple[Path, ...] = ()
    """The files that were read, user file first."""
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    """The merged, validated TOML tables (frozen), kept so overrides re-validate."""
    env_base_url: str | None = field(default=None, repr=False)

    def permission(self, tool: str) -> str:
        """The policy for ``tool``: ``ask`` unless configured."""
        return self.permissions.get(tool, "ask")

    def with_overrides(self, overrides: Mapping[str, Any] | None = None, **top: Any) -> Config:
        """A copy with ``overrides`` (nested tables, deep-merged) and top-level keys applied.

        Example: ``config.with_overrides({"permissions": {"bash": "allow"}}, default_model="x")``.
        Values are validated like file contents; errors name ``overrides``.
        """
        extra = _deep_merge(dict(overrides or {}), top)
        checked, warnings = _validate(extra, "overrides")
        merged = _deep_merge(thaw(self.raw), checked)
        env = {"OPENAI_BASE_URL": self.env_base_url} if self.env_base_url else {}
        built = _build(merged, env, "overrides")
        return _with(built, self.warnings + tuple(warnings), self.sources)


def _deep_merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


Check = Callable[[Any], Any]


def _typed(kind: type | tuple[type, ...], label: str) -> Check:
    def check(value: Any) -> Any:
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise TypeError(f"expected {label}, got a boolean")
        if not isinstance(value, kind):
            raise TypeError(f"expected {label}, got {type(value).__name__}")
        return value

    return check


def _positive_int(value: Any) -> int:
    number = _typed(int, "an integer")(value)
    if number <= 0:
        raise ValueError(f"expected a positive integer, got {number}")
    return int(number)


def _str_list(value: Any) -> list[str]:
    items = _typed(list, "an array of strings")(value)
    if not all(isinstance(item, str) for item in items):
        raise TypeError("expected an array of strings")
    return list(items)


def _choice(options: tuple[str, ...]) -> Check:
    def check(value: Any) -> str:
        text = _typed(str, "a string")(value)
        if text not in options:
            raise ValueError(f"expected one of {', '.join(options)}; got {text!r}")
        return str(text)

    return check


def _duration(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    parse_duration(_typed(str, "a duration string")(value))
    return value


def _timeout(value: Any) -> float:
    number = _typed((int, float), "a number of seconds")(value)
    if number <= 0:
        raise ValueError(f"expected a positive number of seconds, got {number}")
    return float(number)


def _retries(value: Any) -> int:
    number = _typed(int, "an integer")(value)
    if number < 0:
        raise ValueError(f"expected 0 or more, got {number}")
    return int(number)


def _table(value: Any) -> dict[str, Any]:
    return dict(_typed(dict, "a table")(value))


def _non_negative_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"must be a whole number of 0 or more, got {value!r}")
    return value


_STR = _typed(str, "a string")
_SCHEMA: dict[str, Any] = {
    "default_model": _STR,
    "providers": {
        "*": {
            "type": _choice(PROVIDER_TYPES),
            "base_url": _STR,
            "api_key_env": _STR,
            "timeout": _timeout,
            "max_retries": _retries,
            "stream_delay_ms": _non_negative_int,
        }
    },
    "models": {
        "*": {
            "context_window": _positive_int,
            "max_output": _positive_int,
            "vision": _typed(bool, "true or false"),
            "compaction_threshold_tokens": _positive_int,
            "max_tokens": _positive_int,
            "params": _table,
            "extra_params": _table,
        }
    },
    "compaction_fallback": {"model": _STR, "after": _duration},
    "permissions": {tool: _choice(PERMISSION_VALUES) for tool in ("write", "edit", "bash")},
    "keymap": {"*": _STR},
    "sessions": {"keep": _positive_int},
    "context": {"files": _str_list, "ignore": _str_list},
    "skills": {"enabled": _str_list, "roots": _str_list},
    "ui": {"theme": _STR},
}


def _walk(
    table: Any, schema: dict[str, Any], where: str, prefix: str, warnings: list[str]
) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: '{prefix.rstrip('.')}' must be a table")
    out: dict[str, Any] = {}
    for key, value in table.items():
        spec = schema.get(key, schema.get("*"))
        name = f"{prefix}{key}" if "." not in key and "/" not in key else f'{prefix}"{key}"'
        if spec is None:
            warnings.append(f"{where}: unknown key '{name}' ignored")
        elif isinstance(spec, dict):
            out[key] = _walk(value, spec, where, f"{name}.", warnings)
        else:
            try:
                out[key] = spec(value)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{where}: '{name}': {exc}") from None
    return out


def _validate(table: Mapping[str, Any], where: str) -> tuple[dict[str, Any], list[str]]:
    warnings: list[str] = []
    return _walk(table, _SCHEMA, where, "", warnings), warnings


def _read(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None


def _providers(tables: Mapping[str, Any], env: Mapping[str, str], where: str) -> dict[str, Any]:
    providers: dict[str, ProviderConfig] = _builtin_providers(env)
    for alias, table in tables.items():
        base = providers.get(alias)
        kind = table.get("type", base.type if base else None)
        if kind is None:
            raise ConfigError(f"{where}: 'providers.{alias}.type' is required for a new provider")
        if base is None or kind != base.type:
            base = ProviderConfig(alias, kind)
        providers[alias] = ProviderConfig(
            alias,
            kind,
            table.get("base_url", base.base_url),
            table.get("api_key_env", base.api_key_env),
            table.get("timeout", base.timeout),
            table.get("max_retries", base.max_retries),
            table.get("stream_delay_ms", base.stream_delay_ms),
        )
    return providers


def _models(tables: Mapping[str, Any], where: str) -> dict[str, ModelConfig]:
    models: dict[str, ModelConfig] = {}
    for ref, table in tables.items():
        model = ModelConfig(**{key: freeze(value) for key, value in table.items()})
        window, threshold = model.context_window, model.compaction_threshold_tokens
        if window is not None and threshold is not None and threshold >= window:
            raise ConfigError(
                f'{where}: models."{ref}": compaction_threshold_tokens ({threshold}) must be '
                f"below the context window ({window})"
            )
        models[ref] = model
    return models


def _build(merged: dict[str, Any], env: Mapping[str, str], where: str) -> Config:
    fallback = merged.get("compaction_fallback", {})
    after = fallback.get("after", 0)
    context, skills = merged.get("context", {}), merged.get("skills", {})
    return Config(
        default_model=merged.get("default_model", "offline"),
        providers=MappingProxyType(_providers(merged.get("providers", {}), env, where)),
        models=MappingProxyType(_models(merged.get("models", {}), where)),
        compaction_fallback=CompactionFallbackConfig(
            fallback.get("model", ""),
            timedelta(seconds=after) if isinstance(after, int) else parse_duration(after),
        ),
        permissions=MappingProxyType(
            {**dict.fromkeys(("write", "edit", "bash"), "ask"), **merged.get("permissions", {})}
        ),
        keymap=MappingProxyType(dict(merged.get("keymap", {}))),
        sessions_keep=merged.get("sessions", {}).get("keep", 50),
        context_files=tuple(context.get("files", ())),
        context_ignore=tuple(context.get("ignore", ())),
        skills_enabled=tuple(skills.get("enabled", ())),
        skill_roots=tuple(skills.get("roots", ())),
        theme=merged.get("ui", {}).get("theme"),
        raw=freeze(merged),
        env_base_url=env.get("OPENAI_BASE_URL") or None,
    )


def _with(config: Config, warnings: tuple[str, ...], sources: tuple[Path, ...]) -> Config:
    return replace(config, warnings=warnings, sources=sources)


def parse_config(
    tables: list[tuple[str, Mapping[str, Any]]], env: Mapping[str, str] | None = None
) -> Config:
    """Validate and merge already-parsed TOML tables, later ones winning.

    Args:
        tables: ``(where, table)`` pairs in precedence order (user first, project last);
            ``where`` names the source in messages.
        env: the environment (only ``OPENAI_BASE_URL`` is read here).
    """
    merged: dict[str, Any] = {}
    warnings: list[str] = []
    for where, table in tables:
        checked, found = _validate(table, where)
        warnings.extend(found)
        merged = _deep_merge(merged, checked)
    where = " + ".join(w for w, _ in tables) or "defaults"
    return _with(_build(merged, env or {}, where), tuple(warnings), ())


def load_config(
    project_root: Path | None, env: Mapping[str, str], *, user_file: Path | None = None
) -> Config:
    """Load the user file and the project file (the project wins).

    Args:
        project_root: the project whose ``.steiner/config.toml`` applies, if any.
        env: the process environment (only ``OPENAI_BASE_URL`` is read here; keys are read by
            the provider factory).
        user_file: the user config file; ``paths.user_config_file()`` when not given.

    Raises:
        ConfigError: a file is not valid TOML or holds a wrong type or value.
    """
    candidates = [user_file or paths.user_config_file()]
    if project_root is not None:
        candidates.append(paths.project_config_file(project_root))
    tables: list[tuple[str, Mapping[str, Any]]] = []
    sources: list[Path] = []
    for path in candidates:
        table = _read(path)
        if table is not None:
            tables.append((str(path), table))
            sources.append(path)
    config = parse_config(tables, env)
    return _with(config, config.warnings, tuple(sources))
