"""What headless commands share: loading config, the estimator, stderr progress, permissions.

Progress (tool calls, warnings, errors) goes to stderr so stdout carries only the answer and
scripts can capture it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from steiner_tui import paths
from steiner_tui.config import Config, ConfigError, load_config
from steiner_tui.engine.events import (
    EngineEvent,
    ErrorEvent,
    HealthEvent,
    ToolCallFinished,
    ToolCallStarted,
    WarningEvent,
)
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.tools.base import PermissionDecision, PermissionRequest

__all__ = [
    "HeadlessPermission",
    "ProgressSink",
    "load_project_config",
    "make_estimator",
]


def load_project_config(project_root: Path) -> Config:
    """The merged user and project configuration.

    Raises:
        SystemExit: with a clear message when the configuration is invalid.
    """
    try:
        return load_config(project_root, os.environ)
    except ConfigError as error:
        raise SystemExit(f"steiner-tui: configuration error: {error}") from error


def make_estimator() -> RequestEstimator:
    """The process's token estimator (o200k decompressed into the user cache dir)."""
    return RequestEstimator(default_encoding_loader(paths.cache_dir() / "tiktoken"))


@dataclass(slots=True)
class ProgressSink:
    """Writes one line per tool call, warning and error to ``stream`` (stderr)."""

    stream: TextIO = sys.stderr

    def emit(self, event: EngineEvent) -> None:
        line = ""
        if isinstance(event, ToolCallStarted):
            line = f"→ {event.summary}"
        elif isinstance(event, ToolCallFinished) and event.status != "done":
            line = f"  {event.call.name} {event.status}: {event.output.splitlines()[0][:200]}"
        elif isinstance(event, WarningEvent):
            line = f"warning: {event.message}"
        elif isinstance(event, ErrorEvent):
            line = f"error: {event.message}"
        elif isinstance(event, HealthEvent):
            line = f"context health: {event.severity}/{event.state}: {event.guidance}"
        if line:
            print(line, file=self.stream, flush=True)


@dataclass(frozen=True, slots=True)
class HeadlessPermission:
    """Answers permission requests without a person: allow all (``--yes``) or reject once."""

    allow: bool = False
    stream: TextIO = sys.stderr

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        if self.allow:
            return PermissionDecision.ALLOW_ONCE
        print(
            f"  rejected {request.tool} ({request.summary}): pass --yes to allow changes",
            file=self.stream,
            flush=True,
        )
        return PermissionDecision.REJECT_ONCE
