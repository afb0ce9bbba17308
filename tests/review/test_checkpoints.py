"""The checkpoint store (docs/protocol.md#checkpoints-restore-revert-one-tool-call-95 storage):
content-addressed texts, records that survive a restart, and reverting one tool call's change while
sparing the user's edits."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.review.checkpoints import CheckpointStore


def test_records_survive_a_restart_and_texts_are_stored_once(tmp_path: Path) -> None:
    store = CheckpointStore.beside(tmp_path / "s1.jsonl")
    store.record("call_1", "e1", "a.py", "a\n", "b\n", 1)
    store.record("call_2", "e1", "b.py", "a\n", "c\n", 2)
    objects = list((tmp_path / "s1.jsonl.checkpoints" / "objects").rglob("*"))
    assert len([p for p in objects if p.is_file()]) == 3  # "a\n" once
    again = CheckpointStore.beside(tmp_path / "s1.jsonl")
    records = again.records()
    assert [r.tool_call_id for r in records] == ["call_1", "call_2"]
    assert again.get_text(records[0].after) == "b\n"


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "cp")
    store.record("call_1", "e1", "a.py", "a\n", "b\n", 1)
    with open(tmp_path / "cp" / "records.jsonl", "a", encoding="utf-8") as f:
        f.write('{"toolCallId": "cal')
    assert [r.tool_call_id for r in CheckpointStore(tmp_path / "cp").records()] == ["call_1"]


def test_revert_spares_the_user_edit(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "cp")
    rec = store.record("call_1", "e1", "a.py", "x\ny\nz\n", "x\nY agent\nz\n", 1)
    assert store.revert(rec, "# mine\nx\nY agent\nz\n").text == "# mine\nx\ny\nz\n"


def test_revert_over_a_user_change_of_the_same_lines_is_a_conflict(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "cp")
    rec = store.record("call_1", "e1", "a.py", "x\ny\nz\n", "x\nY agent\nz\n", 1)
    result = store.revert(rec, "x\nY agent, edited by me\nz\n")
    assert result.text == "x\nY agent, edited by me\nz\n"  # left as it is
    assert result.conflicts[0].current_text == "Y agent, edited by me\n"


def test_revert_goes_hunk_by_hunk(tmp_path: Path) -> None:
    """One hunk the user changed is a conflict; the tool call's other hunk is still
    reverted."""
    store = CheckpointStore(tmp_path / "cp")
    rec = store.record("call_1", "e1", "a.py", "a\nb\nc\nd\n", "A\nb\nc\nD\n", 1)
    result = store.revert(rec, "A\nb\nc\nD mine\n")
    assert result.text == "a\nb\nc\nD mine\n"
    assert [c.first_line for c in result.conflicts] == [4]


def test_bash_marks_and_restore_log_survive_a_new_store(tmp_path: Path) -> None:
    from pi_lsp.review import RestoredFile, RestoreLog

    store = CheckpointStore(tmp_path / "cp")
    store.record_bash("call_1", "e1", 1)
    with (tmp_path / "cp" / "bash.jsonl").open("a") as f:
        f.write("{torn")
    assert CheckpointStore(tmp_path / "cp").bash_checkpoints() == {"e1"}
    log = RestoreLog(tmp_path / "restores")
    files = [RestoredFile("file:///a.py", "before\udcff", "after")]
    log.save("abc123", files)
    assert RestoreLog(tmp_path / "restores").load("abc123") == files
    assert log.load("../etc") is None  # ids are never paths
    log.forget("abc123")
    assert log.load("abc123") is None


def test_copy_to_takes_the_records_after_the_given_checkpoints(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "cp")
    store.record("call_1", "e1", "a.py", "a\n", "b\n", 1)
    store.record("call_2", "e2", "a.py", "b\n", "c\n", 2)
    store.record_bash("call_3", "e1", 3)
    fork = CheckpointStore(tmp_path / "fork")
    store.copy_to(fork, {"e1"})
    (copied,) = fork.records()
    assert (copied.tool_call_id, fork.get_text(copied.after)) == ("call_1", "b\n")
    assert fork.bash_checkpoints() == {"e1"}
