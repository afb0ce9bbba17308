"""What the .vsix files hold: the universal one no server; the linux-x64 one a bundled/libs
that starts (``launch.py --check`` imports the compiled parts) on every supported CPython —
3.11, 3.12 and 3.13, pyenv's interpreters as in .ci/python-versions.sh — run isolated, and a
clear refusal on an older Python."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from pi_lsp import __version__
from tests.support.tiers import optional

pytestmark = [pytest.mark.timeout(300), pytest.mark.e2e]

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))


def _python(minor: str) -> Path | None:
    found = sorted(PYENV.glob(f"versions/{minor}.*/bin/python3"))
    if found:
        return found[-1]
    on_path = shutil.which(f"python{minor}")
    return Path(on_path) if on_path else None


@pytest.fixture(scope="module")
def bundled(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    vsix = dist / f"pi-lsp-linux-x64-{__version__}.vsix"
    out = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(vsix) as z:
        z.extractall(out)
    return out / "extension" / "bundled"


def test_the_universal_vsix_carries_no_server(dist: Path) -> None:
    with zipfile.ZipFile(dist / f"pi-lsp-universal-{__version__}.vsix") as z:
        names = z.namelist()
    assert "extension/dist/extension.js" in names
    assert not any(n.startswith("extension/bundled/libs/") for n in names)


@pytest.mark.parametrize("minor", ["3.11", "3.12", "3.13"])
def test_the_bundled_server_starts_on(bundled: Path, minor: str) -> None:
    python = _python(minor)
    if python is None:
        pytest.skip(f"no CPython {minor} under {PYENV}/versions (pyenv)")
    res = subprocess.run(
        [str(python), "-I", str(bundled / "launch.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ["PATH"], "HOME": os.environ["HOME"]},
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"pi-lsp {__version__} (bundled, Python {minor}.")


def test_an_older_python_is_refused_clearly(bundled: Path) -> None:
    python = _python("3.10")
    if python is None:  # no CI tier installs an unsupported Python
        pytest.skip(optional(f"no CPython 3.10 under {PYENV}/versions or on PATH"))
    res = subprocess.run(
        [str(python), "-I", str(bundled / "launch.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 3
    assert res.stderr.startswith("pi-lsp needs Python >= 3.11; this is 3.10.")
