"""Files through the editor: reads see unsaved buffers; edit/write become workspace/applyEdit
(``documentChanges`` for VS Code, ``changes`` for Neovim), disk follows, rejections and
stale text are errors the model reads, nothing escapes the workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from .conftest import Start
from .harness import NVIM_011, NVIM_07, VSCODE, text_reply, tool_reply, uri_of, write_script

EDIT = {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]}


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / "script.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


def result_text(end: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in end["result"]["content"])


async def test_read_sees_the_unsaved_buffer(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(tmp_path, tool_reply("read", {"path": "a.py"}), text_reply("ok"))
    )
    h.open(workspace / "a.py", "def f():\n    return 'unsaved'\n")
    sid = await h.run("read a.py")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False
    assert "return 'unsaved'" in result_text(end)


@pytest.mark.parametrize("client", [VSCODE, NVIM_07, NVIM_011])
async def test_edit_lands_in_the_buffer_and_on_disk(
    pi_in_process: Start, tmp_path: Path, workspace: Path, client: str
) -> None:
    h = await pi_in_process(
        capabilities=client, pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done"))
    )
    uri = h.open(workspace / "a.py")
    sid = await h.run("change it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, result_text(end)
    assert "Successfully replaced 1 block(s) in a.py." in result_text(end)
    (params,) = h.edits
    assert params.label == "pi: edit a.py"
    if client == VSCODE:
        assert params.edit.changes is None
        (doc_edit,) = params.edit.document_changes  # type: ignore[misc]
        assert doc_edit.text_document.version == 1
    else:  # Neovim declares no documentChanges
        assert params.edit.document_changes is None
        assert list(params.edit.changes) == [uri]  # type: ignore[arg-type]
    assert h.docs[uri][1] == "def f():\n    return 2\n"
    assert (workspace / "a.py").read_text() == "def f():\n    return 2\n"


async def test_edit_of_a_file_not_open(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done")))
    sid = await h.run("change it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, result_text(end)
    (doc_edit,) = h.edits[0].edit.document_changes  # type: ignore[misc]
    assert doc_edit.text_document.version is None
    assert (workspace / "a.py").read_text() == "def f():\n    return 2\n"


async def test_rejected_edit_is_an_error_and_nothing_is_written(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("sorry")))
    h.edit_answer = lambda p: types.ApplyWorkspaceEditResult(
        applied=False, failure_reason="the user pressed Esc"
    )
    uri = h.open(workspace / "a.py")
    sid = await h.run("change it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "the user pressed Esc" in result_text(end)
    assert h.docs[uri][1] == "def f():\n    return 1\n"
    assert (workspace / "a.py").read_text() == "def f():\n    return 1\n"


async def test_two_edits_to_one_file_in_one_batch(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    first = {"path": "a.py", "edits": [{"oldText": "def f():", "newText": "def g():"}]}
    second = {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 3"}]}
    batch = {
        "content": [
            {"type": "toolCall", "name": "edit", "arguments": first},
            {"type": "toolCall", "name": "edit", "arguments": second},
        ]
    }
    h = await pi_in_process(pi=faux(tmp_path, batch, text_reply("both done")))
    uri = h.open(workspace / "a.py")
    sid = await h.run("rename and change")
    ends = h.tool_ends(sid)
    assert [e["isError"] for e in ends] == [False, False], [result_text(e) for e in ends]
    assert h.docs[uri][1] == "def g():\n    return 3\n"
    assert (workspace / "a.py").read_text() == "def g():\n    return 3\n"
    versions = [p.edit.document_changes[0].text_document.version for p in h.edits]  # type: ignore[index]
    assert versions == [1, 2]  # the second edit was computed from the updated buffer


@pytest.mark.parametrize("client", [VSCODE, NVIM_07])
async def test_new_file_via_write(
    pi_in_process: Start, tmp_path: Path, workspace: Path, client: str
) -> None:
    args = {"path": "pkg/new.py", "content": "print('hi')\n"}
    h = await pi_in_process(
        capabilities=client, pi=faux(tmp_path, tool_reply("write", args), text_reply("written"))
    )
    sid = await h.run("create it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, result_text(end)
    assert (workspace / "pkg" / "new.py").read_text() == "print('hi')\n"
    if client == VSCODE:
        create = h.edits[0].edit.document_changes[0]  # type: ignore[index]
        assert isinstance(create, types.CreateFile)
        assert create.uri == uri_of(workspace / "pkg" / "new.py")
        assert h.edits[0].label == "pi: write pkg/new.py"
    else:  # no resource operations without documentChanges: the server creates it
        assert h.edits == []


async def test_write_replaces_an_open_buffer(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    args = {"path": "a.py", "content": "x = 1\n"}
    h = await pi_in_process(pi=faux(tmp_path, tool_reply("write", args), text_reply("ok")))
    uri = h.open(workspace / "a.py")
    sid = await h.run("overwrite")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, result_text(end)
    assert h.docs[uri][1] == "x = 1\n"
    assert (workspace / "a.py").read_text() == "x = 1\n"


async def test_unsaved_user_changes_are_never_written_to_disk(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done")))
    uri = h.open(workspace / "a.py", "# my unsaved note\ndef f():\n    return 1\n")
    sid = await h.run("change it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False, result_text(end)
    assert h.docs[uri][1] == "# my unsaved note\ndef f():\n    return 2\n"
    assert (workspace / "a.py").read_text() == "def f():\n    return 1\n"


async def test_save_documents_capability(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            tool_reply("edit", EDIT),
            text_reply("done"),
            clientCapabilities={"saveDocuments": True},
        )
    )
    uri = h.open(workspace / "a.py")
    await h.run("change it")
    assert h.save_requests == [{"uris": [uri]}]
    assert (workspace / "a.py").read_text() == "def f():\n    return 2\n"


@pytest.mark.parametrize(
    "args",
    [
        {"path": "../outside.py", "content": "x"},
        {"path": "/etc/passwd", "content": "x"},
    ],
)
async def test_a_write_outside_the_workspace_is_refused_and_nothing_is_sent(
    pi_in_process: Start, tmp_path: Path, workspace: Path, args: dict[str, Any]
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, tool_reply("write", args), text_reply("refused")))
    sid = await h.run("escape")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "outside the workspace" in result_text(end)
    assert not (tmp_path / "outside.py").exists()
    assert h.edits == []


async def test_symlink_out_of_the_workspace_is_refused(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (workspace / "link.txt").symlink_to(secret)
    h = await pi_in_process(
        pi=faux(tmp_path, tool_reply("read", {"path": "link.txt"}), text_reply("no"))
    )
    sid = await h.run("read the link")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "top secret" not in result_text(end)


async def test_confirm_mode_with_change_annotations(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done"), edits="confirm")
    )
    h.open(workspace / "a.py")
    await h.run("change it")
    (params,) = h.edits
    annotations = params.edit.change_annotations
    assert annotations is not None
    (annotation,) = annotations.values()
    assert annotation.needs_confirmation is True
    assert h.prompts == []  # the editor's own preview asks the user


async def test_confirm_mode_without_annotations_asks_first(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        capabilities=NVIM_011,
        pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done"), edits="confirm"),
    )
    h.open(workspace / "a.py")
    await h.prompt_answers.put("Reject")
    sid = await h.run("change it")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "rejected" in result_text(end)
    assert h.edits == []
    (prompt,) = h.prompts
    assert [a.title for a in prompt.actions or []] == ["Apply", "Reject"]
    assert "-    return 1" in prompt.message
    assert "+    return 2" in prompt.message


async def test_a_buffer_changed_during_confirmation_is_stale(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        capabilities=NVIM_011,
        pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done"), edits="confirm"),
    )
    uri = h.open(workspace / "a.py")
    result = await h.call("pi/prompt", {"text": "change it"})
    sid = result["sessionId"]
    await h.wait_for(lambda: h.prompts)
    h.set_text(uri, "def f():\n    return 1  # typed meanwhile\n")
    await h.call("pi/state", {"sessionId": sid})  # the didChange is processed before this
    await h.prompt_answers.put("Apply")
    await h.wait_event(sid, "agent_end")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert "changed in the editor" in result_text(end)
    assert h.edits == []
    assert h.docs[uri][1].endswith("# typed meanwhile\n")


async def test_follow_edits_shows_the_document(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(tmp_path, tool_reply("edit", EDIT), text_reply("done"), followEdits=True)
    )
    uri = h.open(workspace / "a.py")
    await h.run("change it")
    (shown,) = await h.wait_for(lambda: h.client.shown_documents)
    assert shown.uri == uri
    assert shown.take_focus is False
    assert shown.selection is not None
    assert shown.selection.start.line == 1
