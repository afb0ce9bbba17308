"""A copy of tests/fixtures/lsp_project, a DiskWorkspace over it, and jedi-language-server
(PyPI, in the test extra) as its configured server."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

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


@pytest.fixture
def project(tmp_path: Path) -> Path:
    if not JEDI.exists():
        pytest.skip("jedi-language-server is not installed (pip install -e '.[test]')")
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    return root.resolve()


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
