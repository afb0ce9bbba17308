"""The release checks (docs/release.md): they test the artifacts `.ci/release.sh` built, named
by ``PI_RELEASE_DIST``, and run as that script's own step of ``.ci/run`` after the suite (one
process, ``-n 0``). Without ``PI_RELEASE_DIST`` there is nothing to check: the suite's own run
(the README's command) does not collect them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

collect_ignore_glob = [] if os.environ.get("PI_RELEASE_DIST") else ["test_*.py"]


@pytest.fixture(scope="session")
def dist() -> Path:
    return Path(os.environ["PI_RELEASE_DIST"]).resolve()


@pytest.fixture(scope="session")
def wheel(dist: Path) -> Path:
    wheels = sorted(dist.glob("pi_lsp-*-py3-none-any.whl"))
    assert len(wheels) == 1, f"expected one wheel in {dist}: {wheels}"
    return wheels[0]
