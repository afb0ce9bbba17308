"""The VS Code extension's own checks run from the Python suite, so the README's one test
command covers them: the unit tests (``npm test``: the event → view-model reducer, message
validation, the settings mapping, the webview's CSP), ``npm run typecheck`` (``strict``),
``npm run lint`` (eslint + typescript-eslint, ``eslint.config.mjs``) and that
``src/protocol/generated.ts`` is what ``docs/protocol.schema.json`` generates.

``npm ci`` first when ``node_modules`` is missing or older than the lockfile; skips with the
reason when Node or npm is missing or the install fails (no registry) — and under ``CI=true``
that skip is a failure (tests/support/tiers.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "vscode-client"
LINE = re.compile(r"^(\d+) passed, (\d+) failed", re.M)

pytestmark = [pytest.mark.editor]


def _installed() -> bool:
    marker = CLIENT / "node_modules" / ".package-lock.json"
    lock = CLIENT / "package-lock.json"
    return marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime


@pytest.fixture(scope="module")
def npm() -> str:
    """The npm executable, with the client's dependencies installed."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node / npm missing (apt-get install -y nodejs npm)")
    if not _installed():
        install = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=540,
            check=False,
        )
        if install.returncode != 0:
            pytest.skip(f"npm ci failed (no registry?): {install.stderr[-2000:]}")
    return npm


def _run(*cmd: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(cmd), cwd=CLIENT, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.mark.timeout(600)
def test_extension_unit_tests(npm: str) -> None:
    proc = _run(npm, "test")
    out = proc.stdout + proc.stderr
    found = LINE.findall(out)
    assert found, out[-6000:]
    passed, failed = map(int, found[-1])
    assert failed == 0, out[-8000:]
    assert passed > 50, out[-6000:]
    assert proc.returncode == 0, out[-6000:]


@pytest.mark.timeout(300)
def test_generated_protocol_types_are_current(npm: str) -> None:
    """``generated.ts`` is json-schema-to-typescript's output for the checked-in schema (which
    tests/lsp/test_protocol_schema.py holds to the server's models): a server change that the
    client's types do not follow fails here."""
    node = shutil.which("node")
    assert node is not None
    proc = _run(node, "scripts/gen-protocol.mjs", "--check")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]


@pytest.mark.timeout(300)
def test_typecheck(npm: str) -> None:
    """``tsc --noEmit`` over the extension and the webview (``strict: true``)."""
    proc = _run(npm, "run", "-s", "typecheck")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-8000:]


@pytest.mark.timeout(300)
def test_lint(npm: str) -> None:
    """eslint with typescript-eslint's recommended-type-checked rules, no warnings allowed."""
    proc = _run(npm, "run", "-s", "lint")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-8000:]


@pytest.mark.timeout(300)
def test_lint_refuses_a_pi_method_name_outside_src_protocol(npm: str) -> None:
    """Issue 29: the ``pi/*`` method names live in ``src/protocol/`` only (the typed client);
    a string spelling one anywhere else in ``src`` fails ``npm run lint``. Checked by linting a
    probe file that does it (removed afterwards), so the rule is known to fire."""
    probe = CLIENT / "src" / "zz_lint_probe.ts"
    probe.write_text(
        "export const a = 'pi/prompt';\nexport const b = (x: string) => `pi/state ${x}`;\n",
        encoding="utf-8",
    )
    try:
        proc = _run(npm, "exec", "--", "eslint", "--max-warnings", "0", str(probe))
    finally:
        probe.unlink()
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-4000:]
    assert out.count("A pi/* method name outside src/protocol/") == 2, out[-4000:]


@pytest.mark.timeout(300)
def test_lint_refuses_an_import_circle(npm: str) -> None:
    """Issue 36: ``import/no-cycle`` (eslint-plugin-import) in ``npm run lint`` keeps import
    circles out of the client (``model/reduce/events.ts`` ↔ ``state.ts`` was one). Checked by
    linting three probe modules that import each other in a ring (removed afterwards)."""
    ring = ("a", "b", "c")
    probes = {
        f"zz_cycle_{x}.ts": f"import {{ {y} }} from './zz_cycle_{y}';\n"
        f"export const {x} = (): number => {y}() + 1;\n"
        for x, y in zip(ring, ring[1:] + ring[:1], strict=True)
    }
    paths = [CLIENT / "src" / name for name in probes]
    for path, text in zip(paths, probes.values(), strict=True):
        path.write_text(text, encoding="utf-8")
    try:
        proc = _run(npm, "exec", "--", "eslint", "--max-warnings", "0", *map(str, paths))
    finally:
        for path in paths:
            path.unlink()
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-4000:]
    assert out.count("Dependency cycle") == 3, out[-4000:]
