"""The wheel ships styles/, templates/ and the bundled skills, and installs into a fresh venv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
