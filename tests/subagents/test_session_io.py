"""Session files of a tree of sessions are fsync'd off the event loop in every front end
(docs/sessions.md#durability): parallel children never wait for each other's disk syncs,
and every line is in its file before the sync (what survives a ``kill -9`` is unchanged)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from pi_lsp.sessions.fsync_worker import background_fsync

from .helpers import calls, task, text, write_script


def test_pi_lsp_run_syncs_parent_and_children_files_on_the_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_lsp.cli.run import main

    project = tmp_path / "project"
    project.mkdir()
    script = write_script(
        tmp_path / "script.json",
        [
            calls(task("a", "CHILD-A: look"), task("b", "CHILD-B: look")),
            text("A done", when="CHILD-A"),
            text("B done", when="CHILD-B"),
            text("Parent done."),
        ],
    )
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    synced_on: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        synced_on.append(threading.current_thread().name)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    code = main(["go", "--cwd", str(project), "--faux-script", script])
    assert code == 0
    assert synced_on, "the session files were never synced"
    assert set(synced_on) == {"pi-session-fsync"}, synced_on  # none on the loop's thread
    files = list((tmp_path / "data").rglob("*.jsonl"))
    assert len(files) == 3  # the parent and its two children, complete when run returned
    texts = [f.read_text(encoding="utf-8") for f in files]
    assert any("Parent done." in t for t in texts)
    for t in texts:
        for line in t.splitlines():
            json.loads(line)


def test_acp_sessions_hand_their_fsyncs_to_the_worker(tmp_path: Path) -> None:
    from pi_lsp.acp.factory import store_for

    file = store_for(tmp_path).create()
    assert file.sync is background_fsync()
