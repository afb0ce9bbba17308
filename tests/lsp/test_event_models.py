"""Every ``pi/event`` the server sends is what ``pi_lsp/wire_events.py`` (and ``contract.py``'s
``PiEvent``) declare: real runs with the faux provider (thinking, tool calls that succeed and
fail, a streamed bash, a steer out of the queue, an edit under review, plan mode, the todo list,
a model error, a compaction) and with a scripted HTTP provider (retries, a session that cannot
be saved) are validated event by event — both as the client receives them (compact form) and
as ``wire.event_wire`` made them (full form). The declarations forbid undeclared fields, so a
field added to or dropped from the wire without updating them fails here, and the schema the
clients' types are generated from cannot drift from what is sent."""

from __future__ import annotations

import asyncio
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from pi_lsp.lsp.host import event_relay
from pi_lsp.lsp.protocol.contract import EventNotification, PiEvent
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import Harness, text_reply, tool_reply, write_script
from .openai_sse import error, response, text_events

EVENT_MODELS: tuple[type[BaseModel], ...] = typing.get_args(PiEvent.model_fields["root"].annotation)
TODOS = [
    {"id": "1", "content": "Read a.py", "status": "completed"},
    {"id": "2", "content": "Change f", "status": "in_progress"},
]
EDIT = {"path": "a.py", "edits": [{"oldText": "return 1", "newText": "return 2"}]}
WAIT_FOR_RELEASE = "echo started; until [ -e release ]; do sleep 0.02; done; echo more; exit 3"
"""A bash call that streams output, then runs until the test has steered (and fails)."""


def model_of(event: dict[str, Any]) -> type[BaseModel]:
    """The one declared model the event validates against (fails when none does)."""
    matched = []
    for model in EVENT_MODELS:
        try:
            model.model_validate(event)
        except ValidationError:
            continue
        matched.append(model)
    assert len(matched) == 1, f"{len(matched)} declared models match {event}"
    return matched[0]


class Recorded:
    """What ``wire.event_wire`` made for the language server (before the compact form)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[dict[str, Any]] = []
        real = event_relay.event_wire

        def record(event: Any) -> dict[str, Any] | None:
            wire = real(event)
            if wire is not None:
                self.events.append(wire)
            return wire

        monkeypatch.setattr(event_relay, "event_wire", record)


def validated(h: Harness, recorded: Recorded) -> dict[type[BaseModel], dict[str, Any]]:
    """Validate every notification and every recorded event; one example of each model."""
    seen: dict[type[BaseModel], dict[str, Any]] = {}
    for params in h.events:
        note = EventNotification.model_validate(params)  # the envelope, and its event
        assert (
            note.event.model_dump(by_alias=True, exclude_unset=True, mode="json") == params["event"]
        )
        seen.setdefault(model_of(params["event"]), params["event"])
    for event in recorded.events:
        PiEvent.model_validate(event)
        seen.setdefault(model_of(event), event)
    return seen


FAUX_RUN = {
    "AgentStartEvent",
    "TurnStartEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "MessageEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "ToolExecutionEndEvent",
    "TurnEndEvent",
    "TurnEndRefsEvent",
    "AgentEndEvent",
    "AgentEndRefsEvent",
    "CompactionStartEvent",
    "CompactionEndEvent",
    "QueueUpdateEvent",
    "TodoUpdateEvent",
    "ModeUpdateEvent",
    "ReviewUpdateEvent",
}
HTTP_RUN = {"RetryEvent", "SessionSaveEvent"}
CONTEXT_RUN = {"ResourcesUpdateEvent", "ResourceNoticeEvent"}
SUBAGENT_RUN = {"SubagentUpdateEvent"}
BACKGROUND_RUN = {"ProcessesUpdateEvent"}


async def faux_run(
    pi: Start, tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[type[BaseModel], dict[str, Any]]:
    recorded = Recorded(monkeypatch)
    big = "word " * 6000
    thinking = {
        "content": [
            {"type": "thinking", "thinking": "Look first."},
            {"type": "text", "text": "Reading a.py."},
            {"type": "toolCall", "name": "read", "arguments": {"path": "a.py"}},
        ]
    }
    script = write_script(
        tmp_path / "script.json",
        [
            thinking,
            tool_reply("todo", {"todos": TODOS}),
            tool_reply("edit", EDIT),
            tool_reply("bash", {"command": WAIT_FOR_RELEASE}),
            text_reply("Noted."),  # the turn after the steer
            {"errorMessage": "500 upstream exploded", "beforeStart": True},  # the second run
            *[text_reply(big) for _ in range(4)],
            *[text_reply("## Goal\nSummary of the conversation.")] * 2,
        ],
        chunkSize=6,
    )
    h = await pi(
        pi={
            "provider": "faux",
            "fauxScript": str(script),
            "permissions": {"bash": "allow"},
            "clientCapabilities": {"compactEvents": True},
        }
    )
    h.open(workspace / "a.py")
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.call("pi/setMode", {"sessionId": sid, "mode": "plan"})
    await h.call("pi/setMode", {"sessionId": sid, "mode": "act"})
    prompt = asyncio.ensure_future(h.run("look at a.py", sessionId=sid))
    await h.wait_event(sid, "tool_execution_update")
    steered = await h.call("pi/steer", {"text": "also this", "sessionId": sid})
    assert steered["delivered"] == "steer"
    (workspace / "release").write_text("")
    await prompt
    await h.run("again", sessionId=sid)  # ends in the model's error
    for i in range(4):
        await h.run(f"more {i} " + "x " * 3000, sessionId=sid)
    assert (await h.call("pi/compact", {"sessionId": sid}))["compacted"] is True
    queued = [e["event"] for e in h.events if e["event"].get("deliveredAs") == "steer"]
    assert [e["type"] for e in queued] == ["message_start"]  # the steer, out of the queue
    assert any(e["event"].get("message", {}).get("stopReason") == "error" for e in h.events)
    return validated(h, recorded)


async def test_every_event_of_a_faux_run_is_declared(
    pi_in_process: Start, tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await faux_run(pi_in_process, tmp_path, workspace, monkeypatch)
    assert {m.__name__ for m in seen} == FAUX_RUN
    ends = seen[next(m for m in seen if m.__name__ == "ToolExecutionEndEvent")]
    assert set(ends) == {"type", "toolCallId", "toolName", "result", "isError"}


async def test_every_event_of_a_retried_unsaved_run_is_declared(
    pi_in_process: Start, srv: ScriptedHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = Recorded(monkeypatch)
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the data directory should be")
    srv.enqueue(error(429, "Rate limit reached", **{"retry-after-ms": "10"}))
    srv.enqueue(response(text_events("finally")))
    h = await pi_in_process(pi=http_settings(srv), env={"PI_LSP_DATA_DIR": str(blocked)})
    await h.run("hi")
    seen = validated(h, recorded)
    assert {m.__name__ for m in seen} >= HTTP_RUN


async def test_every_event_of_a_context_run_is_declared(
    pi_in_process: Start, tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unknown ``/name`` (a notice for the user) and an AGENTS.md written between two
    prompts (the context loaded again)."""
    recorded = Recorded(monkeypatch)
    script = write_script(tmp_path / "script.json", [text_reply("one"), text_reply("two")])
    h = await pi_in_process(pi={"provider": "faux", "fauxScript": str(script)})
    sid = (await h.call("pi/newSession"))["sessionId"]
    await h.run("/no-such-template now", sessionId=sid)
    (workspace / "AGENTS.md").write_text("Run the tests with `make check`.\n")
    await h.run("again", sessionId=sid)
    seen = validated(h, recorded)
    assert {m.__name__ for m in seen} >= CONTEXT_RUN
    update = seen[next(m for m in seen if m.__name__ == "ResourcesUpdateEvent")]
    assert [f["content"] for f in update["contextFiles"]][-1].startswith("Run the tests")


async def test_every_event_of_a_run_with_task_children_is_declared(
    pi_in_process: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``task`` child (docs/subagents.md): its ``subagent_update``s on the parent, its own
    events under its id."""
    recorded = Recorded(monkeypatch)
    task = {"description": "look", "prompt": "CHILD-A: look"}
    script = write_script(
        tmp_path / "script.json",
        [
            tool_reply("task", task),
            {"content": [{"type": "text", "text": "seen"}], "when": "CHILD-A"},
            text_reply("done"),
        ],
    )
    h = await pi_in_process(
        pi={
            "provider": "faux",
            "fauxScript": str(script),
            "clientCapabilities": {"subagents": True},
        }
    )
    sid = (await h.call("pi/prompt", {"text": "go"}))["sessionId"]
    await h.wait_event(sid, "agent_end")
    seen = validated(h, recorded)
    assert {m.__name__ for m in seen} >= SUBAGENT_RUN
    assert any(e.get("parentSessionId") == sid for e in h.events)  # validated above too


async def test_every_event_of_a_background_run_is_declared(
    pi_in_process: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A background process started, then stopped (``processes_update`` each time)."""
    recorded = Recorded(monkeypatch)
    command = "echo up; sleep 600"
    script = write_script(
        tmp_path / "script.json",
        [tool_reply("bash", {"command": command, "background": True}), text_reply("Started.")],
    )
    h = await pi_in_process(
        pi={"provider": "faux", "fauxScript": str(script), "permissions": {"bash": "allow"}}
    )
    sid = await h.run("start it")
    await h.wait_event(sid, "processes_update")
    await h.call("pi/processes", {"sessionId": sid, "op": "kill", "id": "bg1"})
    ended = await h.wait_event(sid, "processes_update", 2)
    assert [(p["id"], p["running"]) for p in ended["processes"]] == [("bg1", False)]
    seen = validated(h, recorded)
    assert {m.__name__ for m in seen} >= BACKGROUND_RUN


def test_the_runs_cover_every_declared_event() -> None:
    runs = FAUX_RUN | HTTP_RUN | CONTEXT_RUN | SUBAGENT_RUN | BACKGROUND_RUN
    assert {m.__name__ for m in EVENT_MODELS} == runs


async def test_an_added_or_dropped_field_fails_the_declaration(
    pi_in_process: Start, tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Guard the guard: for each kind of event a real run sent, the same event with a field
    more, or without one of its required fields, validates against no declaration."""
    seen = await faux_run(pi_in_process, tmp_path, workspace, monkeypatch)
    for model, event in seen.items():
        with pytest.raises(ValidationError):
            PiEvent.model_validate({**event, "addedField": 1})
        for field in model.model_fields.values():
            if field.is_required() and field.alias != "type":
                dropped = {k: v for k, v in event.items() if k != field.alias}
                with pytest.raises(ValidationError):
                    PiEvent.model_validate(dropped)
