"""``.ci/python-versions.sh`` runs on CPython 3.12 and 3.13 the fast tier *and* the process
tests that depend on the interpreter (the language server as a process, the ACP agent, the MCP
servers' processes), not the editors; ``pyproject.toml`` says which versions are supported.

The script runs against a fake pyenv root whose ``python3`` makes a venv of recorders: every
``pytest`` invocation is written down instead of run."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FAKE_PYTHON = r"""#!/bin/sh
# python3 -m venv DIR: a venv whose pip does nothing and whose python records its arguments
if [ "$1 $2" = "-m venv" ]; then
  mkdir -p "$3/bin"
  printf '#!/bin/sh\nexit 0\n' > "$3/bin/pip"
  printf '#!/bin/sh\nprintf "%%s\\n" "%s" "$@" "--end--" >> "$PI_TEST_LOG"\n' "$3" > "$3/bin/python"
  chmod +x "$3/bin/pip" "$3/bin/python"
  exit 0
fi
exit 1
"""


def test_the_other_pythons_run_the_fast_and_the_process_tiers(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    script = repo / ".ci" / "python-versions.sh"
    script.write_text((ROOT / ".ci" / "python-versions.sh").read_text())
    for version in ("3.12.9", "3.13.2"):
        python = tmp_path / "pyenv" / "versions" / version / "bin" / "python3"
        python.parent.mkdir(parents=True)
        python.write_text(FAKE_PYTHON)
        python.chmod(0o755)
    log = tmp_path / "calls.log"
    env = {
        **{k: v for k, v in os.environ.items() if k != "CI"},
        "PYENV_ROOT": str(tmp_path / "pyenv"),
        "PATH": "/usr/bin:/bin",  # no pyenv on it: PYENV_ROOT is used
        "PI_TEST_LOG": str(log),
    }
    res = subprocess.run(
        ["bash", str(script)], cwd=repo, env=env, capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stderr
    calls = [c.strip("\n").split("\n") for c in log.read_text().split("--end--\n") if c.strip()]
    for venv in (".venv-3.12", ".venv-3.13"):
        runs = [c[1:] for c in calls if c[0] == venv and c[1:3] == ["-m", "pytest"]]
        assert len(runs) == 2, calls
        fast, process = runs
        assert fast[fast.index("-m", 2) + 1] == "not e2e"
        marks = process[process.index("-m", 2) + 1]
        assert "e2e" in marks
        assert "not e2e" not in marks
        assert "not editor" in marks
        paths = {a for a in process if a.startswith("tests/")}
        assert {"tests/lsp", "tests/acp"} <= paths
        assert any("mcp" in p for p in paths)
        assert not any(p.startswith("tests/editors") for p in paths)


def test_pyproject_lists_every_supported_python() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    versions = {
        c.rsplit(" :: ", 1)[1]
        for c in project["classifiers"]
        if c.startswith("Programming Language :: Python :: 3.")
    }
    assert versions == {"3.11", "3.12", "3.13"}
