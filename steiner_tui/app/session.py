"""The workbench's side of a session: how it names the model, its theme, and the launch check.

The session itself is built by the one factory (``agent.session_factory``): the app hands it a
``SessionRequest`` with its own event adapter and permission prompts as the sink and callback
(``workbench_session``). What is here is what the workbench shows before or beside it.

A launch draws the workbench before the session is built (the first frame needs nothing of the
engine), so ``planned_model_label`` names the model from the configuration alone; it also
reports, before the terminal is taken over, the errors that would stop the session from opening
(an unknown provider or model, a missing API key); ``opening_text`` is what the conversation
says until a resumed session's messages are in (not the welcome of a new session).
"""

from __future__ import annotations

import os

from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.config import Config
from steiner_tui.plain import printable
from steiner_tui.providers.factory import api_key_for, split_model_ref
from steiner_tui.providers.offline import OFFLINE_ALIAS
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.resume import LATEST
from steiner_tui.units import counted

__all__ = [
    "OFFLINE_LABEL",
    "model_label",
    "opening_text",
    "planned_model_label",
    "theme_for",
]

DEFAULT_THEME = "textual-dark"
OFFLINE_LABEL = "offline · not a language model"


def theme_for(config: Config) -> str:
    """The theme of the workbench: ``config``'s when it names one, else ``DEFAULT_THEME``."""
    return config.theme or DEFAULT_THEME


def model_label(main: MainModel) -> str:
    """The status-line name of ``main``; the offline model says plainly what it is."""
    return OFFLINE_LABEL if main.alias == OFFLINE_ALIAS else main.ref


def planned_model_label(request: SessionRequest) -> str:
    """How the status line names the model until the session is open.

    Raises:
        ConfigError: the model names an unknown provider or no model, or its provider's API
            key is not in the request's environment.
    """
    model = request.model
    if isinstance(model, MainModel):
        return model_label(model)
    config = request.config
    alias, name = split_model_ref(config, model or config.default_model)
    provider = config.providers[alias]
    if provider.type == "offline":
        return OFFLINE_LABEL
    api_key_for(provider, os.environ if request.env is None else request.env)
    return f"{alias}/{name}"


def opening_text(request: SessionRequest) -> str | None:
    """What the conversation shows until a resumed session's messages are in: the session and
    how many messages load (a launch loaded its log already); None for a new session."""
    resume = request.resume
    if resume is None:
        return None
    if not isinstance(resume, LoadedSession):
        return "Resuming the latest session…" if resume == LATEST else f"Resuming {resume}…"
    title = printable(resume.meta.title)
    named = f"session {resume.session_id}" + (f": {title}" if title else "")
    return f"Loading {counted(len(resume.as_logged), 'message')} of {named}…"
