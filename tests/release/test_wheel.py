"""The wheel `python -m build` made, installed into a fresh venv and run from outside the
source tree: `pi-lsp --version`, `pi-lsp run --demo` (offline, the faux model) and `pi-lsp acp`
answering `initialize` and opening a session, with the package imported from the venv."""

from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

from pi_lsp import __version__

pytestmark = [pytest.mark.timeout(900), pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "PI_LSP_", "VIRTUAL_ENV"))
    }
    env["HOME"] = str(home)
    env["PI_LSP_DATA_DIR"] = str(home / "data")
    return env


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh venv with the wheel (its dependencies from the package index) and a cwd
    outside the source tree."""
    base = tmp_path_factory.mktemp("wheel")
    env_dir = base / "venv"
    venv.create(env_dir, with_pip=True)
    subprocess.run(
        [str(env_dir / "bin/python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        timeout=600,
        cwd=base,
        env=_env(base),
    )
    return env_dir, base


def test_the_installed_package_comes_from_the_venv(installed: tuple[Path, Path]) -> None:
    env_dir, cwd = installed
    out = subprocess.run(
        [str(env_dir / "bin/python"), "-c", "import pi_lsp, sys; print(pi_lsp.__file__)"],
        cwd=cwd,
        env=_env(cwd),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(out).is_relative_to(env_dir), out
    assert not Path(out).is_relative_to(ROOT)
    version = subprocess.run(
        [str(env_dir / "bin/pi-lsp"), "--version"],
        cwd=cwd,
        env=_env(cwd),
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip() == f"pi-lsp {__version__}"


def test_run_demo_from_the_wheel(installed: tuple[Path, Path]) -> None:
    env_dir, cwd = installed
    res = subprocess.run(
        [str(env_dir / "bin/pi-lsp"), "run", "--demo"],
        cwd=cwd,
        env=_env(cwd),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip(), "the demo printed nothing"


def test_acp_initialize_and_new_session_from_the_wheel(installed: tuple[Path, Path]) -> None:
    env_dir, cwd = installed
    work = cwd / "acp-work"
    work.mkdir(exist_ok=True)
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(work), "mcpServers": []},
        },
    ]
    proc = subprocess.Popen(
        [str(env_dir / "bin/pi-lsp"), "acp", "--provider", "faux"],
        cwd=cwd,
        env=_env(cwd),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin
    assert proc.stdout
    answers: dict[int, dict[str, object]] = {}
    try:
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            while request["id"] not in answers:
                line = proc.stdout.readline()
                assert line, f"pi-lsp acp ended: {proc.stderr.read() if proc.stderr else ''}"
                message = json.loads(line)
                if "id" in message and "method" not in message:
                    answers[message["id"]] = message
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    init = answers[1]["result"]
    assert isinstance(init, dict)
    assert init["agentInfo"]["version"] == __version__
    new = answers[2]
    assert "result" in new, new
    assert isinstance(new["result"], dict)
    assert new["result"]["sessionId"]


def test_the_sdist_is_named_for_the_version(dist: Path) -> None:
    sdists = sorted(dist.glob("pi_lsp-*.tar.gz"))
    assert [p.name for p in sdists] == [f"pi_lsp-{__version__}.tar.gz"]
