"""The VS Code extension's own checks run from the Python suite, so the README's one test
command covers them: the unit tests (``npm test``: the event → view-model reducer, message
validation, the settings mapping, the webview's CSP), ``npm run typecheck`` (``strict``),
``npm run lint`` (eslint + typescript-eslint, ``eslint.config.mjs``) and that
``src/protocol/generated.ts`` is what ``docs/protocol.schema.json`` generates.

``npm ci`` first when ``node_modules`` is missing or older than the lockfile; skips with the
reason when Node or npm is missing or the install fails (no registry) — and under ``CI=true``
that skip is a failure (tests/support/tiers.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
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


PI_METHOD_PROBE = {
    "zz_lint_probe.ts": "export const a = 'pi/prompt';\n"
    "export const b = (x: string) => `pi/state ${x}`;\n"
}
"""Issue 29's probe: a string spelling a ``pi/*`` method name outside ``src/protocol/``."""
_RING = ("a", "b", "c")
CYCLE_PROBES = {
    f"zz_cycle_{x}.ts": f"import {{ {y} }} from './zz_cycle_{y}';\n"
    f"export const {x} = (): number => {y}() + 1;\n"
    for x, y in zip(_RING, _RING[1:] + _RING[:1], strict=True)
}
"""Issue 36's probes: three modules that import each other in a ring."""


@dataclass
class Lint:
    proc: subprocess.CompletedProcess[str]
    messages: dict[str, list[str]]
    """Each linted file (relative to ``vscode-client/``) → its messages, ``rule: text``."""

    def of(self, names: Iterable[str]) -> list[str]:
        return [m for name in names for m in self.messages.get(f"src/{name}", [])]


@pytest.fixture(scope="module")
def lint(npm: str) -> Lint:
    """``npm run lint`` once (eslint with type information builds the TypeScript program
    first: most of its time), over the client with the rule tests' probe files in ``src/``
    (removed afterwards); the report as JSON, so each test reads the files it is about."""
    probes = {
        CLIENT / "src" / name: text for name, text in {**PI_METHOD_PROBE, **CYCLE_PROBES}.items()
    }
    for path, text in probes.items():
        path.write_text(text, encoding="utf-8")
    try:
        proc = _run(npm, "run", "-s", "lint", "--", "--format", "json", timeout=600)
    finally:
        for path in probes:
            path.unlink()
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"npm run lint gave no JSON report:\n{(proc.stdout + proc.stderr)[-8000:]}")
    messages = {
        Path(entry["filePath"]).resolve().relative_to(CLIENT.resolve()).as_posix(): [
            f"{m.get('ruleId')}: {m['message']}" for m in entry["messages"]
        ]
        for entry in report
    }
    return Lint(proc, messages)


@pytest.mark.timeout(600)
def test_lint(lint: Lint) -> None:
    """eslint with typescript-eslint's recommended-type-checked rules, no warnings allowed:
    nothing reported on any file of the client (the probes of the tests below aside)."""
    probes = {f"src/{name}" for name in {**PI_METHOD_PROBE, **CYCLE_PROBES}}
    assert lint.proc.returncode in (0, 1), (lint.proc.stdout + lint.proc.stderr)[-8000:]
    assert probes <= set(lint.messages), sorted(lint.messages)  # the probes were linted
    reported = {f: m for f, m in lint.messages.items() if m and f not in probes}
    assert not reported, json.dumps(reported, indent=1)[-8000:]


@pytest.mark.timeout(600)
def test_lint_refuses_a_pi_method_name_outside_src_protocol(lint: Lint) -> None:
    """Issue 29: the ``pi/*`` method names live in ``src/protocol/`` only (the typed client);
    a string spelling one anywhere else in ``src`` fails ``npm run lint``. Checked by linting a
    probe file that does it (removed afterwards), so the rule is known to fire."""
    found = lint.of(PI_METHOD_PROBE)
    assert lint.proc.returncode != 0, found
    assert sum("A pi/* method name outside src/protocol/" in m for m in found) == 2, found


@pytest.mark.timeout(600)
def test_lint_refuses_an_import_circle(lint: Lint) -> None:
    """Issue 36: ``import/no-cycle`` (eslint-plugin-import) in ``npm run lint`` keeps import
    circles out of the client (``model/reduce/events.ts`` ↔ ``state.ts`` was one). Checked by
    linting three probe modules that import each other in a ring (removed afterwards)."""
    found = lint.of(CYCLE_PROBES)
    assert lint.proc.returncode != 0, found
    assert sum("Dependency cycle" in m for m in found) == 3, found
