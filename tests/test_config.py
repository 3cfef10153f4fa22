"""Config loading: precedence, validation, durations, keys only from the environment."""

from __future__ import annotations

import json
import re
import string
import unicodedata
from datetime import timedelta
from pathlib import Path

import pytest
from textual.keys import KEY_NAME_REPLACEMENTS, Keys, key_to_character

from steiner_tui.commands.app import check_theme
from steiner_tui.config import Config, ConfigError, load_config, parse_config
from steiner_tui.config_values import NAMED_KEYS, parse_duration, validate_key_spec
from steiner_tui.providers.factory import build_provider, resolve_model


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """(user config file, project root), both initially without files."""
    return tmp_path / "user" / "config.toml", tmp_path / "project"


def test_defaults_without_files(files: tuple[Path, Path]) -> None:
    user, root = files
    config = load_config(root, {"ANTHROPIC_API_KEY": "sk-ant"}, user_file=user)
    assert config.default_model == "offline"
    assert set(config.providers) >= {"anthropic", "openai", "openai_responses", "offline"}
    assert config.permission("bash") == "ask"
    assert config.sessions_keep == 50
    assert config.compaction_fallback.after == timedelta(0)
    assert config.sources == ()
    assert config.warnings == ()


def test_project_file_wins_with_deep_merge(files: tuple[Path, Path]) -> None:
    user, root = files
    write(
        user,
        'default_model = "anthropic/claude-sonnet-4-5"\n'
        '[permissions]\nbash = "allow"\nwrite = "allow"\n'
        '[models."openai/gpt-4o"]\ncontext_window = 64000\nmax_output = 2000\n'
        '[context]\nfiles = ["a.md", "b.md"]\n',
    )
    write(
        root / ".steiner" / "config.toml",
        'default_model = "openai/gpt-4o"\n'
        '[permissions]\nbash = "deny"\n'
        '[models."openai/gpt-4o"]\nmax_output = 1000\n'
        '[context]\nfiles = ["c.md"]\n',
    )
    config = load_config(root, {}, user_file=user, trust_project=True)
    assert config.default_model == "openai/gpt-4o"
    assert config.permission("bash") == "deny"
    assert config.permission("write") == "allow"
    model = config.models["openai/gpt-4o"]
    assert (model.context_window, model.max_output) == (64000, 1000)
    assert config.context_files == ("c.md",)
    assert config.sources == (user, root / ".steiner" / "config.toml")


def test_unknown_keys_are_warnings(files: tuple[Path, Path]) -> None:
    user, root = files
    write(user, 'colour = "blue"\n[ui]\ntheme = "nord"\nfont = 3\n')
    config = load_config(root, {}, user_file=user)
    assert config.theme == "nord"
    assert len(config.warnings) == 2
    assert all(str(user) in w for w in config.warnings)
    assert any("'colour'" in w for w in config.warnings)
    assert any("'ui.font'" in w for w in config.warnings)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("default_model = 3\n", "'default_model'"),
        ('[permissions]\nbash = "sometimes"\n', "'permissions.bash'"),
        ('[sessions]\nkeep = "many"\n', "'sessions.keep'"),
        ("[providers.anthropic]\ntimeout = true\n", "'providers.anthropic.timeout'"),
        (
            '[models."openai/gpt-4o"]\ncontext_window = -1\n',
            "'models.\"openai/gpt-4o\".context_window'",
        ),
        ('[compaction_fallback]\nafter = "soon"\n', "'compaction_fallback.after'"),
        ("[context]\nfiles = [1, 2]\n", "'context.files[0]' = 1"),
        ("permissions = 1\n", "'permissions'"),
    ],
)
def test_type_errors_name_file_and_key(files: tuple[Path, Path], text: str, key: str) -> None:
    user, root = files
    write(user, text)
    with pytest.raises(ConfigError) as caught:
        load_config(root, {}, user_file=user)
    assert str(user) in str(caught.value)
    assert key in str(caught.value)


def test_every_wrong_value_is_reported_at_once(files: tuple[Path, Path]) -> None:
    """A config with three wrong values said only the first ("'ui.theme' = 42: expected a
    string"): fixed, the next run named the second, then the third. All are named at once,
    a provider's too, each with its file and key."""
    user, root = files
    write(
        user,
        "[ui]\ntheme = 42\ntyping_burst_ms = -5\n"
        '[models."offline/offline"]\ncompaction_threshold_tokens = "abc"\n'
        '[providers.local]\ntype = "openai"\nbase_url = 7\n',
    )
    with pytest.raises(ConfigError) as caught:
        load_config(root, {}, user_file=user)
    lines = str(caught.value).splitlines()
    assert lines[0] == "4 problems in the configuration:"
    assert [line.split(": ")[1] for line in lines[1:]] == [
        "'ui.theme' = 42",
        "'ui.typing_burst_ms' = -5",
        '\'models."offline/offline".compaction_threshold_tokens\' = "abc"',
        "'providers.local.base_url' = 7",
    ]
    assert all(line.startswith(f"  {user}: ") for line in lines[1:])


def test_invalid_toml_names_the_file(files: tuple[Path, Path]) -> None:
    user, root = files
    path = write(root / ".steiner" / "config.toml", "default_model = \n")
    with pytest.raises(ConfigError, match="not valid TOML") as caught:
        load_config(root, {}, user_file=user)
    assert str(path) in str(caught.value)


def test_threshold_must_be_below_the_window() -> None:
    table = {
        "models": {"openai/gpt-4o": {"context_window": 1000, "compaction_threshold_tokens": 1000}}
    }
    with pytest.raises(ConfigError) as caught:
        parse_config([("config.toml", table)])
    message = str(caught.value)
    assert '"openai/gpt-4o"' in message
    assert "(1000)" in message
    assert "below the context window" in message


@pytest.mark.parametrize("bad", [0, -1])
def test_threshold_must_be_positive(bad: int) -> None:
    with pytest.raises(ConfigError, match="compaction_threshold_tokens"):
        parse_config([("config.toml", {"models": {"m": {"compaction_threshold_tokens": bad}}})])


def test_a_threshold_above_the_registry_window_names_its_file_and_table() -> None:
    """The table as written (``[models."offline"]``, not the resolved ``offline/offline``),
    the file that set it (a project's file, not the user's) and what to do."""
    project = {"models": {"offline": {"compaction_threshold_tokens": 40000}}}
    config = parse_config([("user.toml", {}), ("/p/.steiner/config.toml", project)])
    with pytest.raises(ConfigError) as caught:
        resolve_model(config, "offline", {})
    assert str(caught.value) == (
        '/p/.steiner/config.toml: models."offline": compaction_threshold_tokens (40000) must be '
        "below the context window of offline/offline (32768, source: registry); lower it, "
        "or set context_window"
    )


@pytest.mark.parametrize(
    "key", ["context_window", "max_output", "compaction_threshold_tokens", "max_tokens"]
)
def test_a_token_figure_larger_than_any_window_is_refused(key: str) -> None:
    """A stray digit (``context_window = 1310720000``) would make the window never fill:
    nothing is compacted and every request overflows the model's real window."""
    table = {"models": {"offline": {key: 2**63 - 1}}}
    with pytest.raises(ConfigError) as caught:
        parse_config([("config.toml", table)])
    assert str(caught.value) == (
        f"config.toml: 'models.offline.{key}' = 9223372036854775807: "
        "expected an integer of at most 10000000"
    )


@pytest.mark.parametrize(
    ("ref", "reason"),
    [
        ("nope/x", "unknown provider 'nope'"),
        ("", "names no provider (a model is provider/model)"),
    ],
)
def test_a_default_model_of_no_provider_names_its_file(ref: str, reason: str) -> None:
    config = parse_config([("config.toml", {"default_model": ref})])
    with pytest.raises(ConfigError) as caught:
        resolve_model(config, config.default_model, {})
    known = "anthropic, local, offline, openai, openai_responses"
    expected = f"config.toml: 'default_model' = \"{ref}\": {reason} (known: {known})"
    assert str(caught.value) == expected


def test_a_negative_typing_burst_is_refused_not_taken_as_zero() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config([("config.toml", {"ui": {"typing_burst_ms": -5}})])
    assert str(caught.value) == (
        "config.toml: 'ui.typing_burst_ms' = -5: expected an integer of 0 or more"
    )


def test_threshold_check_sees_the_merged_values() -> None:
    user = {"models": {"m": {"compaction_threshold_tokens": 5000}}}
    project = {"models": {"m": {"context_window": 4000}}}
    with pytest.raises(ConfigError, match=re.escape("user.toml + project.toml")):
        parse_config([("user.toml", user), ("project.toml", project)])


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90s", 90), ("10m", 600), ("1h30m", 5400), ("1.5h", 5400), ("250ms", 0.25), ("0", 0)],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "10", "m10", "10 m", "1h30", "ten minutes", "-5m"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


def test_compaction_fallback_durations() -> None:
    config = parse_config(
        [("c", {"compaction_fallback": {"model": "openai/gpt-4o-mini", "after": "1h30m"}})]
    )
    assert config.compaction_fallback.model == "openai/gpt-4o-mini"
    assert config.compaction_fallback.after == timedelta(hours=1, minutes=30)
    seconds = parse_config([("c", {"compaction_fallback": {"after": 90}})])
    assert seconds.compaction_fallback.after == timedelta(seconds=90)


def test_api_keys_are_never_taken_from_files(files: tuple[Path, Path]) -> None:
    user, root = files
    write(user, '[providers.anthropic]\napi_key = "sk-ant-secret"\n')
    config = load_config(root, {}, user_file=user)
    assert config.providers["anthropic"].api_key_env == "ANTHROPIC_API_KEY"
    assert "sk-ant-secret" not in repr(config)
    assert any("'providers.anthropic.api_key'" in w for w in config.warnings)


def test_openai_base_url_comes_from_the_environment() -> None:
    config = parse_config([], {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"})
    assert config.providers["openai"].base_url == "http://127.0.0.1:8000/v1"
    assert config.providers["openai_responses"].base_url == "http://127.0.0.1:8000/v1"
    assert config.providers["anthropic"].base_url is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("localhost:8080/v1", 'e.g. "http://localhost:8080/v1"'),  # as llama.cpp prints it
        ("127.0.0.1:11434/v1", 'e.g. "http://127.0.0.1:11434/v1"'),
        ("api.example.com/v1", 'e.g. "https://api.example.com/v1"'),
        ("ftp://files/v1", "expected an http:// or https:// URL with a host"),
        ("http://", "expected an http:// or https:// URL with a host"),
        ("", "expected an http:// or https:// URL with a host"),
        ("http://h:port/v1", "is not a URL (Port could not be cast to integer value"),
        ("http://h/v1 ", "has spaces around it"),
    ],
)
def test_a_base_url_that_is_no_http_url_is_refused_when_read(url: str, reason: str) -> None:
    """It failed only at the first request, after its retries: "the connection closed without
    a response from the API at /8080/v1/chat/completions"."""
    table = {"providers": {"llama": {"type": "openai", "base_url": url}}}
    with pytest.raises(ConfigError) as caught:
        parse_config([("c.toml", table)])
    assert str(caught.value).startswith(f"c.toml: 'providers.llama.base_url' = {json.dumps(url)}: ")
    assert reason in str(caught.value)
    with pytest.raises(ConfigError, match="the environment's OPENAI_BASE_URL = 'localhost:8000'"):
        parse_config([], {"OPENAI_BASE_URL": "localhost:8000"})
    for good in ("http://127.0.0.1:8080/v1", "https://api.example.com/v1", "http://[::1]:8080"):
        parse_config([("c.toml", {"providers": {"llama": {"type": "openai", "base_url": good}}})])


def test_custom_provider_needs_a_type() -> None:
    with pytest.raises(ConfigError, match=re.escape("'providers.vllm.type' is required")):
        parse_config([("c", {"providers": {"vllm": {"base_url": "http://h/v1"}}})])
    config = parse_config(
        [("c", {"providers": {"vllm": {"type": "openai", "base_url": "http://h/v1"}}})]
    )
    vllm = config.providers["vllm"]
    assert (vllm.type, vllm.base_url, vllm.api_key_env) == ("openai", "http://h/v1", "")


def test_config_is_immutable() -> None:
    config = Config()
    with pytest.raises(AttributeError):
        config.default_model = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.providers["x"] = config.providers["offline"]  # type: ignore[index]


def test_offline_stream_delay_is_configurable_and_validated(tmp_path: Path) -> None:

    config = parse_config([("user", {"providers": {"offline": {"stream_delay_ms": 40}}})], {})
    assert config.providers["offline"].stream_delay_ms == 40
    provider = build_provider(config.providers["offline"], {}, project_root=tmp_path)
    assert provider.stream_delay == 0.04  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="stream_delay_ms"):
        parse_config([("user", {"providers": {"offline": {"stream_delay_ms": -1}}})], {})


# -- one clear error for every bad value (issue 15, item 5) ---------------------------------


def test_invalid_utf8_names_the_file(files: tuple[Path, Path]) -> None:
    user, root = files
    user.parent.mkdir(parents=True)
    user.write_bytes(b'default_model = "off\xffline"\n')
    with pytest.raises(ConfigError, match=r"not valid UTF-8 \(byte 21\)") as caught:
        load_config(root, {}, user_file=user)
    assert str(user) in str(caught.value)


def test_invalid_utf8_names_the_line(files: tuple[Path, Path]) -> None:
    """A byte offset alone leaves the person counting; an editor goes to a line."""
    user, root = files
    user.parent.mkdir(parents=True)
    user.write_bytes(b'[ui]\ntheme = "textual-dark"\n# caf\xe9 (latin-1)\n')
    with pytest.raises(ConfigError) as caught:
        load_config(root, {}, user_file=user)
    assert str(caught.value) == f"{user}: not valid UTF-8 (byte 34), on line 3"


def test_negative_context_budget_names_file_key_and_value(files: tuple[Path, Path]) -> None:
    user, root = files
    path = write(root / ".steiner" / "config.toml", "[context]\nbudget_bytes = -100\n")
    with pytest.raises(ConfigError) as caught:
        load_config(root, {}, user_file=user)
    assert str(caught.value) == (
        f"{path}: 'context.budget_bytes' = -100: expected an integer of 0 or more"
    )


def test_context_file_escaping_the_project_is_an_error(files: tuple[Path, Path]) -> None:
    user, root = files
    path = write(root / ".steiner" / "config.toml", '[context]\nfiles = ["ok.md", "../x.md"]\n')
    with pytest.raises(ConfigError) as caught:
        load_config(root, {}, user_file=user)
    message = str(caught.value)
    assert message.startswith(f"{path}: 'context.files[1]' = \"../x.md\": escapes the project")


def test_context_file_through_a_symlink_out_of_the_project(files: tuple[Path, Path]) -> None:
    user, root = files
    write(root / ".steiner" / "config.toml", '[context]\nfiles = ["link/notes.md"]\n')
    (root / "link").symlink_to(root.parent)
    with pytest.raises(ConfigError, match="escapes the project root"):
        load_config(root, {}, user_file=user)


@pytest.mark.parametrize("spec", ["ctrl+q", "f2", "ctrl+shift+p", "escape,f10", "?", "+"])
def test_keymap_accepts_key_specs(spec: str) -> None:
    config = parse_config([("c", {"keymap": {"app.quit": spec}})])
    assert config.keymap == {"app.quit": spec}


@pytest.mark.parametrize("spec", ["not a key !!", "", "ctrl+", "hyperx+q", "ctrl+q,,f1", "F 2"])
def test_keymap_refuses_what_is_not_a_key(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config([("c.toml", {"keymap": {"app.quit": spec}})])
    assert str(caught.value).startswith(f"c.toml: 'keymap.\"app.quit\"' = {json.dumps(spec)}: ")


def test_textual_key_names_are_key_specs() -> None:
    for key in Keys:
        if not key.value.startswith("<") and key.value != "ctrl-at":
            assert validate_key_spec(key.value) == key.value
    for character in string.printable.strip():  # as Textual names each key it sends
        name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
        name = KEY_NAME_REPLACEMENTS.get(name, name)
        assert validate_key_spec(character if character.isalnum() else name)


@pytest.mark.parametrize("word", ["off", "none", "disabled", "ctrl+off", "nothing"])
def test_a_word_that_names_no_key_is_refused(word: str) -> None:
    """Issue 29: ``"off"`` was taken as a key, and ``app.quit = "off"`` left Ctrl+Q dead."""
    with pytest.raises(ConfigError) as caught:
        parse_config([("c.toml", {"keymap": {"app.quit": word}})])
    assert "is not a key" in str(caught.value)


def test_named_keys_are_textual_s() -> None:
    textual_names = {key.value.rsplit("+", 1)[-1] for key in Keys}
    replaced = set(KEY_NAME_REPLACEMENTS.values())
    for name in NAMED_KEYS:
        assert name in textual_names | replaced or key_to_character(name) or name == "newline"


def test_unknown_keys_inside_named_tables_are_warnings_and_the_rest_decodes() -> None:
    table = {
        "models": {"openai/gpt-4o": {"context_window": 9000, "window": 1}},
        "providers": {"openai": {"timeout": 5, "retries": 3}},
        "keymap": {"app.quit": "ctrl+q"},
    }
    config = parse_config([("c.toml", table)])
    assert config.models["openai/gpt-4o"].context_window == 9000
    assert config.providers["openai"].timeout == 5.0
    assert set(config.warnings) == {
        "c.toml: unknown key 'models.\"openai/gpt-4o\".window' ignored",
        "c.toml: unknown key 'providers.openai.retries' ignored (did you mean 'max_retries'?)",
    }


def test_unknown_keys_are_warned_once_per_file_that_holds_them() -> None:
    config = parse_config([("user", {"ui": {"font": 1}}), ("project", {"ui": {"font": 2}})])
    assert config.warnings == (
        "user: unknown key 'ui.font' ignored",
        "project: unknown key 'ui.font' ignored",
    )


def test_a_misspelt_key_is_warned_with_the_key_it_is_closest_to() -> None:
    """``defualt_model`` was "unknown key ... ignored", and the person's model silently the
    default: the warning names the key they meant."""
    table = {"defualt_model": "offline", "providers": {"x": {"type": "openai", "base_ulr": ""}}}
    assert parse_config([("c.toml", table)]).warnings == (
        "c.toml: unknown key 'defualt_model' ignored (did you mean 'default_model'?)",
        "c.toml: unknown key 'providers.x.base_ulr' ignored (did you mean 'base_url'?)",
    )


def test_errors_name_the_file_that_set_the_bad_value() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config([("user", {"sessions": {"keep": 5}}), ("project", {"sessions": {"keep": 0}})])
    assert str(caught.value) == "project: 'sessions.keep' = 0: expected a positive integer"


def test_where_names_the_winning_file() -> None:
    config = parse_config([("user", {"ui": {"theme": "nord"}}), ("project", {"ui": {}})])
    assert config.where("ui.theme") == "user"
    assert config.where("sessions.keep") == "defaults"


def test_unknown_theme_is_one_clear_error(files: tuple[Path, Path]) -> None:
    user, root = files
    write(user, '[ui]\ntheme = "no-such-theme"\n')
    config = load_config(root, {}, user_file=user)
    with pytest.raises(ConfigError) as caught:
        check_theme(config)
    assert str(caught.value).startswith(f"{user}: 'ui.theme' = \"no-such-theme\": not a theme")
    check_theme(load_config(root, {}, user_file=root / "none.toml"))  # no theme: fine


def test_secret_env_extends_the_deny_list() -> None:
    config = parse_config([("c", {"tools": {"secret_env": ["MY_*", "DB_PASSWORD"]}})])
    assert config.secret_env == ("MY_*", "DB_PASSWORD")


def test_a_model_table_without_a_provider_applies_to_that_model_id_under_any_provider() -> None:
    """``[models."offline"]`` warned that its settings applied to no model while they applied
    (the window below is the table's): a bare model id's table applies to that id under every
    provider, and a ``provider/model`` table wins over it (docs/configuration.md)."""
    tables = {
        "models": {
            "offline": {"context_window": 8192},
            "gpt-5": {"max_output": 1000},
            "work/gpt-5": {"max_output": 2000},
        },
        "providers": {"work": {"type": "openai", "api_key_env": "WORK_KEY"}},
    }
    config = parse_config([("user.toml", tables)])
    assert config.warnings == ()
    assert resolve_model(config, "offline", {}).info.context_window == 8192
    env = {"OPENAI_API_KEY": "k", "WORK_KEY": "k"}
    assert resolve_model(config, "openai/gpt-5", env).info.max_output == 1000
    assert resolve_model(config, "work/gpt-5", env).info.max_output == 2000
