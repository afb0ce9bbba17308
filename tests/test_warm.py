"""``runtime/warm.py``: what a first prompt would run for the first time, run ahead."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_lsp.runtime import warm
from pi_lsp.tools import DiskWorkspace

PROBE = """
import asyncio, json, sys
from pi_lsp.runtime.warm import warm_up
from pi_lsp.tools import DiskWorkspace
from pi_lsp.tools.read import ReadTool
from pi_lsp.tools.bash import BashTool
before = {m for m in ("httpcore", "anyio._backends._asyncio",
                      "pi_lsp.ai.providers.openai_completions",
                      "pi_lsp.ai.providers.anthropic_messages") if m in sys.modules}
asyncio.run(warm_up(DiskWorkspace([sys.argv[1]])))
loaded = [m for m in ("httpcore", "anyio._backends._asyncio",
                      "pi_lsp.ai.providers.openai_completions",
                      "pi_lsp.ai.providers.anthropic_messages") if m in sys.modules]
cached = [t.__name__ for t in (ReadTool, BashTool) if "_tool_definition" in t.__dict__]
print(json.dumps([sorted(before), loaded, cached]))
"""


def test_warm_up_loads_what_a_first_prompt_needs(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    before, loaded, cached = json.loads(out)
    assert before == []  # a fresh interpreter had none of it
    assert loaded == [
        "httpcore",
        "anyio._backends._asyncio",
        "pi_lsp.ai.providers.openai_completions",
        "pi_lsp.ai.providers.anthropic_messages",
    ]
    assert cached == ["ReadTool", "BashTool"]


async def test_a_failing_step_is_logged_and_the_rest_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("no such module")

    monkeypatch.setattr(warm, "steps", lambda workspace: [broken, lambda: ran.append("next")])
    with caplog.at_level("DEBUG", logger="pi_lsp.runtime.warm"):
        await warm.warm_up(DiskWorkspace([tmp_path]))
    assert ran == ["next"]
    assert "warm-up step failed" in caplog.text
