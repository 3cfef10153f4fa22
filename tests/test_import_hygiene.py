"""The engine/UI wall: importing any engine module must not load Textual, Rich or an SDK."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import steiner_tui.engine

FORBIDDEN = ("textual", "rich", "anthropic", "openai", "steiner_tui.app")


def _engine_modules() -> list[str]:
    names = ["steiner_tui.engine"]
    for info in pkgutil.walk_packages(steiner_tui.engine.__path__, "steiner_tui.engine."):
        names.append(info.name)
    return names


@pytest.mark.parametrize("module", _engine_modules())
def test_engine_module_imports_no_ui(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"{module} pulled in {out}"


def test_version_command_is_light() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.strip().startswith("steiner-tui ")
