"""Driving ``pi-lsp acp`` with the official SDK's own client: as a process
(``spawn``: ``acp.spawn_agent_process``) or in the test's process (``in_process``: the real
agent served over two pipes by the production line transport and ``serve``, what
``pi-lsp acp`` runs after start-up — milliseconds instead of a process start, for everything
whose subject is not the process).

``Recorder`` is the client: it records every ``session/update`` (the SDK parses them into
``acp.schema`` models), answers ``session/request_permission`` with a policy the test sets,
and serves ``fs/*`` from the real disk when the test advertises those capabilities. Every
raw message the agent sends is also checked by ``Validator`` (an observer on the connection):
``jsonrpc: "2.0"``, exactly one of result/error on a response, ids echoed, and the params
or result validated against the ``acp.schema`` model of its method.

The client behaves as one of two ``Profile``s (the ``profile`` fixture of ``conftest.py``
runs a scenario under both): ``FULL``, a Zed-like client that advertises ``fs``, ``terminal``
and Zed's terminal-output extension (``_meta.terminal_output``) and shows every update; and
``CODECOMPANION``, which behaves as CodeCompanion.nvim does: it advertises only ``fs``,
renders only ``content`` blocks of tool calls, drops every ``session/update`` that arrives
while none of its ``session/prompt`` requests is outstanding (they go to ``dropped``), never
answers a permission question asked outside a prompt, and answers the others by picking the
offered option of the kind it wants.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CloseSessionResponse,
    CreateElicitationRequest,
    DeniedOutcome,
    FileSystemCapabilities,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResumeSessionResponse,
    SessionNotification,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
    WriteTextFileRequest,
    WriteTextFileResponse,
)
from pydantic import BaseModel, RootModel

from tests.cli.helpers import ROOT, clean_env


class CreateElicitationRequestModel(RootModel[CreateElicitationRequest]):
    """``elicitation/create``'s params (a union in the schema)."""


RESULTS: dict[str, type[BaseModel]] = {
    "initialize": InitializeResponse,
    "session/new": NewSessionResponse,
    "session/load": LoadSessionResponse,
    "session/resume": ResumeSessionResponse,
    "session/list": ListSessionsResponse,
    "session/close": CloseSessionResponse,
    "session/prompt": PromptResponse,
    "session/set_config_option": SetSessionConfigOptionResponse,
    "session/set_mode": SetSessionModeResponse,
}
AGENT_CALLS: dict[str, type[BaseModel]] = {
    "session/update": SessionNotification,
    "session/request_permission": RequestPermissionRequest,
    "fs/read_text_file": ReadTextFileRequest,
    "fs/write_text_file": WriteTextFileRequest,
    "elicitation/create": CreateElicitationRequestModel,
}


@dataclass
class Validator:
    """Checks each raw message from the agent against ``acp.schema``."""

    sent: dict[Any, str] = field(default_factory=dict)
    incoming: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __call__(self, event: StreamEvent) -> None:
        msg = event.message
        if event.direction == StreamDirection.OUTGOING:
            if "method" in msg and "id" in msg:
                self.sent[msg["id"]] = msg["method"]
            return
        self.incoming.append(msg)
        try:
            self._check(msg)
        except Exception as exc:
            self.problems.append(f"{exc!r} in {json.dumps(msg)[:300]}")

    def _check(self, msg: dict[str, Any]) -> None:
        assert msg.get("jsonrpc") == "2.0", "jsonrpc is not 2.0"
        method = msg.get("method")
        if method is not None:
            model = AGENT_CALLS.get(method)
            assert model is not None, f"the agent called {method}"
            model.model_validate(msg.get("params"))
            return
        assert ("result" in msg) != ("error" in msg), "exactly one of result/error"
        request = self.sent.get(msg.get("id"))
        assert request is not None, "a response to no request of ours"
        if "result" in msg and request in RESULTS and msg["result"] is not None:
            RESULTS[request].model_validate(msg["result"])

    def updates_then_response(self, request_method: str = "session/prompt") -> list[str]:
        """The kinds of the incoming messages in order (``update:<kind>`` / ``response``)."""
        out = []
        for msg in self.incoming:
            if msg.get("method") == "session/update":
                out.append("update:" + msg["params"]["update"]["sessionUpdate"])
            elif "id" in msg and self.sent.get(msg["id"]) == request_method:
                out.append("response")
        return out


Answer = Callable[[RequestPermissionRequest], Any]


@dataclass(frozen=True)
class Profile:
    """How a client behaves: what it advertises and what of the agent's output it shows."""

    name: str
    caps: ClientCapabilities
    only_during_prompts: bool = False
    """Updates arriving while no ``session/prompt`` is outstanding are dropped, permission
    questions then are never answered (CodeCompanion routes both to its active prompt)."""
    terminal_output: bool = True
    """It renders Zed's display-only terminal (``_meta.terminal_output``)."""
    answers_by_kind: bool = False
    """It answers a permission question with the offered option of the wanted kind."""

    def __str__(self) -> str:
        return self.name


FULL = Profile(
    "full",
    ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
        terminal=True,
        field_meta={"terminal_output": True},
    ),
)
CODECOMPANION = Profile(
    "codecompanion",
    ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)),
    only_during_prompts=True,
    terminal_output=False,
    answers_by_kind=True,
)
PROFILES = [FULL, CODECOMPANION]


class PromptTracker:
    """An observer that knows, for each incoming call, whether a ``session/prompt`` of ours
    was outstanding when it arrived (in arrival order: the SDK runs the handlers in that
    order, each up to its first await)."""

    def __init__(self) -> None:
        self.open_prompts = 0
        self.stamps: collections.deque[bool] = collections.deque()
        self._prompt_ids: set[Any] = set()

    def opened(self) -> None:
        self.open_prompts += 1

    def __call__(self, event: StreamEvent) -> None:
        msg = event.message
        if event.direction == StreamDirection.OUTGOING:
            if msg.get("method") == "session/prompt" and "id" in msg:
                self._prompt_ids.add(msg["id"])
            return
        if msg.get("method") in ("session/update", "session/request_permission"):
            self.stamps.append(self.open_prompts > 0)
        elif "method" not in msg and (
            (isinstance(msg.get("result"), dict) and "stopReason" in msg["result"])
            or msg.get("id") in self._prompt_ids
        ):
            self._prompt_ids.discard(msg.get("id"))
            self.open_prompts = max(0, self.open_prompts - 1)

    def in_prompt(self) -> bool:
        return self.stamps.popleft() if self.stamps else self.open_prompts > 0


class PromptingConnection:
    """The SDK's client connection, counting our outstanding prompts before each is sent."""

    def __init__(self, conn: Any, tracker: PromptTracker) -> None:
        self._conn = conn
        self._tracker = tracker

    async def prompt(self, **kwargs: Any) -> Any:
        self._tracker.opened()
        return await self._conn.prompt(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class Recorder:
    """The client side: records updates, answers permission questions, serves ``fs/*``."""

    def __init__(self, profile: Profile = FULL) -> None:
        self.profile = profile
        self.tracker = PromptTracker()
        self.dropped: list[SessionNotification] = []
        """Updates the client did not show (``only_during_prompts``: outside a prompt)."""
        self.unanswered: list[RequestPermissionRequest] = []
        self.updates: list[SessionNotification] = []
        self.permission_requests: list[RequestPermissionRequest] = []
        self.answer: Answer = lambda req: "allow_once"
        self.fs_reads: list[str] = []
        self.fs_writes: list[tuple[str, str]] = []
        self._changed = asyncio.Condition()

    # ---------------------------------------------------------------- acp.Client

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        note = SessionNotification(session_id=session_id, update=update)
        shown = self.tracker.in_prompt() or not self.profile.only_during_prompts
        (self.updates if shown else self.dropped).append(note)
        async with self._changed:
            self._changed.notify_all()

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        request = RequestPermissionRequest(
            session_id=session_id, tool_call=tool_call, options=options
        )
        if not self.tracker.in_prompt() and self.profile.only_during_prompts:
            self.unanswered.append(request)
            async with self._changed:
                self._changed.notify_all()
            await asyncio.get_running_loop().create_future()  # never answered
        self.permission_requests.append(request)
        async with self._changed:
            self._changed.notify_all()
        choice = self.answer(request)
        if asyncio.iscoroutine(choice) or isinstance(choice, asyncio.Future):
            choice = await choice
        if choice == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if self.profile.answers_by_kind:  # the option of that kind, whatever its id
            choice = next((o.option_id for o in options if o.kind == choice), choice)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=str(choice))
        )

    async def read_text_file(
        self, path: str, session_id: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.fs_reads.append(path)
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.fs_writes.append((path, content))
        Path(path).write_text(content)
        return WriteTextFileResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise acp.RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # ---------------------------------------------------------------- helpers for tests

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [
            u.update.session_update
            for u in self.updates
            if session_id is None or u.session_id == session_id
        ]

    def of(self, kind: str, session_id: str | None = None) -> list[Any]:
        return [
            u.update
            for u in self.updates
            if u.update.session_update == kind
            and (session_id is None or u.session_id == session_id)
        ]

    def text(self, session_id: str | None = None, kind: str = "agent_message_chunk") -> str:
        return "".join(getattr(u.content, "text", "") for u in self.of(kind, session_id))

    def shown_output(self, call_id: str) -> str:
        """A tool call's output as this client renders it: the text of its ``content``
        blocks (the last update's content replaces the earlier), plus, for a client that
        renders Zed's terminal extension, the terminal's data."""
        content: list[Any] = []
        terminal = ""
        for update in self.tool_updates(call_id):
            if update.content:
                content = list(update.content)
            meta = update.field_meta or {}
            if self.profile.terminal_output:
                terminal += meta.get("terminal_output", {}).get("data", "")
        text = "".join(
            getattr(c.content, "text", "") for c in content if getattr(c, "type", "") == "content"
        )
        return text + terminal

    def tool_updates(self, call_id: str) -> list[Any]:
        return [
            u.update
            for u in self.updates
            if u.update.session_update in ("tool_call", "tool_call_update")
            and u.update.tool_call_id == call_id
        ]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 30) -> None:
        async def wait() -> None:
            async with self._changed:
                await self._changed.wait_for(predicate)

        await asyncio.wait_for(wait(), timeout)


def text(prompt: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=prompt)]


def fs_caps(on: bool) -> ClientCapabilities:
    return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=on, write_text_file=on))


@dataclass
class Agent:
    conn: Any
    proc: asyncio.subprocess.Process
    client: Recorder
    validator: Validator
    cwd: Path
    env: dict[str, str]

    async def init(self, caps: ClientCapabilities | None = None, version: int = 1) -> Any:
        """``initialize`` with ``caps``, by default the client profile's."""
        caps = caps if caps is not None else self.client.profile.caps
        return await self.conn.initialize(protocol_version=version, client_capabilities=caps)

    async def new(self) -> str:
        res = await self.conn.new_session(cwd=str(self.cwd), mcp_servers=[])
        return str(res.session_id)

    async def prompt(self, session_id: str, prompt: str, **meta: Any) -> str:
        res = await self.conn.prompt(session_id=session_id, prompt=text(prompt), **meta)
        return str(res.stop_reason)

    def check(self) -> None:
        assert not self.validator.problems, "\n".join(self.validator.problems)


def model_args(url: str) -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", url + "/v1", "--model", "test-model"]


@contextlib.asynccontextmanager
async def spawn(
    tmp_path: Path,
    url: str,
    *extra: str,
    client: Recorder | None = None,
    env: dict[str, str] | None = None,
    profile: Profile = FULL,
) -> AsyncIterator[Agent]:
    """``python -m pi_lsp acp`` against the scripted server at ``url``, cwd ``tmp/work``."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = env or clean_env(tmp_path)
    client = client or Recorder(profile)
    validator = Validator()
    log = (tmp_path / "agent-stderr.log").open("ab")
    async with acp.spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "pi_lsp",
        "acp",
        *model_args(url),
        *extra,
        env=env,
        cwd=ROOT,
        observers=[validator, client.tracker],
        transport_kwargs={"stderr": log.fileno()},
    ) as (conn, proc):
        agent = Agent(PromptingConnection(conn, client.tracker), proc, client, validator, work, env)
        try:
            yield agent
        finally:
            log.close()
            agent.check()


async def _client_streams(
    read_fd: int, write_fd: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0)
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


@contextlib.asynccontextmanager
async def in_process(
    tmp_path: Path,
    url: str,
    monkeypatch: Any,
    *extra: str,
    client: Recorder | None = None,
    unstable: bool = False,
    profile: Profile = FULL,
) -> AsyncIterator[Agent]:
    """``pi-lsp acp`` (its flags ``extra``) served in this process; closing the client's
    end is the disconnect, after which every session is closed. ``unstable``: the client
    handles the SDK's unstable methods (``elicitation/create``)."""
    from pi_lsp.acp.args import build_parser
    from pi_lsp.acp.factory import provision
    from pi_lsp.acp.main import serve
    from pi_lsp.acp.server import PiAcpAgent
    from pi_lsp.acp.stdio import LineTransport

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = clean_env(tmp_path)
    for name in ("PI_LSP_DATA_DIR", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, env[name])
    prov = provision(build_parser().parse_args([*model_args(url), *extra]))
    agent = PiAcpAgent(prov)
    to_agent_r, to_agent_w = os.pipe()
    to_client_r, to_client_w = os.pipe()
    transport = LineTransport(to_agent_r, to_client_w)
    served = asyncio.ensure_future(serve(transport, agent))
    reader, writer = await _client_streams(to_client_r, to_agent_w)
    client = client or Recorder(profile)
    validator = Validator()
    conn = acp.connect_to_agent(
        client,
        writer,
        reader,
        observers=[validator, client.tracker],
        use_unstable_protocol=unstable,
    )
    prompting = PromptingConnection(conn, client.tracker)
    try:
        yield Agent(prompting, None, client, validator, work, env)  # type: ignore[arg-type]
    finally:
        await conn.close()  # EOF: the agent aborts, closes its sessions and returns
        writer.close()
        await asyncio.wait_for(served, 30)
        for fd in (to_agent_r, to_client_w):
            with contextlib.suppress(OSError):
                os.close(fd)
    Agent(prompting, None, client, validator, work, env).check()  # type: ignore[arg-type]
