"""A copy of tests/fixtures/lsp_project, a DiskWorkspace over it, and jedi-language-server
(PyPI, in the test extra) as its configured server: per test (``project``, ``ws``, ``pool``,
``tool``), or one per module (``shared_workspace``, ``warm_pool``: one jedi-language-server
kept warm for the module's tests, which run in the module's event loop; starting one costs
≈ 1 s of CPU)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from pi_lsp.langserv import LoadedLspConfig, LspServerConfig, ServerPool
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.lsp import LspTool

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "lsp_project"
JEDI = Path(sys.executable).parent / "jedi-language-server"


def server(name: str = "python", command: str | None = None, **extra: Any) -> LspServerConfig:
    data = {
        "name": name,
        "command": command or str(JEDI),
        "extensionToLanguage": {".py": "python"},
        **extra,
    }
    return LspServerConfig.model_validate(data)


def config(*servers: LspServerConfig) -> LoadedLspConfig:
    return LoadedLspConfig({s.name: s for s in servers})


def copy_project(into: Path) -> Path:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed (pip install -e '.[test]')")
    root = into / "proj"
    shutil.copytree(FIXTURE, root)
    return root.resolve()


def snapshot(root: Path) -> dict[str, bytes | None]:
    """The fixture project's files as they are under ``root`` (files added since left out)."""
    names = (p.relative_to(FIXTURE) for p in FIXTURE.rglob("*") if p.is_file())
    return {
        name.as_posix(): (root / name).read_bytes() if (root / name).is_file() else None
        for name in names
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)


@pytest.fixture(scope="module")
def shared_workspace(tmp_path_factory: pytest.TempPathFactory) -> DiskWorkspace:
    """One copy of the fixture project for the module's tests that do not change it."""
    return DiskWorkspace([copy_project(tmp_path_factory.mktemp("shared"))])


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def warm_pool(shared_workspace: DiskWorkspace) -> AsyncIterator[ServerPool]:
    """One pool (one jedi-language-server, started by the first question) for the module."""
    pool = ServerPool(config(server()), shared_workspace, timeout=30)
    try:
        yield pool
    finally:
        await pool.aclose()


@pytest.fixture
def ws(project: Path) -> DiskWorkspace:
    return DiskWorkspace([project])


@pytest.fixture
async def pool(ws: DiskWorkspace) -> AsyncIterator[ServerPool]:
    pool = ServerPool(config(server()), ws, timeout=30)
    try:
        yield pool
    finally:
        await pool.aclose()


@pytest.fixture
def tool(ws: DiskWorkspace, pool: ServerPool) -> LspTool:
    return LspTool(ws, pool)
