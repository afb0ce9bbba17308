"""Plan mode, the todo list and questions over the wire (docs/protocol.md, pi/setMode,
todo_update, pi/ask), in the in-process tier with the faux provider's scripted replies."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.tools.ask import DISMISSED
from pi_lsp.tools.plan_mode import ACT_FOLLOW_UP, PLAN_MODE_PROMPT
from tests.support.http_server import RecordedRequest, ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import Harness, stop, text_reply, tool_reply, write_script
from .openai_sse import response, text_events


def faux(tmp_path: Path, *responses: dict[str, Any], **extra: Any) -> dict[str, Any]:
    script = write_script(tmp_path / f"script-{uuid.uuid4().hex[:6]}.json", list(responses))
    return {"provider": "faux", "fauxScript": str(script), **extra}


def text_of(end: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in end["result"]["content"])


def multi(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "content": [{"type": "toolCall", "name": n, "arguments": a} for n, a in calls],
    }


TODOS = [
    {"id": "1", "content": "Read a.py", "status": "completed"},
    {"id": "2", "content": "Change f", "status": "in_progress"},
]
QUESTION = {
    "question": "Which style?",
    "options": [{"label": "Tabs", "description": "one tab"}, {"label": "Spaces"}],
    "allowFreeText": True,
}


async def test_plan_mode_refuses_write_edit_and_mixed_bash(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            multi(
                ("write", {"path": "a.py", "content": "gone"}),
                ("edit", {"path": "a.py", "edits": [{"oldText": "1", "newText": "2"}]}),
                ("bash", {"command": "cat a.py; echo x > a.py"}),
                ("bash", {"command": "grep -c return a.py"}),
            ),
            text_reply("Plan: change f."),
        )
    )
    sid = (await h.call("pi/newSession"))["sessionId"]
    assert (await h.call("pi/state", {"sessionId": sid}))["mode"] == "act"
    assert await h.call("pi/setMode", {"sessionId": sid, "mode": "plan"}) == {
        "mode": "plan",
        "followUp": False,
    }
    await h.prompt_answers.put("Allow")  # a read-only command is still asked about
    await h.run("plan it", sessionId=sid)
    ends = h.tool_ends(sid)
    assert [(e["toolName"], e["isError"]) for e in ends] == [
        ("write", True),
        ("edit", True),
        ("bash", True),
        ("bash", False),
    ]
    for refused in ends[:2]:  # not in the tool list, and the model is told why
        assert "plan mode" in text_of(refused)
        assert "not available" in text_of(refused)
    assert "plan mode" in text_of(ends[2])
    assert "redirection to a file" in text_of(ends[2])
    assert text_of(ends[3]).strip() == "1"
    assert workspace.joinpath("a.py").read_text() == "def f():\n    return 1\n"
    assert h.edits == []
    (prompt,) = h.prompts  # the refused command was never put to the user
    assert "grep -c return a.py" in prompt.message
    modes = [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "mode_update"]
    assert modes == [{"type": "mode_update", "mode": "plan"}]


def _offered(request: RecordedRequest) -> list[str]:
    return [t["function"]["name"] for t in request.json.get("tools", [])]


async def test_the_model_is_never_offered_a_write_tool_in_plan_mode(
    pi_in_process: Start, srv: ScriptedHTTPServer
) -> None:
    """docs/tools.md#plan-mode: the promise is the tool list the model receives (the refusal
    of a call is a second line of defence, not the first): read in the request itself."""
    srv.enqueue(response(text_events("Plan: x.")), response(text_events("Done.")))
    h = await pi_in_process(pi=http_settings(srv))
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/setMode", {"sessionId": sid, "mode": "plan"})
    await h.run("plan it", sessionId=sid)
    plan = _offered(srv.requests[0])
    assert "read" in plan
    assert "bash" in plan  # read-only commands only, checked per call
    assert not {"write", "edit"} & set(plan)
    assert PLAN_MODE_PROMPT in srv.requests[0].json["messages"][0]["content"]
    await h.call("pi/setMode", {"sessionId": sid, "mode": "act"})
    await h.wait_event(sid, "agent_end", 2)  # the carry-out follow-up's run
    assert {"write", "edit"} <= set(_offered(srv.requests[1]))


async def test_switching_to_act_delivers_the_plan_follow_up(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    h = await pi_in_process(
        pi=faux(
            tmp_path,
            text_reply("1. Write b.txt"),
            tool_reply("write", {"path": "b.txt", "content": "done\n"}),
            text_reply("Done."),
        )
    )
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/setMode", {"sessionId": sid, "mode": "plan"})
    await h.run("plan", sessionId=sid)
    result = await h.call("pi/setMode", {"sessionId": sid, "mode": "act"})
    assert result == {"mode": "act", "followUp": True}
    end = await h.wait_event(sid, "agent_end", 2)
    assert end["messages"][0]["role"] == "user"
    assert end["messages"][0]["content"][0]["text"] == ACT_FOLLOW_UP
    assert workspace.joinpath("b.txt").read_text() == "done\n"
    assert (await h.call("pi/state", {"sessionId": sid}))["mode"] == "act"


async def test_set_mode_rejects_a_bad_mode(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(pi=faux(tmp_path))
    sid = (await h.call("pi/newSession"))["sessionId"]
    with pytest.raises(JsonRpcInvalidParams, match="mode"):
        await h.call("pi/setMode", {"sessionId": sid, "mode": "yolo"})
    assert (await h.call("pi/state", {"sessionId": sid}))["mode"] == "act"


async def test_default_mode_setting(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(pi=faux(tmp_path, defaultMode="plan"))
    sid = (await h.call("pi/newSession"))["sessionId"]
    assert (await h.call("pi/state", {"sessionId": sid}))["mode"] == "plan"


async def test_todo_events_state_and_resume(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    done = [{**t, "status": "completed"} for t in TODOS]
    settings = faux(
        tmp_path,
        tool_reply("todo", {"todos": TODOS}),
        tool_reply("todo", {"todos": done}),
        text_reply("All done."),
    )
    h = await pi_in_process(pi=settings)
    sid = await h.run("work")
    updates = [e["event"] for e in h.session_events(sid) if e["event"]["type"] == "todo_update"]
    assert updates == [
        {"type": "todo_update", "items": TODOS},
        {"type": "todo_update", "items": done},
    ]
    state = await h.call("pi/state", {"sessionId": sid})
    assert state["todo"] == done
    await stop(h)

    again = await pi_in_process(pi=settings)
    resumed = await again.call("pi/resumeSession", {"sessionId": sid})
    # (a copy when this process still holds the first server's lock on the file)
    assert sid in (resumed["sessionId"], resumed.get("forkedFrom"))
    state = await again.call("pi/state", {"sessionId": resumed["sessionId"]})
    assert state["todo"] == done


class Asks:
    """The client side of ``pi/ask``: records questions, answers from a queue, notes the
    ones the server withdrew (``$/cancelRequest``)."""

    def __init__(self, h: Harness) -> None:
        self.requests: list[dict[str, Any]] = []
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.withdrawn: list[str] = []

        @h.client.feature("pi/ask")
        async def on_ask(params: Any) -> dict[str, Any]:
            self.requests.append(params)
            h._bump()
            try:
                return await self.answers.get()
            except asyncio.CancelledError:
                self.withdrawn.append(params["toolCallId"])
                h._bump()
                raise


async def test_ask_over_pi_ask(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(
        pi={
            **faux(tmp_path, tool_reply("ask", QUESTION), text_reply("ok")),
            "clientCapabilities": {"ask": True},
        }
    )
    asks = Asks(h)
    asks.answers.put_nowait({"answers": ["Spaces"], "text": "four of them"})
    sid = await h.run("ask me")
    (request,) = asks.requests
    assert request == {
        "sessionId": sid,
        "toolCallId": request["toolCallId"],
        "question": "Which style?",
        "options": [{"label": "Tabs", "description": "one tab"}, {"label": "Spaces"}],
        "allowFreeText": True,
        "multiSelect": False,
    }
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False
    assert text_of(end) == 'The user chose "Spaces".\nThe user wrote: four of them'


async def test_cancelled_answer_is_an_error_result(pi_in_process: Start, tmp_path: Path) -> None:
    h = await pi_in_process(
        pi={
            **faux(tmp_path, tool_reply("ask", QUESTION), text_reply("ok")),
            "clientCapabilities": {"ask": True},
        }
    )
    asks = Asks(h)
    asks.answers.put_nowait({"cancelled": True})
    sid = await h.run("ask me")
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert text_of(end) == DISMISSED


async def test_ask_over_show_message_request_for_a_plain_client(
    pi_in_process: Start, tmp_path: Path
) -> None:
    h = await pi_in_process(pi=faux(tmp_path, tool_reply("ask", QUESTION), text_reply("ok")))
    await h.prompt_answers.put("Tabs")
    sid = await h.run("ask me")
    (prompt,) = h.prompts
    assert prompt.type == types.MessageType.Info
    assert prompt.message == "Which style?\n\nTabs: one tab"
    assert [a.title for a in prompt.actions or []] == ["Tabs", "Spaces"]
    (end,) = h.tool_ends(sid)
    assert end["isError"] is False
    assert text_of(end).startswith('The user chose "Tabs".')
    assert "could only offer the listed choices" in text_of(end)


async def test_abort_while_asking_withdraws_the_question(
    pi_in_process: Start, tmp_path: Path
) -> None:
    h = await pi_in_process(
        pi={
            **faux(tmp_path, tool_reply("ask", QUESTION), text_reply("never")),
            "clientCapabilities": {"ask": True},
        }
    )
    asks = Asks(h)
    sid = (await h.call("pi/prompt", {"text": "ask me"}))["sessionId"]
    await h.wait_for(lambda: asks.requests)
    state = await h.call("pi/state", {"sessionId": sid})
    call_id = asks.requests[0]["toolCallId"]
    assert state["pendingQuestions"] == [{"toolCallId": call_id, "question": "Which style?"}]
    assert await h.call("pi/abort", {"sessionId": sid}) == {"aborted": True}
    await h.wait_event(sid, "agent_end")
    await h.wait_for(lambda: asks.withdrawn)
    assert asks.withdrawn == [call_id]
    (end,) = h.tool_ends(sid)
    assert end["isError"] is True
    assert (await h.call("pi/state", {"sessionId": sid}))["pendingQuestions"] == []


def _inside_runs(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """What a client that shows nothing outside a run shows (the events from each
    ``agent_start`` to its ``agent_end``), and the types of the events it drops."""
    shown: list[dict[str, Any]] = []
    dropped: list[str] = []
    running = False
    for e in events:
        event = e["event"]
        running = running or event["type"] == "agent_start"
        (shown.append(event) if running else dropped.append(event["type"]))
        running = running and event["type"] != "agent_end"
    return shown, dropped


async def test_the_carry_out_is_a_run_a_client_sees(
    pi_in_process: Start, tmp_path: Path, workspace: Path
) -> None:
    """LSP: switching to act when idle starts the carry-out as a run of its own, announced
    like any run (``agent_start``, the carry-out message as the user's, the answer,
    ``agent_end``), so a client that shows only runs shows all of it."""
    h = await pi_in_process(
        pi=faux(tmp_path, text_reply("1. Say done"), text_reply("Done with the plan."))
    )
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/setMode", {"sessionId": sid, "mode": "plan"})
    await h.run("plan", sessionId=sid)
    assert (await h.call("pi/setMode", {"sessionId": sid, "mode": "act"}))["followUp"] is True
    await h.wait_event(sid, "agent_end", 2)
    shown, dropped = _inside_runs(h.session_events(sid))
    assert set(dropped) <= {"mode_update", "queue_update", "session_info", "todo_update"}, dropped
    users = [
        e["message"]["content"][0]["text"]
        for e in shown
        if e["type"] == "message_start" and e["message"]["role"] == "user"
    ]
    assert users == ["plan", ACT_FOLLOW_UP]
    answers = [
        "".join(b.get("text", "") for b in e["message"]["content"])
        for e in shown
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    ]
    assert answers[-1] == "Done with the plan."
