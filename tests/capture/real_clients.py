"""The real agents from the npm registry, installed once into ``.cache/npm-clients/``.

Pinned versions: Claude Code 2.1.328 and Codex 0.169.0 (the versions the capture was checked
against). Each is about 350 MB installed and takes a few seconds to fetch the first time; later
runs reuse the folder (``.cache/`` is ignored by git). Without npm the tests fail with a clear
message: they are the acceptance tests of the capture and never skip.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

__all__ = ["CLAUDE", "CODEX", "install"]

CACHE = Path(__file__).resolve().parents[2] / ".cache" / "npm-clients"
CLAUDE = ("claude", "@anthropic-ai/claude-code", "2.1.328", "2.1.328 (Claude Code)")
CODEX = ("codex", "@openai/codex", "0.169.0", "codex-cli 0.169.0")


def install(client: tuple[str, str, str, str]) -> Path:
    """The client's executable, installed with npm when it is not there yet.

    Raises:
        AssertionError: npm is missing, the install failed, or the binary reports another
            version (with npm's output).
    """
    name, package, version, banner = client
    CACHE.mkdir(parents=True, exist_ok=True)
    # Parallel test workers install the same client: one installs, the others wait for it.
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _install(name, package, version, banner)


def _install(name: str, package: str, version: str, banner: str) -> Path:
    prefix = CACHE / f"{name}-{version}"
    binary = prefix / "node_modules" / ".bin" / name
    if binary.exists() and _version(binary) == banner:
        return binary
    npm = shutil.which("npm")
    assert npm is not None, (
        f"npm is needed to install {package}@{version} for the capture tests "
        "(install Node.js and npm, e.g. `apt-get install nodejs npm`)"
    )
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(prefix),
            "--no-fund",
            "--no-audit",
            "--loglevel=error",
            f"{package}@{version}",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, f"npm install {package}@{version} failed:\n{done.stderr}"
    assert binary.exists(), f"npm installed {package}@{version} but {binary} is missing"
    found = _version(binary)
    assert found == banner, f"{binary} --version says {found!r}, expected {banner!r}"
    return binary


def _version(binary: Path) -> str:
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except OSError:
        return ""
    return done.stdout.strip()
