"""The suite's xdist scheduler (``tests/support/schedule.py``) keeps a group of modules on one
worker and hands the units out in collection order: run on a small suite of its own, in a
pytest process with two workers, each test writing down the worker it ran on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = textwrap.dedent(
    """
    import pytest
    from tests.support.schedule import GroupScheduling

    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_xdist_make_scheduler(config, log):
        return GroupScheduling(config, log, {"test_a.py": "g", "test_b.py": "g"})
    """
)

MODULE = textwrap.dedent(
    """
    import json, os, pathlib, pytest

    @pytest.mark.parametrize("n", range({count}))
    def test_{name}(n):
        out = pathlib.Path(os.environ["WHERE"]) / f"{name}-{{n}}.json"
        out.write_text(json.dumps(os.environ["PYTEST_XDIST_WORKER"]))
    """
)


def test_a_group_of_modules_runs_on_one_worker(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    where = tmp_path / "where"
    suite.mkdir()
    where.mkdir()
    (suite / "conftest.py").write_text(CONFTEST)
    for name, count in (("a", 6), ("b", 6), ("c", 40)):
        (suite / f"test_{name}.py").write_text(MODULE.format(name=name, count=count))
    env = {**os.environ, "WHERE": str(where), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--dist",
            "loadgroup",
            "-c",
            os.devnull,
            "--rootdir",
            str(suite),
            str(suite),
        ],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ran = {p.stem: json.loads(p.read_text()) for p in where.iterdir()}
    assert len(ran) == 52, sorted(ran)
    group = {w for name, w in ran.items() if name[0] in "ab"}
    assert len(group) == 1, ran  # a and b: one unit, one worker
    # the other worker takes the single tests meanwhile (the group is one unit, not a queue)
    assert {w for name, w in ran.items() if name[0] == "c"} - group, ran
