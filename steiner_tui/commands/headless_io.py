"""What headless commands share: loading config, the estimator, stderr progress, permissions.

Progress (each request as it goes out and, when its usage comes, what it cost and what the
prompt cache did with it; tool calls, warnings, errors, the model's reasoning) goes to stderr
so stdout carries only the answer and scripts can capture it; ``ReplyPrinter`` writes that
answer to stdout as it streams, so a slow model never looks hung.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

import msgspec

from steiner_tui import paths
from steiner_tui.commands import refuse
from steiner_tui.config import Config, ConfigError, load_config
from steiner_tui.engine.events import (
    EngineEvent,
    ErrorEvent,
    HealthEvent,
    ReasoningDelta,
    RequestSnapshot,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.templates import cache_compiled_templates
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.plain import printable
from steiner_tui.tools.base import PermissionDecision, PermissionRequest
from steiner_tui.units import cache_summary, cost_parts, dollars, token_count

__all__ = [
    "HeadlessPermission",
    "ProgressSink",
    "ReplyPrinter",
    "keep_compiled_templates",
    "load_project_config",
    "make_estimator",
    "project_folder",
]


def load_project_config(project_root: Path, *, trust_project: bool = False) -> Config:
    """The merged user and project configuration (the project file in full only when its
    folder is trusted, or ``trust_project``: ``--trust-project``).

    Raises:
        SystemExit: with a clear message when the configuration is invalid.
    """
    try:
        return load_config(project_root, os.environ, trust_project=trust_project)
    except ConfigError as error:
        raise SystemExit(f"steiner-tui: configuration error: {error}") from error


def project_folder(raw: str | Path, command: str = "") -> Path | None:
    """``raw`` resolved (``~`` expanded), or None once stderr says it is not a folder (each
    command that takes a project folder checks it here, with one wording)."""
    root = Path(raw).expanduser().resolve()
    if root.is_dir():
        return root
    refuse(f"{root} is not a folder", command)
    return None


def make_estimator() -> RequestEstimator:
    """The commands' token estimator (o200k decompressed into the user cache dir once)."""
    return RequestEstimator(default_encoding_loader(paths.cache_dir() / "tiktoken"))


def keep_compiled_templates() -> None:
    """Keep the prompt templates compiled in one launch for the next ones, in the user cache
    dir (``engine.templates``: jinja2 compiles each one from source otherwise)."""
    cache_compiled_templates(paths.cache_dir() / "templates")


class ProgressSink(msgspec.Struct):
    """Writes one line per request sent, tool call, warning and error to ``stream`` (stderr);
    an error's line ends with the first thing the user can do about it.

    Attributes:
        errors: how many errors it wrote (the command prints a failure only when none was).
    """

    stream: TextIO = sys.stderr
    errors: int = 0

    def emit(self, event: EngineEvent) -> None:
        line = ""
        if isinstance(event, RequestSnapshot):
            what = "compaction summary" if event.compaction else f"request {event.index}"
            line = (
                f"… {event.provider}/{event.model}: {what}, "
                f"~{token_count(event.estimated_prompt_tokens)} in the prompt, "
                f"up to {token_count(event.max_tokens)} out"
            )
        elif isinstance(event, UsageReported) and event.cost_usd != 0:
            line = _usage_line(event)  # a free model (offline, local) costs nothing to say
        elif isinstance(event, ToolCallStarted):
            line = f"→ {event.summary}"
        elif isinstance(event, ToolCallFinished) and event.status != "done":
            line = f"  {event.call.name} {event.status}: {event.output.splitlines()[0][:200]}"
        elif isinstance(event, WarningEvent):
            line = f"warning: {event.message}"
        elif isinstance(event, ErrorEvent):
            self.errors += 1
            line = f"error: {event.message}"
            # The workbench's slash commands ("(/compact)", "(/model)") mean nothing here.
            hint = "; ".join(r.hint for r in event.remedies if "(/" not in r.hint)
            if hint:  # one sentence: an error's own full stop goes ("provided.; what")
                line = f"{line.removesuffix('.')}; what you can do: {hint}"
        elif isinstance(event, HealthEvent):
            line = f"context health: {event.severity}/{event.state}: {event.guidance}"
        if line:
            print(printable(line), file=self.stream, flush=True)


def _usage_line(event: UsageReported) -> str:
    """``  $0.17 (input … · output …), session $0.42; cache: <cause>``."""
    line = (
        f"  {dollars(event.cost_usd)} ({cost_parts(event.cost)}), "
        f"session {dollars(event.session_cost_usd)}"
    )
    if event.cache is not None:
        line += f"; cache: {cache_summary(event.cache)}"
    return line


class ReplyPrinter(msgspec.Struct):
    """Writes the model's text to ``out`` (stdout) as it streams, its reasoning to ``err``.

    A reply cut by tool calls, a warning, an error or its cost line ends its line before they
    go to stderr, so the two streams do not run into each other on a terminal; ``finish`` ends
    the last line.
    """

    out: TextIO = sys.stdout
    err: TextIO = sys.stderr
    _open: bool = False
    """``out``'s last character is not a newline."""

    def emit(self, event: EngineEvent) -> None:
        if isinstance(event, TextDelta):
            self.out.write(printable(event.text))
            self.out.flush()
            self._open = not event.text.endswith("\n")
        elif isinstance(event, ReasoningDelta):
            self.err.write(printable(event.text))
            self.err.flush()
        elif isinstance(event, ToolCallStarted | ErrorEvent | WarningEvent | UsageReported):
            self.finish()

    def finish(self) -> None:
        """End the current line of text, if one is open."""
        if self._open:
            self.out.write("\n")
            self.out.flush()
            self._open = False


class HeadlessPermission(msgspec.Struct, frozen=True):
    """Answers permission requests without a person: allow all (``--yes``) or reject once."""

    allow: bool = False
    stream: TextIO = sys.stderr

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        if self.allow:
            return PermissionDecision.ALLOW_ONCE
        print(
            printable(
                f"  rejected {request.tool} ({request.summary}): pass --yes to allow changes"
            ),
            file=self.stream,
            flush=True,
        )
        return PermissionDecision.REJECT_ONCE
