"""Session files: v3 format, persistence policy, load tolerance, tree moves, fork (items 85, 86)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from pi_lsp.agent.messages import CustomMessage
from pi_lsp.ai import ImageContent, TextContent
from pi_lsp.sessions import (
    CorruptSessionError,
    SessionFile,
    SessionNotFoundError,
    SessionStore,
    sessions_dir,
)
from pi_lsp.sessions.paths import DATA_DIR_ENV, workspace_key
from pi_lsp.sessions.store import NO_TITLE, TITLE_MAX, prompt_text, session_title

from .helpers import assistant, tool_result, user

HEX8 = re.compile(r"^[0-9a-f]{8}$")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions", tmp_path / "project")


# ------------------------------------------------------------------ item 85


def test_item85_header_ids_and_parent_links(store: SessionStore) -> None:
    f = store.create()
    first = f.append_message(user("hello"))
    second = f.append_message(assistant("hi"))
    records = lines(f.path)
    header = records[0]
    assert header["type"] == "session"
    assert header["version"] == 3
    assert header["id"] == f.session_id
    assert header["cwd"] == str(store.cwd)
    assert "parentId" not in header
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", header["timestamp"])
    body = records[1:]
    assert [r["id"] for r in body] == [first, second]
    assert all(HEX8.match(r["id"]) for r in body)
    assert body[0]["parentId"] is None
    assert body[1]["parentId"] == first
    assert body[1]["message"]["role"] == "assistant"
    assert body[1]["message"]["stopReason"] == "stop"  # camelCase on disk
    # UUIDv7 session id, Pi's file name
    assert re.match(r"^[0-9a-f-]{36}$", f.session_id)
    assert f.session_id[14] == "7"
    assert f.path.name.endswith(f"_{f.session_id}.jsonl")


def test_item85_no_file_until_the_first_message(store: SessionStore) -> None:
    """Pi writes nothing until the first assistant message; we write at the first message
    (the user's prompt), so a crash during the first reply does not lose the prompt. A
    session that never gets a message leaves no file."""
    f = store.create()
    f.append_model_change("faux", "faux-1")
    f.append_thinking_level_change("high")
    assert not f.path.exists()
    assert not f.is_persisted
    f.append_message(user("the prompt"))
    assert f.path.exists()
    types = [r["type"] for r in lines(f.path)]
    assert types == ["session", "model_change", "thinking_level_change", "message"]


def test_every_append_is_on_disk_when_it_returns(store: SessionStore) -> None:
    f = store.create()
    f.append_message(user("a"))
    for i in range(5):
        f.append_message(assistant(f"reply {i}"))
        assert len(lines(f.path)) == 3 + i  # header + user + i+1 replies


# ------------------------------------------------------------------ store


def test_open_restores_entries_and_leaf(store: SessionStore) -> None:
    f = store.create()
    f.append_model_change("openai", "gpt-x")
    f.append_message(user("one"))
    last = f.append_message(assistant("two", provider="openai", model="gpt-x"))
    again = store.open(f.session_id)
    assert [e.id for e in again.entries] == [e.id for e in f.entries]
    assert again.leaf_id == last
    ctx = again.build_context()
    assert [m.role for m in ctx.messages] == ["user", "assistant"]
    assert (ctx.provider, ctx.model_id) == ("openai", "gpt-x")


def test_open_unknown_or_unsafe_id_is_not_found(store: SessionStore) -> None:
    with pytest.raises(SessionNotFoundError):
        store.open("0190abcd-0000-7000-8000-000000000000")
    with pytest.raises(SessionNotFoundError):
        store.open("../../etc/passwd")
    with pytest.raises(SessionNotFoundError):
        store.open("*")


def test_list_titles_counts_newest_first(store: SessionStore) -> None:
    assert store.list() == []
    a = store.create()
    a.append_message(user("  fix the\nfailing   test  "))
    a.append_message(assistant("done"))
    b = store.create()
    later = user("x" * 200)
    later.timestamp += 10_000  # unambiguously newer
    b.append_message(later)
    unsaved = store.create()  # no message: no file, not listed
    infos = store.list()
    assert [i.session_id for i in infos] == [b.session_id, a.session_id]
    assert infos[1].title == "fix the failing test"
    assert infos[1].message_count == 2
    assert infos[0].title.endswith("…")
    assert len(infos[0].title) == 80
    assert infos[0].updated_at >= infos[1].updated_at
    assert infos[0].updated_at_iso.endswith("Z")
    assert unsaved.session_id not in {i.session_id for i in infos}
    b.append_session_info("my\nname ")
    assert store.list()[0].title == "my name"


def test_one_function_titles_live_and_saved_sessions() -> None:
    assert session_title("  fix the\nfailing   test  ") == "fix the failing test"
    long = session_title("word " * 40)
    assert len(long) == TITLE_MAX
    assert long.endswith("…")
    assert not long.endswith(" …")
    assert session_title("", None) == NO_TITLE
    assert session_title("ignored", " my\nname ") == "my name"
    live = [TextContent(text="look"), ImageContent(data="AAAA", mime_type="image/png")]
    saved = [{"type": "text", "text": "look"}, {"type": "image", "data": "AAAA"}]
    assert prompt_text(live) == prompt_text(saved) == "look"


def test_list_skips_non_session_files(store: SessionStore) -> None:
    store.directory.mkdir(parents=True)
    (store.directory / "junk.jsonl").write_text('{"not": "a session"}\n')
    (store.directory / "empty.jsonl").write_text("")
    assert store.list() == []


def test_sessions_dir_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cwd = tmp_path / "My Project"
    cwd.mkdir()
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    key = workspace_key(cwd)
    assert key.startswith("My-Project-")
    assert len(key.rsplit("-", 1)[1]) == 16
    assert sessions_dir(cwd) == tmp_path / "xdg" / "pi-lsp" / "sessions" / key
    assert sessions_dir(cwd, tmp_path / "dh") == tmp_path / "dh" / "pi-lsp" / "sessions" / key
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "override"))
    assert sessions_dir(cwd, tmp_path / "dh") == tmp_path / "override" / "sessions" / key
    assert workspace_key(cwd / ".") == key  # resolved


# ------------------------------------------------------------------ load tolerance


def test_torn_last_line_is_skipped_with_a_warning_and_cut_before_appending(
    store: SessionStore, caplog: pytest.LogCaptureFixture
) -> None:
    f = store.create()
    f.append_message(user("a"))
    kept = f.append_message(assistant("b"))
    with f.path.open("ab") as out:
        out.write(b'{"type":"message","id":"deadbeef","parentId":"')  # a torn write
    with caplog.at_level(logging.WARNING, logger="pi_lsp.sessions"):
        again = SessionFile.load(f.path)
    assert "torn last line" in caplog.text
    assert again.leaf_id == kept
    assert len(again.entries) == 2
    new = again.append_message(user("c"))
    records = lines(again.path)  # every line parses again
    assert [r.get("id") for r in records[1:]] == [f.entries[0].id, kept, new]
    assert records[-1]["parentId"] == kept


def test_complete_last_line_without_newline_is_kept(store: SessionStore) -> None:
    f = store.create()
    f.append_message(user("a"))
    f.append_message(assistant("b"))
    f.path.write_bytes(f.path.read_bytes().rstrip(b"\n"))
    again = SessionFile.load(f.path)
    assert len(again.entries) == 2
    again.append_message(user("c"))
    assert len(lines(again.path)) == 4


def test_malformed_middle_line_is_skipped(
    store: SessionStore, caplog: pytest.LogCaptureFixture
) -> None:
    f = store.create()
    f.append_message(user("a"))
    f.append_message(assistant("b"))
    text = f.path.read_text().splitlines()
    text.insert(2, "{garbage")
    text.insert(2, '{"type":"from_the_future","id":"12345678","parentId":null,"timestamp":"x"}')
    f.path.write_text("\n".join(text) + "\n")
    with caplog.at_level(logging.WARNING, logger="pi_lsp.sessions"):
        again = SessionFile.load(f.path)
    assert len(again.entries) == 2
    assert caplog.text.count("skipped") == 2


def test_missing_header_is_corrupt(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"type":"message"}\n')
    with pytest.raises(CorruptSessionError):
        SessionFile.load(p)


# ------------------------------------------------------------------ tree (item 86), fork


def test_item86_branch_creates_a_sibling_and_context_follows_the_leaf(
    store: SessionStore,
) -> None:
    f = store.create()
    u1 = f.append_message(user("first"))
    a1 = f.append_message(assistant("answer 1"))
    f.append_message(user("second"))
    f.append_message(assistant("answer 2"))
    f.branch(a1)
    u3 = f.append_message(user("alternative"))
    assert f.get_entry(u3).parent_id == a1
    assert {e.id for e in f.children(a1)} == {f.entries[2].id, u3}
    texts = [m.content[0].text for m in f.build_context().messages]
    assert texts == ["first", "answer 1", "alternative"]
    # on reload the leaf is the last entry in the file: the new branch
    again = store.open(f.session_id)
    assert [m.content[0].text for m in again.build_context().messages] == texts
    # and the old branch is still there
    old_leaf = f.entries[3].id
    assert len(again.build_context(old_leaf).messages) == 4
    with pytest.raises(KeyError):
        f.branch("nope")
    f.reset_leaf()
    root2 = f.append_message(user("new root"))
    assert f.get_entry(root2).parent_id is None
    assert u1 != root2


def test_fork_writes_the_root_to_entry_path(store: SessionStore) -> None:
    f = store.create()
    f.append_model_change("faux", "faux-1")
    f.append_message(user("first"))
    a1 = f.append_message(assistant("answer 1"))
    f.append_label(a1, "good")
    f.append_message(user("second"))
    f.append_message(assistant("answer 2"))
    child = f.fork(a1)
    assert child.session_id != f.session_id
    assert child.path.exists()
    assert child.path.parent == f.path.parent
    records = lines(child.path)
    assert records[0]["parentSession"] == str(f.path)
    body = records[1:]
    assert [r["type"] for r in body] == ["model_change", "message", "message", "label"]
    assert body[0]["parentId"] is None
    assert all(body[i]["parentId"] == body[i - 1]["id"] for i in range(1, len(body)))
    assert child.label_of(a1) == "good"
    assert [m.role for m in child.build_context().messages] == ["user", "assistant"]
    child.append_message(user("continue here"))
    assert len(store.open(child.session_id).build_context().messages) == 3
    assert len(store.open(f.session_id).build_context().messages) == 4  # untouched


def test_custom_messages_are_custom_message_entries(store: SessionStore) -> None:
    f = store.create()
    f.append_message(user("u"))
    f.append_message(CustomMessage(custom_type="note", content="remember this", display=False))
    f.append_custom("state", {"k": 1})
    records = lines(f.path)
    assert records[2]["type"] == "custom_message"
    assert records[2]["customType"] == "note"
    assert records[3] == {**records[3], "type": "custom", "data": {"k": 1}}
    ctx = store.open(f.session_id).build_context()
    assert [m.role for m in ctx.messages] == ["user", "custom"]


def test_tool_results_round_trip(store: SessionStore) -> None:
    f = store.create()
    f.append_message(user("read it"))
    call = assistant("", calls=[("read", {"path": "a.py"})])
    f.append_message(call)
    result = tool_result(call, "print(1)")
    result.details = {"lines": 1}
    f.append_message(result)
    again = store.open(f.session_id).build_context().messages
    assert again[1] == call
    assert again[2] == result


def test_unserialisable_tool_details_are_written_as_repr(store: SessionStore) -> None:
    f = store.create()
    f.append_message(user("u"))
    call = assistant("", calls=[("x", {})])
    result = tool_result(call, "ok")
    result.details = {"path": Path("/p"), "thing": object(), "ids": {3}}
    f.append_message(result)
    details = lines(f.path)[-1]["message"]["details"]
    assert details["path"] == "/p"
    assert details["ids"] == [3]
    assert details["thing"].startswith("<object object")
