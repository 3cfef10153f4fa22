"""Pastes: a long one shows collapsed and is sent whole; one too long for the prompt is kept in
a file the model can read, written only when sent; nothing is lost."""

from __future__ import annotations

from pathlib import Path

from textual import events

from steiner_tui.agent.model import MainModel
from steiner_tui.app.paste import save_pastes
from steiner_tui.app.widgets.prompt import PASTE_LIMIT
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.tools.files import MAX_FILE_BYTES
from steiner_tui.tools.read import read_file
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import INFO, CallsProvider
from tests.app.helpers import finish, notices, static_text


async def test_a_long_paste_shows_collapsed_and_the_model_gets_it_whole(
    app_for: AppFactory,
) -> None:
    pasted = "".join(f"row {n} [b]x[/b]\r" for n in range(600))  # a terminal's newlines
    provider = CallsProvider(text="Read it.")
    app = app_for(MainModel("fake", "offline", provider, INFO))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        screen.prompt.focus()
        await pilot.press(*"see: ")
        app.post_message(events.Paste(pasted))
        await pilot.pause()
        assert screen.prompt.text == "see: [pasted 600 lines #1]"
        await pilot.press("enter")
        await finish(pilot)
        whole = "see: " + pasted.replace("\r", "\n")
        assert provider.requests[0].messages[-1].content == whole
        shown = screen.conversation.query_one(UserMessage)
        assert shown.collapsed
        assert static_text(shown).splitlines()[-1] == "[pasted 600 lines] Enter expands"
        assert len(static_text(shown).splitlines()) == 2
        await pilot.click(shown)
        await pilot.pause()
        assert not shown.collapsed and static_text(shown) == whole
        shown.focus()
        await pilot.press("enter")
        assert shown.collapsed
        assert screen.prompt.text == ""
        screen.prompt.focus()
        await pilot.press("up")  # the history holds the placeholder, not 600 lines
        assert screen.prompt.text == "see: [pasted 600 lines #1]"


async def test_a_huge_paste_deleted_before_sending_writes_nothing(
    app_for: AppFactory, project: Path
) -> None:
    big = "line of pasted text\n" * (3 * PASTE_LIMIT // 20)
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        screen.prompt.focus()
        app.post_message(events.Paste(big))
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert screen.prompt.text == "[pasted 300,000 B #1]"
        screen.prompt.clear()
        await pilot.press(*"hello", "enter")
        await finish(pilot)
        assert not (project / ".steiner" / "pastes").exists()


async def test_a_huge_paste_is_kept_in_a_file_when_sent_and_named_in_the_message(
    app_for: AppFactory, project: Path
) -> None:
    big = "line of pasted text\r" * (3 * PASTE_LIMIT // 20)  # a terminal's pasted newlines
    messages: list[object] = []
    provider = CallsProvider(text="Read it.")
    app = app_for(MainModel("fake", "offline", provider, INFO))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = app.workbench
        screen.prompt.focus()
        await pilot.press(*"see: ")
        app.post_message(events.Paste(big))
        await pilot.pause()
        kept = project / ".steiner" / "pastes" / "paste-1.txt"
        assert screen.prompt.text == "see: [pasted 300,000 B #1]" and not kept.exists()
        await pilot.press("enter")
        await finish(pilot)
        sent = provider.requests[0].messages[-1].content
        assert isinstance(sent, str)
        assert sent.startswith("see: (pasted ") and ".steiner/pastes/paste-1.txt" in sent
        assert len(sent) < 200
        assert kept.read_bytes() == big.replace("\r", "\n").encode()  # every line, as lines
        assert any("kept in .steiner/pastes/paste-1.txt" in n for n in notices(messages))


async def test_a_huge_paste_for_a_model_that_cannot_read_files_says_so(
    app_for: AppFactory, project: Path
) -> None:
    """The notice said the model reads the kept file with its read tool, also for a model whose
    server ignores tools (llama.cpp with a template without them): it gets the name only."""
    messages: list[object] = []
    provider = CallsProvider(text="ok")
    app = app_for(MainModel("fake", "offline", provider, INFO, tools_ignored=True))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        app.workbench.prompt.focus()
        app.post_message(events.Paste("x\n" * PASTE_LIMIT))
        await pilot.pause()
        await pilot.press("enter")
        await finish(pilot)
        (notice,) = [n for n in notices(messages) if "too long for the prompt" in n]
        assert "reads it with its read tool" not in notice
        assert notice.endswith(
            "the prompt names the file, but this model cannot read files (its server ignores "
            "tools): it gets the name only. Paste less, or switch to a model that calls tools "
            "(/model)."
        )


async def test_text_typed_while_a_huge_paste_is_written_stays_in_the_prompt(
    app_for: AppFactory,
) -> None:
    """Sending a huge paste waits for its files; what is typed meanwhile is not sent and not
    cleared with the sent text."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.workbench.prompt
        prompt.focus()
        app.post_message(events.Paste("x" * (PASTE_LIMIT + 1)))
        await pilot.pause()
        sent = prompt.text
        await pilot.press(*" and more")
        prompt.sent(sent)
        assert prompt.text == " and more"
        assert prompt.pastes == {sent: "x" * (PASTE_LIMIT + 1)}  # Up can send it again


async def test_a_paste_under_the_limit_goes_in_the_prompt(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.post_message(events.Paste("a [b]normal[/b] paste"))
        await pilot.pause()
        assert app.workbench.prompt.text == "a [b]normal[/b] paste"


def test_pastes_are_numbered_and_never_replaced(tmp_path: Path) -> None:
    assert save_pastes(tmp_path, "one") == (".steiner/pastes/paste-1.txt",)
    assert save_pastes(tmp_path, "two") == (".steiner/pastes/paste-2.txt",)
    assert (tmp_path / ".steiner/pastes/paste-1.txt").read_text(encoding="utf-8") == "one"


def test_a_paste_over_the_read_limit_is_kept_in_parts_the_read_tool_opens(
    tmp_path: Path,
) -> None:
    """The read tool refuses files over ``MAX_FILE_BYTES``: a 30 MB paste kept as one file
    could not be read at all. Parts split at line ends, each readable, hold every byte."""
    line = "0123456789 [bold]x[/] é ünïcödé\n"
    text = line * (25 * 1024 * 1024 // len(line.encode()))
    saved = save_pastes(tmp_path, text)
    assert len(saved) == 3
    parts = [(tmp_path / path).read_bytes() for path in saved]
    assert b"".join(parts) == text.encode()
    assert all(len(part) <= MAX_FILE_BYTES and part.endswith(b"\n") for part in parts)
    assert min(map(len, parts)) > MAX_FILE_BYTES // 2  # about one size, no stub at the end
    for path in saved:
        assert read_file(tmp_path, path).status == "done"


def test_a_part_without_line_ends_is_cut_between_characters(tmp_path: Path) -> None:
    saved = save_pastes(tmp_path, "é" * 5, limit=3)  # 2 bytes each: never half of one
    assert [(tmp_path / p).read_text(encoding="utf-8") for p in saved] == ["é", "é", "é", "é", "é"]


def test_the_pastes_folder_is_git_ignored(tmp_path: Path) -> None:
    """The first paste writes ``.steiner/.gitignore`` (ignoring ``pastes/``, and itself: else
    ``git status`` showed ``.steiner/`` new after a paste); a file there already is the
    project's and is kept as it is."""
    save_pastes(tmp_path, "one")
    ignore = tmp_path / ".steiner" / ".gitignore"
    assert {"pastes/", ".gitignore"} <= set(ignore.read_text(encoding="utf-8").splitlines())
    ignore.write_text("mine\n", encoding="utf-8")
    save_pastes(tmp_path, "two")
    assert ignore.read_text(encoding="utf-8") == "mine\n"


async def test_tab_moves_the_focus_as_it_arrives_so_a_paste_and_enter_behind_it_send(
    app_for: AppFactory,
) -> None:
    """Tab, a bracketed paste and Enter sent at once from the prompt: the tmux test under load
    lost the paste, because Tab moved the focus only after its trip through the prompt's queue
    (the paste went to the prompt by the old focus, the Enter to the widget Tab led to). The
    router moves the focus as Tab arrives, so what follows is routed by where it leads."""
    provider = CallsProvider(text="Read it.")
    app = app_for(MainModel("fake", "offline", provider, INFO))
    async with app.run_test(size=(160, 48)) as pilot:
        await finish(pilot)
        screen = app.workbench
        assert app.focused is screen.prompt
        assert screen.typing.route(events.Key("tab", None))  # taken, not queued
        assert app.focused is not screen.prompt  # at once
        app.post_message(events.Paste("fix bug 2 now"))
        app.post_message(events.Key("enter", "\r"))
        await finish(pilot)
        assert provider.requests[0].messages[-1].content == "fix bug 2 now"
        assert screen.prompt.text == ""
