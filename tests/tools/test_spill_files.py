"""bash's full-output spill files are capped and deleted (issue 10 item 9)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pi_lsp.tools import output as output_module
from pi_lsp.tools.output import (
    MAX_SPILL_FILES,
    OutputAccumulator,
    cleanup_spill_files,
    sweep_stale_spill_files,
)


@pytest.fixture(autouse=True)
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(output_module.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(output_module, "_spill_files", output_module.deque())
    monkeypatch.setattr(output_module, "_swept", set())
    return tmp_path


def _spill(max_spill_bytes: int = 1 << 20, size: int = 200_000) -> OutputAccumulator:
    acc = OutputAccumulator(max_bytes=1000, max_spill_bytes=max_spill_bytes)
    for _ in range(size // 1000):
        acc.append(b"y" * 999 + b"\n")
    acc.finish()
    acc.close()
    return acc


def test_a_spill_file_stops_at_its_cap_and_says_so() -> None:
    acc = _spill(max_spill_bytes=10_000, size=200_000)
    assert acc.full_output_path is not None
    data = Path(acc.full_output_path).read_bytes()
    assert data.startswith(b"y" * 999)
    assert len(data) < 10_200
    assert data.endswith(output_module.SPILL_CAPPED_NOTE)
    assert acc.spill_capped
    snap = acc.snapshot()
    assert snap.content.endswith("y" * 999)  # the tail is still the output's real end


def test_only_the_newest_spill_files_are_kept_and_all_go_at_exit(private_tmp: Path) -> None:
    made = [_spill().full_output_path for _ in range(MAX_SPILL_FILES + 3)]
    assert all(made)
    kept = [p for p in made if p and os.path.exists(p)]
    assert kept == made[-MAX_SPILL_FILES:]
    cleanup_spill_files()
    assert list(private_tmp.glob("pi-bash-*.log")) == []


def test_stale_files_of_dead_processes_are_swept(private_tmp: Path) -> None:
    old = private_tmp / "pi-bash-00112233aabbccdd.log"
    fresh = private_tmp / "pi-bash-fedcba9876543210.log"
    old.write_text("x")
    fresh.write_text("x")
    past = time.time() - 3 * 24 * 3600
    os.utime(old, (past, past))
    sweep_stale_spill_files()
    assert not old.exists()
    assert fresh.exists()
