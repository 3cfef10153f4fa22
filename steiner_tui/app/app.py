"""The Textual app: one factory, ``make_app``, builds it for the CLI, the tests and benchmarks.

The app starts from a ``SessionRequest`` (the loaded configuration and the session's choices);
its main screen builds the session with the one session factory, at once or, for a launch,
after its first frame (``defer_open``). The main screen is the default screen; the help, lineage
and inspector screens are built on demand, importing their modules only then, so start-up pays
for the workbench alone. Theme, keymap, cursor blink and file watching come from the
configuration (``[ui]``, ``[keymap]``); keymap entries naming no binding, and keys the keymap
gives a binding that another binding wins (``keymap_check``), are reported once the workbench is
up.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.keys import key_to_character
from textual.screen import ModalScreen, Screen
from textual.theme import Theme

from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.app.help_catalog import section_name
from steiner_tui.app.keymap_check import (
    BindingChain,
    BindingLayer,
    class_bindings,
    keymap_conflicts,
)
from steiner_tui.app.plain import PlainToasts
from steiner_tui.app.resume_request import TrustGranted
from steiner_tui.app.screens.main import MainScreen
from steiner_tui.app.session import theme_for
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.typing_route import TypingRouter
from steiner_tui.resources import styles_dir
from steiner_tui.sessions.draft import Draft

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["SteinerApp", "make_app"]

_LAZY_SCREENS = (
    "steiner_tui.app.screens.allow_always",
    "steiner_tui.app.screens.config_save",
    "steiner_tui.app.screens.help",
    "steiner_tui.app.screens.inspector",
    "steiner_tui.app.screens.lineage",
    "steiner_tui.app.screens.message_view",
    "steiner_tui.app.screens.sessions",
    "steiner_tui.app.screens.subagent_transcript",
    "steiner_tui.app.screens.trust",
)
"""The screens imported when first opened (their bindings count for the keymap check).

Speed: importing them (with ``config_write`` and ``tomlkit``) before the first frame made it
18 % later in ``benchmarks/bench_startup.py`` (docs/ARCHITECTURE.md, "Imports", lists the
deferrals kept)."""

SIGNAL_GRACE = 3.0
"""Seconds the app has to quit after SIGHUP or SIGTERM before the signal ends the process."""

_SCREEN_NAMES = {
    "MainScreen": "the workbench",
    "ConfirmAllowAlways": "the allow-always confirmation",
    "ConfigSaveScreen": "the confirmation before writing the project config",
    "HelpScreen": "the help",
    "InspectorScreen": "the request inspector",
    "MessageScreen": "the inspector's message view",
    "LineageScreen": "the lineage browser",
    "SessionsScreen": "the sessions list",
    "ConfirmDeleteScreen": "the confirmation before deleting a session",
    "SubAgentTranscriptScreen": "a sub-agent's transcript",
    "TrustScreen": "the trust prompt",
}
"""How a keymap notice names each screen the app shows."""


def _bindings_of(owner: type) -> Iterator[str]:
    for binding in owner.__dict__.get("BINDINGS", ()):
        if isinstance(binding, Binding) and binding.id:
            yield binding.id


def _subclasses(cls: type) -> Iterator[type]:
    sub: type
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def binding_ids() -> frozenset[str]:
    """Every binding id the app's screens and widgets declare (its screens are imported)."""
    lazy_screens()  # they load when first opened; this runs after start-up
    return frozenset(
        binding for owner in {DOMNode, *_subclasses(DOMNode)} for binding in _bindings_of(owner)
    )


def _screen_name(kind: type[DOMNode]) -> str:
    return _SCREEN_NAMES.get(kind.__name__, f"the {section_name(kind)} screen")


def lazy_screens() -> list[type[Screen[Any]]]:
    """The screens the app opens after the workbench (their modules are imported)."""
    for module in _LAZY_SCREENS:
        importlib.import_module(module)
    return [kind for kind in _subclasses(Screen) if kind.__module__ in _LAZY_SCREENS]


def unknown_keymap_ids(keymap: dict[str, str] | None, known: frozenset[str]) -> list[str]:
    """The keymap's binding ids that no binding has, in the keymap's order."""
    return [binding for binding in keymap or {} if binding not in known]


class SteinerApp(PlainToasts):
    """The workbench app for one session."""

    # main.tcss is loaded here: Textual loads a screen's CSS_PATH on push, not for the screen
    # returned by ``get_default_screen``.
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        styles_dir() / "app.tcss",
        styles_dir() / "main.tcss",
    ]
    TITLE = "steiner-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help",
                tooltip="The keys of this screen (and the slash commands)"),
        Binding("ctrl+p", "command_palette", "Commands", id="app.command_palette",
                priority=True, show=False, tooltip="Open the command palette"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True,
                tooltip="Quit steiner-tui"),
    ]  # fmt: skip
    """Application keys (remappable by id through the config keymap)."""

    def __init__(
        self, request: SessionRequest, *, defer_open: bool = False, draft: Draft | None = None
    ) -> None:
        super().__init__()
        self.request = request
        """What the session is built from (configuration included)."""
        theme = theme_for(request.config)
        if theme != self.theme:
            # Setting the theme re-parses every style sheet: only when it differs.
            self.theme = theme
        self._kept_theme = theme
        """The theme the next run starts with (``_keep_theme``)."""
        self.keymap = dict(request.config.keymap)
        """Binding id -> keys, from ``[keymap]``."""
        self._main = MainScreen(request, defer_open=defer_open, draft=draft)
        self._typing_over: TypingRouter | None = None
        """The router of the screen over the workbench (``_typing``)."""
        self.started = asyncio.Event()
        """Set once start-up is over and what it has to say is in the conversation (tests
        wait for it instead of for a number of frames)."""

    @property
    def workbench(self) -> MainScreen:
        """The main screen."""
        return self._main

    @property
    def session(self) -> Session:
        """The session this app shows (``RuntimeError`` while it is still opening)."""
        return self.workbench.hold.session

    @property
    def opened_session(self) -> Session | None:
        """The session, once it is open (None before, or when opening it failed)."""
        return self.workbench.hold.session if self.workbench.hold.attached else None

    def get_default_screen(self) -> Screen[None]:
        """The workbench is the base screen."""
        return self.workbench

    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes from the terminal meet a typing router first, in the order they
        came (``typing_route``): text reaches the prompt whatever has focus, on whatever
        screen."""
        if (
            isinstance(event, events.Key | events.Paste)
            and not event.is_forwarded
            and self._typing().route(event)
        ):
            return
        await super().on_event(event)

    def _typing(self) -> TypingRouter:
        """The workbench's router, or one over the screen shown above it (typed text was lost
        there: the rest of a sentence after ``A`` opened the allow-always dialog)."""
        workbench = self.workbench
        if self.screen is workbench:
            return workbench.typing
        if self._typing_over is None or self._typing_over.screen is not self.screen:
            self._typing_over = TypingRouter(
                self.screen, lambda: workbench.prompt, burst=workbench.typing.burst
            )
        return self._typing_over

    def screenshot_config_dir(self) -> Path | None:
        """The open session's config folder (its ``screenshots`` take a screenshot)."""
        session = self.opened_session
        return session.config_dir if session is not None else None

    def on_mount(self) -> None:
        """Apply the keymap from config (refreshing bindings only when there is one); ask
        whether to trust the project's folder when its config asks for more than an untrusted
        folder may set (``screens.trust``)."""
        if self.keymap:
            self.set_keymap(self.keymap)
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        if not self.is_headless:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGHUP, signal.SIGTERM):
                signal.signal(signum, lambda signum, _: self._on_end_signal(loop, signum))
        if self.request.config.untrusted:
            from steiner_tui.app.screens.trust import TrustScreen

            screen = TrustScreen(self.request.project_root, self.request.config.untrusted)
            self.push_screen(screen, self._trust_answered)

    def _keep_theme(self, theme: Theme) -> None:
        """A theme picked in the workbench (the palette's Theme) is kept for the next run:
        ``[ui] theme`` in the user config, written in a thread."""
        folder = self.request.config_dir
        if folder is None or theme.name == self._kept_theme:
            return
        self._kept_theme = theme.name
        self._write_theme(theme.name, folder / "config.toml")

    @work(thread=True, exclusive=True, group="keep-theme")
    def _write_theme(self, name: str, path: Path) -> None:
        from steiner_tui.config_write import plan_theme, write_change

        try:
            write_change(plan_theme(name, path))
        except (ValueError, OSError) as error:  # the theme stays for this run all the same
            message = f"theme {name} not kept for the next run: {error}"
            self.call_from_thread(self.notify, message, severity="warning")
            return
        message = f"theme {name} kept for the next run ([ui] theme in {path})"
        where = self.request.config.where("ui.theme")
        if where not in ("defaults", str(path)):
            message += f"; {where} sets it too, and wins over it"
        self.call_from_thread(self.notify, message)

    def _trust_answered(self, answer: str | None) -> None:
        """Trusted: open the workbench again with the project's config in full."""
        if answer == "always":
            from steiner_tui.config_write import plan_trust_folder, write_change

            try:
                write_change(plan_trust_folder(self.request.project_root))
            except (ValueError, OSError) as error:  # trusted for this run all the same
                self.notify(f"could not remember the trust: {error}", severity="error")
        if answer in ("once", "always"):
            self.exit(TrustGranted(self.workbench.unsent()))  # read by commands.app

    def binding_chains(self) -> list[BindingChain]:
        """Every place a key can be pressed, with the bindings it meets there (focused widget
        first): the workbench by itself and with the prompt focused, and each other screen
        (imported here)."""
        app = BindingLayer("the app", class_bindings(type(self)))
        workbench = self.workbench
        place = _screen_name(type(workbench))
        screen = BindingLayer(place, class_bindings(type(workbench)))
        prompt = workbench.prompt
        between = [
            BindingLayer(f"the {section_name(type(node)).lower()}", class_bindings(type(node)))
            for node in prompt.ancestors
            if node is not workbench and node is not self
        ]
        focused = BindingLayer(
            "the prompt",
            class_bindings(type(prompt)),
            types=lambda key: prompt.check_consume_key(key, key_to_character(key)),
        )
        chains = [
            BindingChain(place, (screen, app)),
            BindingChain(place, (focused, *between, screen, app), focus="the prompt"),
        ]
        for kind in lazy_screens():
            layer = BindingLayer(_screen_name(kind), class_bindings(kind))
            modal = issubclass(kind, ModalScreen)
            chains.append(BindingChain(layer.name, (layer, app), modal=modal))
        return chains

    async def on_workbench_ready(self) -> None:
        """Start-up is over: say which keymap entries name no binding, and which keys the
        keymap gives a binding that another binding takes (or loses to it)."""
        if self.keymap:  # else nothing to check: the other screens stay unimported
            await self._check_keymap()
        self.started.set()

    async def _check_keymap(self) -> None:
        config = self.request.config
        notices: list[str] = []
        for binding in unknown_keymap_ids(self.keymap, binding_ids()):
            where = config.where(("keymap", binding))
            notices.append(
                f"{where}: [keymap] {binding!r} = {self.keymap[binding]!r}: no binding has "
                "that id; ignored (F1 lists the keys)"
            )
        for conflict in keymap_conflicts(self.keymap, self.binding_chains()):
            binding = conflict.binding_id
            where = config.where(("keymap", binding))
            notices.append(
                f"{where}: [keymap] {binding!r} = {self.keymap[binding]!r}: {conflict.describe()}"
            )
        for text in notices:
            await self.workbench.conversation.add(NoticeEntry(text, "warning"))

    def exit(
        self, result: Any = None, return_code: int = 0, message: RenderableType | None = None
    ) -> None:
        """Exit; a reply still streaming is cut off by the app stopping, and its log says so
        (it said cancelled with Esc)."""
        if (session := self.opened_session) is not None and session.log is not None:
            session.log.app_stopping()
        unkept = self.workbench.keep_draft()
        if unkept is not None and message is None:
            message = Text(unkept)  # printed once the terminal is back: nothing typed is lost
        super().exit(result, return_code, message)

    def _on_end_signal(self, loop: asyncio.AbstractEventLoop, signum: int) -> None:
        """A closed terminal (SIGHUP) or a plain ``kill`` (SIGTERM): quit as Ctrl+Q does.

        A plain handler, not the loop's: it runs even while Textual's shutdown waits for ever on
        its writer thread, which it does once the terminal is gone (Textual 8.2). So the
        signal's own ending is armed first: it comes ``SIGNAL_GRACE`` seconds later unless the
        app has quit by then, and at once on a second signal; by then the session is on disk.
        """
        signal.signal(signum, signal.SIG_DFL)
        ending = threading.Timer(SIGNAL_GRACE, os.kill, (os.getpid(), signum))
        ending.daemon = True
        ending.start()
        loop.call_soon_threadsafe(self._end_on_signal, signum)

    def _end_on_signal(self, signum: int) -> None:
        """Keep the draft, then make the session durable at once (the reply streamed so far,
        the fsync), before Textual's shutdown, which may never finish."""
        self.exit(return_code=128 + signum)
        if (session := self.opened_session) is not None:
            session.close()

    def on_unmount(self) -> None:
        """Close the session log (flushes a reply still streaming)."""
        if (session := self.opened_session) is not None:
            session.close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The screens and commands that show the session wait until it is open."""
        if action in ("lineage", "inspector", "command_palette"):
            return True if self.workbench.hold.attached else None
        return True

    def action_help(self) -> None:
        """Open the help on the current screen's keys (F1); the workbench adds its commands."""
        from steiner_tui.app.help_catalog import screen_rows, section_name, slash_rows
        from steiner_tui.app.screens.help import HelpScreen

        screen = self.screen
        rows = screen_rows(screen, self.keymap)
        if screen is self.workbench:
            rows.extend(slash_rows())
        self.push_screen(HelpScreen(rows, section_name(type(screen))))

    def action_lineage(self) -> None:
        """Open the lineage browser on the session's lineage."""
        from steiner_tui.app.screens.lineage import LineageScreen

        driver = self.session.driver
        self.push_screen(LineageScreen(driver.lineage, self.session.history_path))

    def action_inspector(self) -> None:
        """Open the request inspector on the latest request (the dry run before any)."""
        from steiner_tui.app.screens.inspector import InspectorScreen

        requests = self.session.requests  # a resumed session's log's, then the store's
        if not len(requests):  # the dry run the context panel shows
            controller = self.workbench.hold.controller
            preview = controller.last_preview or controller.preview()
            self.push_screen(InspectorScreen((preview,), dry_run=True))
            return
        self.push_screen(InspectorScreen(requests))  # lists a page; reads only what it shows


def make_app(
    request: SessionRequest, *, defer_open: bool = False, draft: Draft | None = None
) -> SteinerApp:
    """The app for the session ``request`` asks for (the one factory the CLI and the tests use).

    Args:
        request: the session to open (``agent.session_factory``).
        defer_open: open the session after the first frame (a launch); otherwise it is built
            here, so ``app.session`` is there before the app runs (tests, benchmarks).
        draft: text for the prompt, typed in the app this one replaces (``TrustGranted``).

    Raises:
        What ``build_session`` raises, unless ``defer_open``.
    """
    return SteinerApp(request, defer_open=defer_open, draft=draft)
