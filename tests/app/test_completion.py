"""Slash commands complete in a dropdown under the prompt: names, then models, skills, sessions,
and the prompts sent (``/history``); a word starting with ``@`` completes a project path."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot

from steiner_tui.app import prompt_completion
from steiner_tui.app.app import SteinerApp
from steiner_tui.app.completion import CompletionSources, complete
from steiner_tui.app.prompt_completion import project_paths
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.widgets.completion_list import CompletionList
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, said, send
from tests.providers.fake_servers import serving, url

MODELS = ("anthropic/claude-sonnet-4", "offline/offline")


def test_names_then_arguments() -> None:
    sources = CompletionSources(models=[(m, "") for m in MODELS], skills=[("code-review", "")])
    assert [c.text for c in complete("/mo", sources)] == ["/model "]
    assert [c.text for c in complete("/model an", sources)] == ["/model anthropic/claude-sonnet-4"]
    assert [c.text for c in complete("/skills rev", sources)] == ["/skills code-review"]
    assert complete("//model", sources) == [] and complete("hello /mo", sources) == []
    assert complete("/model x\nmore", sources) == []


def test_another_agents_name_for_a_command_completes_to_ours() -> None:
    """A Claude Code user types /resume, an aider user /tokens: nothing was listed, and Enter
    said "unknown command". Each completes to the command it is here, arguments too."""
    sources = CompletionSources(sessions=[("aa321b6784ad", "question A1")])
    [resume] = complete("/resu", sources)
    assert (resume.text, resume.help) == (
        "/sessions ",
        "resume session ID; alone, list the saved sessions (/resume)",
    )
    assert [c.text for c in complete("/resume aa", sources)] == ["/sessions aa321b6784ad"]
    assert [c.text for c in complete("/tok", sources)] == ["/context"]
    assert [c.text for c in complete("/co", sources)][:3] == [
        "/compact ",
        "/compaction ",
        "/context",
    ]


def test_history_lists_the_prompts_holding_every_word_newest_first() -> None:
    prompts = [
        "Read README.md",
        "fix the parser\nthen run the tests\nand say what failed",
        "readme again: " + "x" * 200,
        "what does the readme say?",
    ]
    sources = CompletionSources(prompts=prompts)
    found = complete("/history README", sources)
    assert [c.text for c in found] == [prompts[3], prompts[2], prompts[0]]  # newest first
    assert len(found[1].label) == 100 and found[1].label.endswith("…")
    assert [c.text for c in complete("/history the TESTS", sources)] == [prompts[1]]
    assert complete("/history the tests", sources)[0].label == "fix the parser"
    assert complete("/history the tests", sources)[0].help == "+2 lines"
    assert [c.text for c in complete("/history ", sources)] == prompts[::-1]
    assert complete("/history nowhere", sources) == []
    assert [c.text for c in complete("/hist", sources)] == ["/history "]


async def test_history_puts_a_prompt_sent_in_the_prompt(app_for: AppFactory) -> None:
    """Up walks the prompts one at a time; ``/history`` finds one by its words (shell's
    Ctrl+R, Claude Code's history search): Tab or Enter puts it in the prompt, unsent, and the
    search itself is not kept as a prompt sent."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        for text in ("explain the parser", "run the tests", "explain the tests"):
            await send(pilot, text)
            await finish(pilot)
        screen = app.workbench
        prompt = screen.prompt
        await send(pilot, "/history")  # Enter on the bare name lists every prompt
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert prompt.text == "/history "
        assert [c.text for c in dropdown.candidates] == [
            "explain the tests",
            "run the tests",
            "explain the parser",
        ]
        await pilot.press(*"explain")
        await pilot.pause()
        assert [c.text for c in dropdown.candidates] == ["explain the tests", "explain the parser"]
        await pilot.press("down", "tab")
        await pilot.pause()
        assert prompt.text == "explain the parser" and not dropdown.display
        prompt.clear()
        await pilot.press(*"/history TESTS")
        await pilot.pause()
        await pilot.press("escape")  # the list closed: Enter takes the newest match all the same
        await pilot.pause()
        shown = len(screen.conversation.entries)
        await pilot.press("enter")
        await finish(pilot)
        assert prompt.text == "explain the tests"
        assert len(screen.conversation.entries) == shown  # nothing sent
        prompt.clear()
        await pilot.press(*"/history nowhere", "enter")
        await finish(pilot)
        assert prompt.text == "/history nowhere"
        assert said(app)[-1] == "History: no prompt sent in this project holds 'nowhere'"
        assert prompt.prompt_history.entries == (
            "explain the parser",
            "run the tests",
            "explain the tests",
        )


PATHS = ("README.md", "src/app.py", "src/parser/readme_parser.py", "docs/guide/read.md")


def test_an_at_word_at_the_end_completes_project_paths() -> None:
    sources = CompletionSources(paths=PATHS)
    found = complete("look at @src/", sources)
    assert [c.text for c in found] == [
        "look at @src/app.py ",
        "look at @src/parser/readme_parser.py ",
    ]
    assert found[0].label == "@src/app.py"
    # The path's start first, then a file name's start, then anywhere in it (any case).
    assert [c.label for c in complete("@READ", sources)] == [
        "@README.md",
        "@src/parser/readme_parser.py",
        "@docs/guide/read.md",
    ]
    assert [c.label for c in complete("@pars", sources)] == ["@src/parser/readme_parser.py"]
    assert [c.text for c in complete("fix\n@app", sources)] == ["fix\n@src/app.py "]
    assert [c.text for c in complete("/compact keep @src/a", sources)] == [
        "/compact keep @src/app.py "
    ]
    # Only a word of its own, at the end: an address, a finished path or text after it is not.
    assert complete("mail me@READ", sources) == []
    assert complete("look at @src/app.py ", sources) == []
    assert complete("@src/app.py", sources) == []  # nothing more to offer
    # A file named whole, while a longer path starts with it: it comes first (Enter takes it).
    longer = CompletionSources(paths=(*PATHS, "src/app.pyi"))
    assert [c.text for c in complete("@src/app.py", longer)] == ["@src/app.py ", "@src/app.pyi "]
    assert complete("@nowhere", sources) == []


def test_a_folder_is_listed_and_goes_in_without_a_space() -> None:
    """As Claude Code lists them: the folder, then (as typing goes on) what is in it."""
    sources = CompletionSources(paths=("src/", "src/app.py", "src/lib/", "src/lib/x.py"))
    assert [c.text for c in complete("look at @sr", sources)][:2] == [
        "look at @src/",
        "look at @src/app.py ",
    ]
    assert [c.label for c in complete("look at @src/", sources)] == [
        "@src/app.py",
        "@src/lib/",
        "@src/lib/x.py",
    ]


def test_a_path_with_a_space_goes_in_quoted() -> None:
    """As Claude Code writes it: the mention ends where the path does."""
    sources = CompletionSources(paths=("docs/my notes/read me.md", "docs/guide.md"))
    assert [c.text for c in complete("see @docs/my", sources)] == [
        'see @"docs/my notes/read me.md" '
    ]
    assert [c.text for c in complete('see @"docs/my', sources)] == [
        'see @"docs/my notes/read me.md" '
    ]
    assert [c.label for c in complete("@docs/", sources)] == [
        "@docs/my notes/read me.md",
        "@docs/guide.md",
    ]


def test_project_paths_skip_what_grep_skips(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.o").write_text("x")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    (tmp_path / ".gitignore").write_text("build/\n")
    assert project_paths(tmp_path) == (".gitignore", "src/", "src/app.py")
    assert project_paths(tmp_path, limit=1) == (".gitignore",)


def test_project_paths_under_a_folder_and_never_outside(tmp_path: Path) -> None:
    (tmp_path / "a" / "deep").mkdir(parents=True)
    (tmp_path / "a" / "deep" / "x.py").write_text("x")
    (tmp_path / "b.py").write_text("x")
    assert project_paths(tmp_path, under="a/deep/") == ("a/", "a/deep/", "a/deep/x.py")
    assert project_paths(tmp_path, under="../") == ()
    assert project_paths(tmp_path, under="b.py/") == ()


async def typed(pilot: Pilot[None], app: SteinerApp, keys: str) -> CompletionList:
    """Once the app is open, type ``keys`` into the prompt: the completion list under it."""
    await finish(pilot)
    await pilot.press(*keys)
    await finish(pilot)
    return app.workbench.query_one("#completions", CompletionList)


async def test_in_a_tree_larger_than_the_list_the_folder_typed_is_walked(
    app_for: AppFactory, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A monorepo has more files than ``@`` lists: what is deep in it was never offered. The
    folder the word names is walked on its own (then the one under it, as it is typed)."""
    monkeypatch.setattr(prompt_completion, "PATH_LIMIT", 5)
    deep = project / "zz" / "services" / "billing"
    deep.mkdir(parents=True)
    (deep / "invoice.py").write_text("x")
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        dropdown = await typed(pilot, app, "see @zz/")
        assert [c.label for c in dropdown.candidates] == [
            "@zz/services/",
            "@zz/services/billing/",
            "@zz/services/billing/invoice.py",
        ]
        await pilot.press(*"services/billing/in", "tab")
        await finish(pilot)
        assert app.workbench.prompt.text == "see @zz/services/billing/invoice.py "


async def test_at_lists_the_project_files_and_tab_puts_one_in_the_message(
    app_for: AppFactory, project: Path
) -> None:
    """Claude Code's ``@`` file mention: the path goes in the message as typed, and a file
    written after the first ``@`` is listed at the next one."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        dropdown = await typed(pilot, app, "see @NO")
        screen = app.workbench
        assert dropdown.candidates[0].label == "@NOTES.md"  # then release-notes/SKILL.md
        await pilot.press("tab")
        await pilot.pause()
        assert screen.prompt.text == "see @NOTES.md " and not dropdown.display
        (project / "NOTICE.txt").write_text("new")
        await pilot.press(*"and @")
        await finish(pilot)
        await pilot.press(*"NO")
        await pilot.pause()
        assert [c.label for c in dropdown.candidates][:2] == ["@NOTES.md", "@NOTICE.txt"]
        await pilot.press("down", "enter")  # Enter takes the highlighted path, not sends
        await pilot.pause()
        assert screen.prompt.text == "see @NOTES.md and @NOTICE.txt "
        await pilot.press("enter")
        await finish(pilot)
        sent = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert sent == ["see @NOTES.md and @NOTICE.txt "]


async def test_an_at_word_pasted_or_typed_fast_lists_the_files(
    app_for: AppFactory, project: Path
) -> None:
    """The files are listed for an ``@`` word however its first change arrives: a paste (or
    keys typed faster than the screen handles them) brings more than the ``@``."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        screen = app.workbench
        screen.prompt.post_message(events.Paste("see @NO"))
        await finish(pilot)
        dropdown = screen.query_one("#completions", CompletionList)
        assert dropdown.candidates[0].label == "@NOTES.md"


async def test_tab_completes_and_down_chooses(app_for: AppFactory) -> None:
    app = app_for(config={"models": {m: {} for m in MODELS}})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert not screen.query("#completions")  # mounted when first needed
        await pilot.press("/", "m", "o")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert dropdown.display and dropdown.candidates[0].text == "/model "
        await pilot.press("tab")
        await pilot.pause()
        assert screen.prompt.text == "/model " and app.focused is screen.prompt
        assert [c.label for c in dropdown.candidates] == ["offline/offline", MODELS[0]]
        await pilot.press("down", "tab")
        await pilot.pause()
        assert screen.prompt.text == f"/model {MODELS[0]}"
        assert not dropdown.display  # complete: nothing more to offer
        await pilot.press("tab")  # no list: Tab moves the focus as usual
        await pilot.pause()
        assert app.focused is not screen.prompt


async def test_escape_closes_the_list_and_enter_completes_a_partial_name(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press("/", "c", "l")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert dropdown.display
        await pilot.press("escape")
        await pilot.pause()
        assert not dropdown.display and screen.prompt.text == "/cl"
        await pilot.press("e")
        await pilot.pause()
        assert dropdown.display
        await pilot.press("enter")  # "/cle" is no command: Enter takes the completion
        await pilot.pause()
        assert screen.prompt.text == "/clear"


async def test_skills_command_toggles_a_named_skill(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press(*"/skills release")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert [c.label for c in dropdown.candidates] == ["release-notes"]
        await pilot.press("tab", "enter")
        await pilot.pause()
        state = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert state["release-notes"] == "pending_activation"


LOOP = {
    "providers": {"loop": {"type": "openai", "base_url": "http://127.0.0.1:9/v1"}},
    "models": {"loop/small": {"context_window": 8192}, "offline/offline": {}},
}


async def test_model_command_switches_the_model(app_for: AppFactory) -> None:
    app = app_for(config=LOOP)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press(*"/model lo", "tab")
        await pilot.pause()
        assert screen.prompt.text == "/model loop/small"
        await pilot.press("enter")
        await pilot.pause()
        runner = app.session.driver.runner
        assert runner.model.ref == "loop/small" and runner.model.budget.context_size == 8192
        assert screen.status.model == "loop/small"
        notes = [e.text for e in screen.conversation.entries if isinstance(e, NoticeEntry)]
        assert notes and notes[-1].endswith("→ loop/small")


async def test_model_offers_the_offline_model_beside_the_default(app_for: AppFactory) -> None:
    """With a local server as the default model and no ``[models]`` table, ``/model `` offered
    the current model alone, and ``/model off`` said "unknown provider 'off'" with "configured:
    none in [models]": the offline model, always there, was nowhere to be found."""
    config = {"providers": LOOP["providers"], "default_model": "loop/small"}
    app = app_for(config=config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press(*"/model ")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert [(c.label, c.help) for c in dropdown.candidates] == [
            ("loop/small", "current"),
            ("offline/offline", ""),
        ]
        await pilot.press(*"off", "enter")
        await pilot.pause()
        error = [t for t in said(app) if "'off'" in t][-1]
        assert "/model can switch to: loop/small, offline/offline" in error
        assert error.endswith("did you mean /model offline/offline?")


async def test_model_offers_what_the_local_server_serves(app_for: AppFactory) -> None:
    """A user of Ollama with several models pulled had to type each one's name: ``/model ``
    now lists what the server lists at ``/v1/models``, asked once the app is up."""
    listed = {"data": [{"id": "qwen2.5-coder:7b"}, {"id": "llama3.1:8b"}]}
    with serving({("GET", "/v1/models"): (200, listed)}) as server:
        config = {
            "providers": {"ollama": {"type": "openai", "base_url": url(server)}},
            "default_model": "ollama/qwen2.5-coder:7b",
        }
        app = app_for(config=config)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(250):  # the server is asked once the first frame is drawn
                if app.session.served:
                    break
                await pilot.pause(0.02)
            await pilot.press(*"/model ")
            await pilot.pause()
            dropdown = app.workbench.query_one("#completions", CompletionList)
            assert [c.label for c in dropdown.candidates] == [
                "ollama/qwen2.5-coder:7b",
                "offline/offline",
                "ollama/llama3.1:8b",
            ]
            assert app.workbench.hold.controller.switch_choices(shown=2) == (
                "/model can switch to: ollama/qwen2.5-coder:7b, offline/offline and 1 more "
                "(Tab after /model lists them)"
            )


async def test_an_unresolvable_model_is_refused_with_the_reason(app_for: AppFactory) -> None:
    messages: list[object] = []
    app = app_for(config=LOOP)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        before = app.session.driver.runner.model.ref
        app.workbench.prompt.load_text("/model nonsense-model-x")
        await pilot.press("enter")
        await pilot.pause()
        errors = [t for t in said(app) if "nonsense-model-x" in t]
        assert errors and "cannot switch" in errors[0] and "loop/small" in errors[0]
        assert app.session.driver.runner.model.ref == before
