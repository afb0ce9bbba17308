"""The protocol-test harness: a pytest-lsp client driving the server, either started as
``python -m pi_lsp`` over stdio (``start``, the ``e2e`` tier) or served in the test's own
process over a pipe pair (``start_in_process``, see ``tests/support/inprocess.py``).

The client behaves like an editor: it keeps copies of the documents it opened, applies
``workspace/applyEdit`` to them and sends ``didChange`` (or rejects, when told to), answers
``window/showMessageRequest`` from a queue, and collects every ``pi/event``. Tests wait on
those notifications (``wait_for``), never on sleeps.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from pi_lsp.lsp.connection.converter import dict_converter
from tests.support.inprocess import InProcessServer, serve_in_process

VSCODE = "visual-studio-code@v1.65.2"
NVIM_07 = "neovim@v0.7.0"
NVIM_011 = "neovim@v0.11.0"
TIMEOUT = 30.0


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()


def write_script(path: Path, responses: list[dict[str, Any]], **options: Any) -> Path:
    path.write_text(json.dumps({"responses": responses, **options}), encoding="utf-8")
    return path


def text_reply(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def tool_reply(name: str, arguments: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "toolCall", "name": name, "arguments": arguments})
    return {"content": blocks}


class Harness:
    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.local: InProcessServer | None = None
        """Set when the server runs in the test's process (``start_in_process``)."""
        self.initialize_result: types.InitializeResult | None = None
        """The server's answer to ``initialize``."""
        self.events: list[dict[str, Any]] = []
        self.docs: dict[str, tuple[int, str]] = {}
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.edit_answer: (
            Callable[[types.ApplyWorkspaceEditParams], types.ApplyWorkspaceEditResult] | None
        ) = None
        self.prompts: list[types.ShowMessageRequestParams] = []
        self.prompt_answers: asyncio.Queue[str | Exception | None] = asyncio.Queue()
        self.save_requests: list[dict[str, Any]] = []
        self.registrations: list[types.RegistrationParams] = []
        self._changed = asyncio.Event()
        self._register()

    # ------------------------------------------------------------------ client side

    def _bump(self) -> None:
        old, self._changed = self._changed, asyncio.Event()
        old.set()

    def _register(self) -> None:
        client = self.client

        @client.feature("pi/event")
        def on_event(params: dict[str, Any]) -> None:
            self.events.append(params)
            self._bump()

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            self.edits.append(params)
            self._bump()
            if self.edit_answer is not None:
                result = self.edit_answer(params)
                if not result.applied:
                    return result
            self.apply(params.edit)
            return types.ApplyWorkspaceEditResult(applied=True)

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        async def on_prompt(params: types.ShowMessageRequestParams) -> Any:
            self.prompts.append(params)
            self._bump()
            answer = await self.prompt_answers.get()
            if isinstance(answer, Exception):
                raise answer
            return None if answer is None else types.MessageActionItem(title=answer)

        # pytest-lsp's recorders, plus a wake-up for tests waiting on what they record
        for method in RECORDED:
            client.feature(method)(self._recorder(DEFAULT_CLIENT_FEATURES[method]))

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: types.RegistrationParams) -> None:
            self.registrations.append(params)

        @client.feature("pi/saveDocuments")
        def on_save(params: dict[str, Any]) -> dict[str, Any]:
            self.save_requests.append(params)
            saved = []
            for uri in params["uris"]:
                if uri in self.docs:
                    Path(to_fs_path(uri) or "").write_text(self.docs[uri][1], encoding="utf-8")
                    saved.append(uri)
            self._bump()
            return {"saved": saved}

    def _recorder(self, default: Callable[..., Any]) -> Callable[..., Any]:
        def record(ls: LanguageClient, params: Any) -> Any:
            result = default(ls, params)
            self._bump()
            return result

        return record

    def apply(self, edit: types.WorkspaceEdit) -> None:
        """Apply an edit like an editor: open the target if needed, change, send didChange."""
        changes: list[tuple[str, list[Any]]] = []
        for change in edit.document_changes or ():
            if isinstance(change, types.CreateFile):
                path = Path(to_fs_path(change.uri) or "")
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():
                    path.write_text("", encoding="utf-8")
            elif isinstance(change, types.TextDocumentEdit):
                changes.append((change.text_document.uri, list(change.edits)))
        for uri, edits in (edit.changes or {}).items():
            changes.append((uri, list(edits)))
        for uri, edits in changes:
            if uri not in self.docs:
                path = Path(to_fs_path(uri) or "")
                self.open(path, path.read_text(encoding="utf-8") if path.exists() else "")
            _version, text = self.docs[uri]
            new_text = apply_lsp_edits(text, edits)
            self.set_text(uri, new_text)

    def open(self, path: Path, text: str | None = None) -> str:
        uri = uri_of(path)
        if text is None:
            text = path.read_text(encoding="utf-8")
        self.docs[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        return uri

    def set_text(self, uri: str, text: str) -> None:
        version = self.docs[uri][0] + 1
        self.docs[uri] = (version, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    # ----------------------------------------------------------------- test helpers

    async def raw_call(self, method: str, params: Any = None) -> Any:
        """A request whose result is left as plain JSON (no lsprotocol structuring)."""
        protocol = self.client.protocol
        typed, result_typed = protocol.get_message_type, protocol.get_result_type
        protocol.get_message_type = lambda m: None  # type: ignore[method-assign]
        protocol.get_result_type = lambda m: None  # type: ignore[method-assign]
        try:
            return await asyncio.wait_for(protocol.send_request_async(method, params), TIMEOUT)
        finally:
            protocol.get_message_type = typed  # type: ignore[method-assign]
            protocol.get_result_type = result_typed  # type: ignore[method-assign]

    async def call(self, method: str, params: Any = None) -> Any:
        return await asyncio.wait_for(
            self.client.protocol.send_request_async(method, params or {}), TIMEOUT
        )

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
        async def loop() -> Any:
            while not (value := predicate()):
                await self._changed.wait()
            return value

        return await asyncio.wait_for(loop(), timeout)

    def session_events(self, session_id: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["sessionId"] == session_id]

    def types_of(self, session_id: str) -> list[str]:
        return [e["event"]["type"] for e in self.session_events(session_id)]

    async def wait_event(self, session_id: str, kind: str, count: int = 1) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            hits = [
                e["event"] for e in self.session_events(session_id) if e["event"]["type"] == kind
            ]
            return hits[count - 1] if len(hits) >= count else None

        result: dict[str, Any] = await self.wait_for(found)
        return result

    def tool_ends(self, session_id: str) -> list[dict[str, Any]]:
        return [
            e["event"]
            for e in self.session_events(session_id)
            if e["event"]["type"] == "tool_execution_end"
        ]

    async def run(self, text: str, **params: Any) -> str:
        """``pi/prompt`` and wait for that run's ``agent_end``; returns the session id."""
        before = sum(1 for e in self.events if e["event"]["type"] == "agent_end")
        result = await self.call("pi/prompt", {"text": text, **params})
        sid = result["sessionId"]
        ends = before + 1
        await self.wait_for(
            lambda: sum(1 for e in self.events if e["event"]["type"] == "agent_end") >= ends
        )
        return str(sid)


def apply_lsp_edits(text: str, edits: list[Any]) -> str:
    """Apply LSP TextEdits (UTF-16 positions) to ``text``."""
    from pi_lsp.lsp.protocol.positions import TextIndex

    index = TextIndex(text, "utf-16")
    spans = []
    for e in edits:
        start = index.offset(e.range.start.line, e.range.start.character)
        end = index.offset(e.range.end.line, e.range.end.character)
        spans.append((start, end, e.new_text))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


RECORDED = (
    types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,  # client.diagnostics (a code review's findings)
    types.WINDOW_SHOW_MESSAGE,
    types.WINDOW_LOG_MESSAGE,
    types.PROGRESS,
    types.WINDOW_SHOW_DOCUMENT,
)


@functools.cache
def _capabilities(name: str) -> types.ClientCapabilities:
    """pytest-lsp's capabilities of a named client, structured once per test run (each call
    of ``client_capabilities`` builds a fresh lsprotocol converter: ~0.1 s of CPU)."""
    return client_capabilities(name)


def make_client(*, recorders: bool = True) -> LanguageClient:
    """A test client with pytest-lsp's default handlers (``recorders=False`` leaves out the
    ones ``Harness`` wraps)."""
    client = LanguageClient(converter_factory=dict_converter)
    features = {m: f for m, f in DEFAULT_CLIENT_FEATURES.items() if recorders or m not in RECORDED}
    register_lsp_features(client, features)
    return client


async def start(
    root: Path,
    data_dir: Path,
    *,
    capabilities: str | types.ClientCapabilities = VSCODE,
    pi: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Harness:
    client = make_client(recorders=False)
    if configuration is not None:
        client.set_configuration(configuration)
    harness = Harness(client, root)
    full_env = {
        **os.environ,
        "PI_LSP_DATA_DIR": str(data_dir),
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    await client.start_io(sys.executable, "-m", "pi_lsp", env=full_env)
    harness.initialize_result = await _initialize(client, root, capabilities, pi)
    return harness


async def start_in_process(
    root: Path,
    *,
    capabilities: str | types.ClientCapabilities = VSCODE,
    pi: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
) -> Harness:
    """Like ``start``, with the server in this process (the caller sets the environment,
    e.g. ``PI_LSP_DATA_DIR``, with ``monkeypatch``)."""
    client = make_client(recorders=False)
    if configuration is not None:
        client.set_configuration(configuration)
    harness = Harness(client, root)
    harness.local = await serve_in_process(client)
    harness.initialize_result = await _initialize(client, root, capabilities, pi)
    return harness


async def _initialize(
    client: LanguageClient,
    root: Path,
    capabilities: str | types.ClientCapabilities,
    pi: dict[str, Any] | None,
) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=(
                _capabilities(capabilities) if isinstance(capabilities, str) else capabilities
            ),
            root_uri=uri_of(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri_of(root), name=root.name)],
            initialization_options={"pi": rich_client(pi or {})},
        )
    )


def rich_client(pi: dict[str, Any]) -> dict[str, Any]:
    """Settings of a client that renders ``pi/event`` (as the editor plugins do), unless the
    test says ``clientCapabilities.events: false`` (a plain LSP client)."""
    caps = {"events": True, **pi.get("clientCapabilities", {})}
    return {**pi, "clientCapabilities": caps}


async def stop(harness: Harness) -> None:
    client = harness.client
    if client.stopped:  # a test already stopped it (e.g. to restart the server)
        return
    try:
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        if harness.local is not None:
            await harness.local.close()
        await client.stop()
