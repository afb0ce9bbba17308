"""docs/protocol.md#diagnostics-after-an-edit-94 over the real server: after an edit the server
takes the client's
``pi/diagnostics`` for the edited version and appends the errors / warnings on the changed
lines to the tool result; an older version's report is ignored; a client without the
capability is never waited for (its reports are not used)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import Start
from .harness import VSCODE, text_reply, tool_reply, uri_of
from .test_editor_files import EDIT, faux, result_text


def _diag(line: int, message: str, severity: int = 1) -> dict[str, Any]:
    return {
        "range": {
            "start": {"line": line, "character": 4},
            "end": {"line": line, "character": 12},
        },
        "severity": severity,
        "source": "pyright",
        "message": message,
    }


def _settings(tmp_path: Path, declared: bool) -> dict[str, Any]:
    caps = {"clientCapabilities": {"diagnostics": True}} if declared else {}
    return faux(tmp_path, tool_reply("edit", EDIT), text_reply("ok"), **caps)


async def _edit_reporting(
    h: Any, workspace: Path, reports: Callable[[str, int], list[dict[str, Any]]]
) -> dict[str, Any]:
    """Open ``a.py`` and run the edit; once the client applied it, send
    ``reports(uri, version)`` as ``pi/diagnostics``. Returns the edit's tool end."""
    uri = h.open(workspace / "a.py")

    async def client_side() -> None:
        await h.wait_for(lambda: h.edits)
        for params in reports(uri, h.docs[uri][0]):
            h.client.protocol.notify("pi/diagnostics", params)

    helper = asyncio.ensure_future(client_side())
    sid = await h.run("change it")
    await helper
    (end,) = h.tool_ends(sid)
    return end  # type: ignore[no-any-return]


async def test_diagnostics_of_the_new_version_are_appended(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_settings(tmp_path, True))
    end = await _edit_reporting(
        h,
        workspace,
        lambda uri, v: [
            {
                "uri": uri,
                "version": v,
                "diagnostics": [
                    _diag(1, "Type of 2 is wrong"),
                    _diag(0, "not on a changed line"),
                    _diag(1, "just a hint", severity=4),
                ],
            }
        ],
    )
    text = result_text(end)
    assert "line 2: error [pyright]: Type of 2 is wrong" in text
    assert "not on a changed line" not in text
    assert "just a hint" not in text


async def test_an_older_versions_diagnostics_are_ignored(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_settings(tmp_path, True))
    end = await _edit_reporting(
        h,
        workspace,
        lambda uri, v: [{"uri": uri, "version": v - 1, "diagnostics": [_diag(1, "stale error")]}],
    )
    assert end["isError"] is False
    assert "stale error" not in result_text(end)


async def test_no_capability_no_wait_and_reports_unused(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(capabilities=VSCODE, pi=_settings(tmp_path, False))
    early = {"diagnostics": [_diag(1, "never shown")]}
    h.client.protocol.notify("pi/diagnostics", {"uri": uri_of(workspace / "a.py"), **early})
    end = await _edit_reporting(
        h, workspace, lambda uri, v: [{"uri": uri, "version": v, "diagnostics": [_diag(1, "late")]}]
    )
    assert "never shown" not in result_text(end)
    assert "late" not in result_text(end)
