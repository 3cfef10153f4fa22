"""The typed configuration, loaded once from TOML and passed in.

Files: the user file ``CONFIG/config.toml`` (``steiner_tui.paths.user_config_file()``) and the
optional project file ``<root>/.steiner/config.toml``. Both are optional. **The project file
wins** for what it may set: tables are merged key by key (deep), and a key set in both takes the
project's value; arrays are replaced, not concatenated. Until the person trusts the project's
folder, the project file may set only what can neither leak nor run (``config_trust``); the rest
is held back in ``Config.untrusted`` and named in one warning.

Schema: the tables are declared once, as msgspec ``Struct``s with their defaults
(``ConfigTables`` and the structs it holds), and the merged tables are decoded with
``msgspec.convert`` in strict mode with unknown fields forbidden. Provider tables are the one
exception: each ``[providers.<alias>]`` is laid over its built-in alias first and then decoded
as a ``ProviderConfig``.

Defaults: ``default_model`` is always ``"offline"`` unless a file sets it; an API key in the
environment does not change the default. Provider aliases ``anthropic``, ``openai``,
``openai_responses``, ``offline`` and ``local`` (an OpenAI-compatible server at Ollama's default
address, no key) always exist; ``[providers.<alias>]`` adjusts them or adds new ones (``type`` is
then required).

Secrets: API keys are never read from files. ``api_key_env`` names the environment variable a
provider's key comes from (defaults ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``; ``OPENAI_BASE_URL``
is the built-in ``openai`` providers' default base URL). ``[tools] secret_env`` adds names or
``fnmatch`` patterns to the variables kept from tool subprocesses (``tools.environment``).
Nothing here writes files.

Errors: a wrong type or value raises ``ConfigError`` naming the file, the key and the value
(a file that is not UTF-8 or not TOML, too). Unknown keys are never fatal and never silent: the
strict decode finds them, each becomes one sentence in ``Config.warnings`` naming its file, and
the rest is decoded without them (``config_decode`` turns msgspec's errors into those messages).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

import msgspec

from steiner_tui import paths
from steiner_tui.config_decode import (
    ConfigError,
    Decoder,
    KeyPath,
    files_setting,
    value_text,
)
from steiner_tui.config_trust import is_trusted, key_names, split_project
from steiner_tui.config_values import Duration, KeySpec, decode_hook, url_problem
from steiner_tui.engine.budget import threshold_problem
from steiner_tui.engine.compaction.policy import AutoCompaction
from steiner_tui.engine.frozen import freeze, thaw
from steiner_tui.engine.models import model_key
from steiner_tui.engine.prices import ModelPrice, PriceOverrides
from steiner_tui.engine.provider import LARGEST_WINDOW

__all__ = [
    "CompactionFallbackConfig",
    "CompactionTable",
    "Config",
    "ConfigError",
    "ConfigTables",
    "ContextTable",
    "ModelConfig",
    "ProviderConfig",
    "TrustTable",
    "load_config",
    "parse_config",
]

ProviderType = Literal["anthropic", "openai", "openai_responses", "offline"]
Permission = Literal["ask", "allow", "deny"]

Positive = Annotated[int, msgspec.Meta(gt=0)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]
Seconds = Annotated[float, msgspec.Meta(gt=0)]
Tokens = Annotated[int, msgspec.Meta(gt=0, le=LARGEST_WINDOW)]
"""A token figure of a model: no window holds more than ``LARGEST_WINDOW``."""


class _Table(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every table: immutable, strict, unknown keys reported."""


class ProviderConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One provider alias: its API type, endpoint and where its key comes from."""

    alias: str
    type: ProviderType
    base_url: str | None = None
    api_key_env: str = ""
    """Environment variable holding the key; empty means the server needs none."""
    timeout: Seconds = 600.0
    max_retries: NonNegative = 2
    stream_delay_ms: NonNegative = 0
    """Offline model only: pause between streamed chunks, so streaming and Esc can be seen."""
    local: bool | None = None
    """An OpenAI-type server someone runs (llama.cpp, Ollama, vLLM) rather than a hosted API;
    None: judged from ``base_url`` (``server_limits.self_hosted``)."""


class ModelConfig(_Table, frozen=True):
    """Overrides for one model ref (``alias/model``); ``None`` keeps the registry's value."""

    context_window: Tokens | None = None
    """The window in tokens; wins over what the server reports and over the registry."""
    max_output: Tokens | None = None
    """The model's largest reply in tokens (the default completion reserve)."""
    vision: bool | None = None
    compaction_threshold_tokens: Tokens | None = None
    compaction_mode: AutoCompaction | None = None
    """This model's compaction mode (``auto``, ``ask``, ``off``); wins over ``[compaction]``."""
    max_tokens: Tokens | None = None
    """An explicit completion limit: lowers the reserve (and the request's max tokens)."""
    params: Mapping[str, Any] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    """Request fields sent with every call (``temperature``, ``top_p``, ``seed``...)."""
    extra_params: Mapping[str, Any] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    """Server-specific request fields (``cache_prompt``, ``top_k``...); win over ``params``."""
    price: ModelPrice | None = None
    """Dollars per million tokens (``input``, ``output``, ``cache_read``, ``cache_write``);
    wins over the built-in price table (``engine.prices``)."""

    def __post_init__(self) -> None:
        # Tables decode as dicts; the request fields are kept deep-frozen.
        msgspec.structs.force_setattr(self, "params", freeze(self.params))
        msgspec.structs.force_setattr(self, "extra_params", freeze(self.extra_params))
        if problem := threshold_problem(self.compaction_threshold_tokens, self.context_window or 0):
            raise ValueError(problem)


class CompactionFallbackConfig(_Table, frozen=True):
    """A second model for compaction summaries once the main cache is idle for ``after``."""

    model: str = ""
    after: Duration = Duration(0)


class CompactionTable(_Table, frozen=True):
    """``[compaction]``: whether compaction runs by itself (``auto``), asks first (``ask``) or
    never runs by itself (``off``)."""

    mode: AutoCompaction = "auto"


class PermissionsTable(_Table, frozen=True):
    """``[permissions]``: tool name -> ``ask`` | ``allow`` | ``deny``."""

    write: Permission = "ask"
    edit: Permission = "ask"
    bash: Permission = "ask"


class SessionsTable(_Table, frozen=True):
    """``[sessions]``: how many sessions ``evict`` keeps."""

    keep: Positive = 50


class ContextTable(_Table, frozen=True):
    """``[context]``: project files in every request (read by ``engine.prompt``)."""

    files: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    budget_bytes: NonNegative = 0
    """The project context's own byte budget; 0 uses the assembly policy's."""


class SkillsTable(_Table, frozen=True):
    """``[skills]``: skills enabled at start and extra skill roots."""

    enabled: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()


class UiTable(_Table, frozen=True):
    """``[ui]``: the Textual theme (checked against the app's themes when the app starts), the
    prompt's cursor blink, the file watcher (tests turn both off) and the typing burst window
    (milliseconds; 0: a bound key acts at once, as pilot tests press keys)."""

    theme: str | None = None
    cursor_blink: bool = True
    watch_files: bool = True
    typing_burst_ms: NonNegative = 80


class ToolsTable(_Table, frozen=True):
    """``[tools]``: environment variables (names or patterns) kept from tool subprocesses."""

    secret_env: tuple[str, ...] = ()


class TrustTable(_Table, frozen=True):
    """``[trust]`` (read from the user's file only): folders whose own project config applies
    in full, each with the folders below it."""

    folders: tuple[str, ...] = ()


class ConfigTables(_Table, frozen=True):
    """Every table of a config file with its default: the schema, declared once."""

    default_model: str = "offline"
    providers: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    """Decoded one by one over the built-in aliases (``ProviderConfig``)."""
    models: dict[str, ModelConfig] = msgspec.field(default_factory=dict)
    compaction_fallback: CompactionFallbackConfig = CompactionFallbackConfig()
    compaction: CompactionTable = CompactionTable()
    permissions: PermissionsTable = PermissionsTable()
    keymap: dict[str, KeySpec] = msgspec.field(default_factory=dict)
    """Binding id -> keys (``App.set_keymap`` format)."""
    sessions: SessionsTable = SessionsTable()
    context: ContextTable = ContextTable()
    skills: SkillsTable = SkillsTable()
    ui: UiTable = UiTable()
    tools: ToolsTable = ToolsTable()
    trust: TrustTable = TrustTable()


def _builtin_providers(env: Mapping[str, str]) -> dict[str, ProviderConfig]:
    openai_url = env.get("OPENAI_BASE_URL") or None
    if openai_url is not None and (problem := url_problem(openai_url)):
        raise ConfigError(f"the environment's OPENAI_BASE_URL = {openai_url!r}: {problem}")
    return {
        "anthropic": ProviderConfig("anthropic", "anthropic", api_key_env="ANTHROPIC_API_KEY"),
        "openai": ProviderConfig("openai", "openai", openai_url, "OPENAI_API_KEY"),
        "openai_responses": ProviderConfig(
            "openai_responses", "openai_responses", openai_url, "OPENAI_API_KEY"
        ),
        "offline": ProviderConfig("offline", "offline"),
        "local": ProviderConfig("local", "openai", "http://127.0.0.1:11434/v1"),
    }


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the app, the runner and the providers read from configuration.

    ``tables`` holds the decoded settings; the properties below are the names the rest of the
    code reads them by.
    """

    tables: ConfigTables = ConfigTables()
    providers: Mapping[str, ProviderConfig] = msgspec.field(
        default_factory=lambda: MappingProxyType(_builtin_providers({}))
    )
    warnings: tuple[str, ...] = ()
    """Unknown keys and other non-fatal findings, one sentence each."""
    sources: tuple[Path, ...] = ()
    """The files that were read, user file first."""
    origins: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    """The ``(where, table)`` pairs merged, in precedence order (for ``where``)."""
    untrusted: Mapping[str, Any] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    """What the project file asks for that does not apply until its folder is trusted."""

    def __repr__(self) -> str:
        # The raw tables may hold keys the schema refused (a pasted ``api_key``): never shown.
        return (
            f"Config(tables={self.tables!r}, providers={dict(self.providers)!r}, "
            f"warnings={self.warnings!r}, sources={self.sources!r})"
        )

    @property
    def default_model(self) -> str:
        return self.tables.default_model

    @property
    def models(self) -> Mapping[str, ModelConfig]:
        return MappingProxyType(self.tables.models)

    @property
    def price_overrides(self) -> PriceOverrides:
        """Each ``[models."<ref>"] price`` by the ref's model id (``anthropic/claude-x`` and
        ``claude-x`` both price ``claude-x``; a bare id wins over a provider's ref): captures
        and imports know a model id, not a ref."""
        prices: dict[str, ModelPrice] = {}
        for ref, table in self.tables.models.items():
            key = model_key(ref)
            if table.price is not None and (key not in prices or "/" not in ref):
                prices[key] = table.price
        return MappingProxyType(prices)

    @property
    def compaction_fallback(self) -> CompactionFallbackConfig:
        return self.tables.compaction_fallback

    def compaction_mode_for(self, alias: str, model: str) -> AutoCompaction:
        """The compaction mode of the model ``alias/model``: its ``[models."<ref>"]
        compaction_mode`` when set, else ``[compaction] mode``."""
        override = self.tables.models.get(f"{alias}/{model}") or self.tables.models.get(model)
        if override is not None and override.compaction_mode is not None:
            return override.compaction_mode
        return self.tables.compaction.mode

    @property
    def permissions(self) -> Mapping[str, str]:
        """Tool name -> ``ask`` | ``allow`` | ``deny``."""
        return MappingProxyType(msgspec.structs.asdict(self.tables.permissions))

    @property
    def keymap(self) -> Mapping[str, str]:
        """Binding id -> keys (``App.set_keymap`` format)."""
        return MappingProxyType({key: str(value) for key, value in self.tables.keymap.items()})

    @property
    def sessions_keep(self) -> int:
        return self.tables.sessions.keep

    @property
    def context_files(self) -> tuple[str, ...]:
        return self.tables.context.files

    @property
    def skills_enabled(self) -> tuple[str, ...]:
        return self.tables.skills.enabled

    @property
    def skill_roots(self) -> tuple[str, ...]:
        return self.tables.skills.roots

    @property
    def theme(self) -> str | None:
        return self.tables.ui.theme

    @property
    def cursor_blink(self) -> bool:
        """``[ui] cursor_blink``: the prompt's cursor blinks."""
        return self.tables.ui.cursor_blink

    @property
    def typing_burst(self) -> float:
        """``[ui] typing_burst_ms`` in seconds: keys closer than this are one burst of typing."""
        return self.tables.ui.typing_burst_ms / 1000

    @property
    def watch_files(self) -> bool:
        """``[ui] watch_files``: AGENTS.md, project-context files and skills are followed."""
        return self.tables.ui.watch_files

    @property
    def secret_env(self) -> tuple[str, ...]:
        """``[tools] secret_env``: extra variables kept from tool subprocesses."""
        return self.tables.tools.secret_env

    def permission(self, tool: str) -> str:
        """The policy for ``tool``: ``ask`` unless configured."""
        return self.permissions.get(tool, "ask")

    def where(self, key: str | Sequence[str]) -> str:
        """The file that set ``key`` (dotted, e.g. ``"ui.theme"``, or its parts, for a key
        holding dots: ``("keymap", "main.cancel")``), or ``"defaults"``."""
        path = key.split(".") if isinstance(key, str) else list(key)
        found = files_setting(self.origins, path)
        return found[-1] if found else "defaults"

    def error(self, path: Sequence[str], reason: str) -> ConfigError:
        """The error for the value at ``path``, naming the file that set it and its value."""
        return Decoder(list(self.origins)).error(list(path), reason)

    @property
    def trusted_folders(self) -> tuple[str, ...]:
        """``[trust] folders`` of the user's file."""
        return self.tables.trust.folders


def _deep_merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def _providers(
    tables: Mapping[str, Any], env: Mapping[str, str], decoder: Decoder
) -> dict[str, ProviderConfig]:
    providers = _builtin_providers(env)
    problems: list[ConfigError] = []
    for alias, table in tables.items():
        try:
            providers[alias] = _provider(alias, table, providers.get(alias), decoder)
        except ConfigError as error:  # the next provider may be wrong too: say all at once
            problems.append(error)
    if problems:
        raise ConfigError.joined(problems)
    return providers


def _provider(
    alias: str, table: Any, base: ProviderConfig | None, decoder: Decoder
) -> ProviderConfig:
    path: KeyPath = ["providers", alias]
    if not isinstance(table, Mapping):
        raise decoder.error(path, "expected a table")
    kind = table.get("type", base.type if base else None)
    if kind is None:
        raise decoder.error([*path, "type"], "is required for a new provider")
    fields = dict(table)
    if "alias" in fields:
        decoder.warn_unknown([*path, "alias"])
        del fields["alias"]
    inherited = msgspec.structs.asdict(base) if base is not None and kind == base.type else {}
    merged = {**inherited, **fields, "alias": alias, "type": kind}
    decoded: ProviderConfig = decoder.decode(merged, ProviderConfig, path)
    if decoded.base_url is not None and (problem := url_problem(decoded.base_url)):
        raise decoder.error([*path, "base_url"], problem)
    return decoded


def _check_context_files(config: Config, project_root: Path) -> None:
    """Every ``[context] files`` entry stays inside the project, symlinks followed.

    The engine refuses an escaping path when it assembles a request; checking here too turns
    that into one clear configuration error before any command starts its work.

    Raises:
        ConfigError: naming the file, the entry and the project root.
    """
    real_root = project_root.resolve()
    for index, candidate in enumerate(config.context_files):
        target = (project_root / candidate.strip()).resolve()
        if not target.is_relative_to(real_root):
            raise ConfigError(
                f"{config.where('context.files')}: 'context.files[{index}]' = "
                f"{value_text(candidate)}: escapes the project root {real_root}"
            )


_FAMILIES: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"),
    ("claude-", "anthropic"), ("offline", "offline"),
)  # fmt: skip
"""Model-name beginnings and the provider that serves them (``/model``'s "did you mean")."""


def nearest_ref(name: str, refs: Sequence[str]) -> str | None:
    """The model reference ``name`` probably meant: one of ``refs`` with that model name, else
    one whose model name starts with it (``off`` -> ``offline/offline``), else the name under
    its family's provider (``gpt-5`` -> ``openai/gpt-5``)."""
    if "/" in name or not name:
        return None
    lower = name.lower()
    models = [(ref, ref.rpartition("/")[2].lower()) for ref in refs]
    same = next((ref for ref, model in models if model == lower), None)
    begun = next((ref for ref, model in models if model.startswith(lower)), None)
    family = next((f"{p}/{name}" for start, p in _FAMILIES if lower.startswith(start)), None)
    return same or begun or family


def parse_config(
    tables: list[tuple[str, Mapping[str, Any]]], env: Mapping[str, str] | None = None
) -> Config:
    """Validate and merge already-parsed TOML tables, later ones winning.

    Args:
        tables: ``(where, table)`` pairs in precedence order (user first, project last);
            ``where`` names the source in messages.
        env: the environment (only ``OPENAI_BASE_URL`` is read here).

    Returns:
        The decoded configuration (``sources`` empty; ``load_config`` sets them).

    Raises:
        ConfigError: a value has the wrong type or is out of range.
    """
    origins = [(where, thaw(table)) for where, table in tables]
    merged: dict[str, Any] = {}
    for where, table in origins:
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: expected a table of settings")
        merged = _deep_merge(merged, table)
    decoder = Decoder(origins, decode_hook)
    providers = merged.get("providers", {})
    if not isinstance(providers, Mapping):
        raise decoder.error(["providers"], "expected a table")
    problems: list[ConfigError] = []
    try:
        decoded: ConfigTables = decoder.decode({**merged, "providers": {}}, ConfigTables)
    except ConfigError as error:  # the providers are checked too: every problem at once
        problems.append(error)
    try:
        built = _providers(providers, env or {}, decoder)
    except ConfigError as error:
        problems.append(error)
    if problems:
        raise ConfigError.joined(problems)
    return Config(
        tables=decoded,
        providers=MappingProxyType(built),
        warnings=tuple(decoder.warnings),
        origins=tuple((where, freeze(table)) for where, table in origins),
    )


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: not valid UTF-8 (byte {exc.start + 1}), on line {line}"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def load_config(
    project_root: Path | None,
    env: Mapping[str, str],
    *,
    user_file: Path | None = None,
    trust_project: bool = False,
) -> Config:
    """Load the user file and the project file (the project wins for what it may set).

    Args:
        project_root: the project whose ``.steiner/config.toml`` applies, if any; its
            ``[context] files`` must stay inside it.
        env: the process environment (only ``OPENAI_BASE_URL`` is read here; keys are read by
            the provider factory).
        user_file: the user config file; ``paths.user_config_file()`` when not given.
        trust_project: trust the project's folder for this run (``--trust-project``), as if
            it were in ``[trust] folders``.

    Returns:
        The configuration, with the files read in ``sources`` and what an untrusted project
        file asked for in ``untrusted``.

    Raises:
        ConfigError: a file is not UTF-8 or not TOML, or holds a wrong type or value.
    """
    user_path = user_file or paths.user_config_file()
    tables: list[tuple[str, Mapping[str, Any]]] = []
    sources: list[Path] = []
    user_table = _read(user_path)
    if user_table is not None:
        tables.append((str(user_path), user_table))
        sources.append(user_path)
    held: dict[str, Any] = {}
    project_path = paths.project_config_file(project_root) if project_root else None
    project_table = _read(project_path) if project_path is not None else None
    if project_root is not None and project_path is not None and project_table is not None:
        user_config = parse_config(tables, env)
        trusted = trust_project or is_trusted(project_root, user_config.trusted_folders)
        kept, held = split_project(project_table, user_config.providers, trusted=trusted)
        tables.append((str(project_path), kept))
        sources.append(project_path)
    config = msgspec.structs.replace(parse_config(tables, env), sources=tuple(sources))
    notes: list[str] = []
    if held.pop("trust", None) is not None:
        notes.append(f"{project_path}: '[trust]' is read only from {user_path}; ignored")
    if held:
        notes.append(
            f"{project_path}: ignored until this folder is trusted: "
            f"{', '.join(key_names(held))} (trust it in the workbench's prompt, with "
            f"--trust-project, or in [trust] folders of {user_path})"
        )
        config = msgspec.structs.replace(config, untrusted=freeze(held))
    if notes:
        config = msgspec.structs.replace(config, warnings=(*config.warnings, *notes))
    if project_root is not None:
        _check_context_files(config, project_root)
    return config
