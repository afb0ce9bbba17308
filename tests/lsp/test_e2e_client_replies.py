"""A client's odd replies never stall the server (issue 10 item 7): a ``null`` where a result
object was expected resolves the request (it used to wait forever, or 5 s for showDocument),
and follow-along (``window/showDocument``) is never waited on. (``pi/prompt`` before
``initialize``: test_e2e_raw.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from .harness import text_reply, tool_reply, uri_of, write_script
from .raw import RawClient

EDIT = {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]}


async def answer_requests(c: RawClient, results: dict[str, Any], seen: list[str]) -> None:
    """Answer every server → client request with ``results[method]`` (missing: no answer)."""
    answered: set[Any] = set()
    while True:
        for m in list(c.messages):
            if "method" in m and "id" in m and m["id"] not in answered:
                answered.add(m["id"])
                seen.append(m["method"])
                if m["method"] in results:
                    c.send({"jsonrpc": "2.0", "id": m["id"], "result": results[m["method"]]})
        await c._changed.wait()  # set whenever a message arrives


async def test_null_answers_do_not_stall_edits(
    tmp_path: Path, workspace: Path, data_dir: Path
) -> None:
    script = write_script(tmp_path / "s.json", [tool_reply("edit", EDIT), text_reply("done")])
    c = await RawClient.start(data_dir)
    seen: list[str] = []
    # applyEdit answered null (a result object was expected); showDocument never answered
    helper = asyncio.ensure_future(
        answer_requests(c, {"workspace/applyEdit": None, "workspace/configuration": None}, seen)
    )
    try:
        await c.initialize(
            workspace, {"provider": "faux", "fauxScript": str(script), "followEdits": True}
        )
        path = workspace / "a.py"
        c.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri_of(path),
                    "languageId": "python",
                    "version": 1,
                    "text": path.read_text(),
                }
            },
        )
        sid = (await c.call("pi/prompt", {"text": "edit it"}))["result"]["sessionId"]
        await c.wait_for(
            lambda: [e for e in c.events(sid) if e["event"]["type"] == "agent_end"], 20
        )
        assert "workspace/applyEdit" in seen
        ends = [e["event"] for e in c.events(sid) if e["event"]["type"] == "tool_execution_end"]
        assert ends[0]["isError"] is True  # a null answer is "not applied", said plainly
        text = json.dumps(ends[0]["result"])
        assert "not" in text
    finally:
        helper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await helper
        await c.close()
