"""Workspace folders added or removed in the editor change what the tools may touch (the
server advertises ``workspaceFolders.changeNotifications``)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import Start
from .harness import text_reply, tool_reply, uri_of, write_script


def _folders_event(
    added: list[Path] = (),
    removed: list[Path] = (),  # type: ignore[assignment]
) -> types.DidChangeWorkspaceFoldersParams:
    return types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=uri_of(p), name=p.name) for p in added],
            removed=[types.WorkspaceFolder(uri=uri_of(p), name=p.name) for p in removed],
        )
    )


async def test_added_folder_becomes_reachable_and_removed_one_does_not(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "b.py").write_text("B = 2\n", encoding="utf-8")
    read_b = tool_reply("read", {"path": str(other / "b.py")})
    script = write_script(
        tmp_path / "script.json",
        [read_b, text_reply("no"), read_b, text_reply("yes"), read_b, text_reply("no again")],
    )
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})

    sid = await h.run("read b before the folder is added")
    (refused,) = h.tool_ends(sid)
    assert refused["isError"] is True
    assert "outside the workspace" in refused["result"]["content"][0]["text"]

    h.client.workspace_did_change_workspace_folders(_folders_event(added=[other]))
    await h.run("read b now", sessionId=sid)
    allowed = h.tool_ends(sid)[1]
    assert allowed["isError"] is False
    assert allowed["result"]["content"][0]["text"] == "B = 2\n"

    h.client.workspace_did_change_workspace_folders(_folders_event(removed=[other]))
    await h.run("and after it is removed", sessionId=sid)
    again = h.tool_ends(sid)[2]
    assert again["isError"] is True
    # the original root is still the cwd: relative paths keep resolving there
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["isStreaming"] is False
