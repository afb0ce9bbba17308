"""Helpers of the MCP tests: the real ``mcp-server-time`` under a unique name (so the
process table can be searched for it), and the process-table scan."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from pathlib import Path

import pytest


def time_server_command() -> str:
    found = shutil.which("mcp-server-time") or str(
        Path(sys.executable).with_name("mcp-server-time")
    )
    if not Path(found).exists():
        if os.environ.get("CI") == "true":
            pytest.fail("mcp-server-time is not installed (pip install -e '.[test]')")
        pytest.skip("mcp-server-time is not installed (pip install -e '.[test]')")
    return found


def unique_time_server(tmp_path: Path) -> Path:
    """A uniquely named link to ``mcp-server-time``: its processes are findable by name."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    link = bin_dir / f"mcp-time-{uuid.uuid4().hex[:10]}"
    link.symlink_to(time_server_command())
    return link


def processes_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found
