"""The ``lsp`` tool (docs/tools.md#lsp): language intelligence for the model — definition,
references, hover, symbols, implementations, type definitions, call hierarchy, diagnostics,
and rename (an edit, through the ``Workspace`` like any other).

Positions the model gives are 1-based; it may name a ``symbol`` on the line instead of a
column. Questions go to a ``CodeIntel`` (``code_intel.py``); answers are rendered for a reader
(``lsp_render.py``). Every failure is a tool error the model can act on. In plan mode the
session gets ``read_only_view()``, which has no ``rename``. Must not import above tools/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from .code_intel import CodeIntel, CodeIntelError, IntelAnswer
from .common import ToolError, ToolParams, emit_update, text_result, throw_if_aborted
from .lsp_edits import normalise
from .lsp_positions import find_symbol, split_lines, to_units
from .lsp_render import (
    View,
    hover_text,
    locations,
    render_calls,
    render_diagnostics,
    render_locations,
    render_symbols,
    uri_to_path,
)
from .truncate import truncate_head
from .workspace import MultiFileEdits, ToolCallContext, Workspace, WorkspaceError

Operation = Literal[
    "definition",
    "references",
    "hover",
    "documentSymbols",
    "workspaceSymbols",
    "implementation",
    "typeDefinition",
    "incomingCalls",
    "outgoingCalls",
    "diagnostics",
    "rename",
]
POSITION_METHODS = {
    "definition": "textDocument/definition",
    "references": "textDocument/references",
    "hover": "textDocument/hover",
    "implementation": "textDocument/implementation",
    "typeDefinition": "textDocument/typeDefinition",
}
READ_ONLY_OPERATIONS = tuple(o for o in Operation.__args__ if o != "rename")  # type: ignore[attr-defined]


class LspParams(ToolParams):
    operation: Operation = Field(description="What to ask the language server")
    path: str | SkipJsonSchema[None] = Field(
        default=None,
        description="File the question is about (every operation but workspaceSymbols)",
    )
    line: int | SkipJsonSchema[None] = Field(
        default=None, description="1-based line (position operations and rename)"
    )
    character: int | SkipJsonSchema[None] = Field(
        default=None, description="1-based column on the line; or give symbol instead"
    )
    symbol: str | SkipJsonSchema[None] = Field(
        default=None,
        description="The identifier on that line (its first whole-word occurrence is used)",
    )
    query: str | SkipJsonSchema[None] = Field(
        default=None, description="workspaceSymbols: the name (or part of it) to look for"
    )
    new_name: str | SkipJsonSchema[None] = Field(
        default=None, alias="newName", description="rename: the new name"
    )


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _label(op: str) -> str:
    return {"documentSymbols": "document symbols", "workspaceSymbols": "workspace symbols"}.get(
        op, op
    )


class LspTool(AgentTool[LspParams]):
    name: ClassVar[str] = "lsp"
    label: ClassVar[str] = "lsp"
    description: ClassVar[str] = (
        "Ask the language server about code: definition, references, hover (type and docs), "
        "documentSymbols (outline of a file), workspaceSymbols (find a symbol by name: "
        "query), implementation, typeDefinition, incomingCalls / outgoingCalls (call "
        "hierarchy), diagnostics (errors of a file), rename (renames a symbol across files "
        "as one reviewable edit: newName). Position operations take path, a 1-based line and "
        "either the symbol's name on that line (preferred) or a 1-based character. Results "
        "are path:line:col with the source line."
    )
    read_only: ClassVar[bool] = False  # rename edits; plan mode uses read_only_view()
    parameters: ClassVar[type[LspParams]] = LspParams
    prompt_snippet: ClassVar[str] = (
        "Language intelligence: definition, references, hover, symbols, call hierarchy, "
        "diagnostics, rename"
    )
    prompt_guidelines: ClassVar[tuple[str, ...]] = (
        "Prefer lsp definition/references over grep for code navigation when it is available",
    )
    operations: tuple[str, ...] = Operation.__args__  # type: ignore[attr-defined]

    def __init__(self, workspace: Workspace, intel: CodeIntel) -> None:
        self.workspace = workspace
        self.intel = intel
        self.session_id: str | None = None

    def read_only_view(self) -> LspTool:
        """The same tool without ``rename`` (plan mode); ``inner`` is this tool."""
        view = ReadOnlyLspTool(self.workspace, self.intel)
        view.inner = self
        view.session_id = self.session_id
        return view

    async def execute(
        self,
        tool_call_id: str,
        params: LspParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        throw_if_aborted(signal)
        if params.operation not in self.operations:
            raise ToolError(
                f"{params.operation} is not available here (plan mode: the lsp tool does not "
                "rename; put the rename in your plan)."
            )
        try:
            return await self._run(tool_call_id, params, signal, on_update)
        except (CodeIntelError, WorkspaceError) as exc:
            raise ToolError(str(exc)) from exc

    async def _run(
        self,
        tool_call_id: str,
        params: LspParams,
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        op = params.operation
        ws = self.workspace
        pending: list[Any] = []
        texts: dict[Path, str] = {}
        """What this call read of each file: synced and rendered from it, not read again."""

        def progress(message: str) -> None:
            pending.append(emit_update(on_update, text_result(message)))

        async def ask(method: str, args: dict[str, Any], path: Path | None) -> IntelAnswer:
            try:
                return await self.intel.query(
                    method,
                    args,
                    path=path,
                    signal=signal,
                    progress=progress,
                    text=texts.get(path) if path is not None else None,
                )
            finally:
                for update in pending:
                    await update
                pending.clear()

        if op == "workspaceSymbols":
            if not params.query:
                raise ToolError("workspaceSymbols needs a query (the symbol's name or part of it)")
            answer = await ask("workspace/symbol", {"query": params.query}, None)
            return await self._render(op, answer, None, f"'{params.query}'", texts)
        if not params.path:
            raise ToolError(f"{op} needs a path")
        path = ws.resolve(params.path)
        if not self.intel.serves(path):
            served = self.intel.languages()
            suffix = f"*{path.suffix}" if path.suffix else path.name
            raise ToolError(
                f"No language server for {suffix} files (configure lspServers"
                + (f"; servers run for {served})" if served else ")")
            )
        shown = ws.display_path(path)
        try:
            document = await ws.read_document(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise ToolError(f"Not a file: {params.path}") from None
        texts[path] = document.text
        uri = path.as_uri()
        text_document = {"uri": uri}
        if op == "documentSymbols":
            answer = await ask("textDocument/documentSymbol", {"textDocument": text_document}, path)
            return await self._render(op, answer, path, shown, texts)
        if op == "diagnostics":
            answer = await ask("textDocument/diagnostic", {"textDocument": text_document}, path)
            return await self._render(op, answer, path, shown, texts)
        lines = split_lines(document.text)
        position, target = self._position(params, lines, shown)
        at = {"textDocument": text_document, "position": position}
        if op in POSITION_METHODS:
            args = dict(at)
            if op == "references":
                args["context"] = {"includeDeclaration": True}
            answer = await ask(POSITION_METHODS[op], args, path)
            return await self._render(op, answer, path, target, texts)
        if op in ("incomingCalls", "outgoingCalls"):
            prepared = await ask("textDocument/prepareCallHierarchy", at, path)
            items = prepared.result if isinstance(prepared.result, list) else []
            if not items:
                return text_result(f"No call hierarchy item at {target}.")
            method = f"callHierarchy/{op}"
            answer = await ask(method, {"item": items[0]}, path)
            return await self._render(op, answer, path, target, texts)
        return await self._rename(tool_call_id, params, at, path, target, ask)

    def _position(
        self, params: LspParams, lines: list[str], shown: str
    ) -> tuple[dict[str, int], str]:
        if params.line is None:
            raise ToolError(f"{params.operation} needs line (1-based) and symbol or character")
        if not 1 <= params.line <= len(lines):
            raise ToolError(f"Line {params.line} is past the end of {shown} ({len(lines)} lines)")
        text = lines[params.line - 1]
        if params.symbol:
            column = find_symbol(text, params.symbol)
            if column is None:
                raise ToolError(
                    f"'{params.symbol}' is not on line {params.line} of {shown}; the line is: "
                    f"{text.strip()}"
                )
            target = f"{params.symbol} ({shown}:{params.line})"
        elif params.character is not None:
            if not 1 <= params.character <= len(text) + 1:
                raise ToolError(
                    f"Character {params.character} is past the end of line {params.line} of "
                    f"{shown} ({len(text)} characters): {text.strip()}"
                )
            column = params.character - 1
            target = f"{shown}:{params.line}:{params.character}"
        else:
            raise ToolError(f"{params.operation} needs symbol (the name on the line) or character")
        return {"line": params.line - 1, "character": to_units(text, column)}, target

    async def _view(self, texts: dict[Path, str], answer: IntelAnswer, paths: list[Path]) -> View:
        ws = self.workspace

        shown: dict[Path, str | None] = {}
        for read in texts:  # confined when this call resolved it: shown without a realpath
            shown[read] = ws.display_path(read)

        def display(path: Path) -> str | None:  # confining resolves symlinks: once a path
            if path not in shown:
                try:
                    ws.confine(path)
                    shown[path] = ws.display_path(path)
                except WorkspaceError:
                    shown[path] = None
            return shown[path]

        view = View(display=display, encoding=answer.encoding)
        for path in dict.fromkeys(paths):
            if display(path) is None:
                continue
            if path in texts:
                view.lines[path] = split_lines(texts[path])
                continue
            try:
                view.lines[path] = split_lines((await ws.read_document(path)).text)
            except (OSError, WorkspaceError):
                continue
        return view

    async def _render(
        self, op: str, answer: IntelAnswer, path: Path | None, target: str, texts: dict[Path, str]
    ) -> AgentToolResult:
        result = answer.result
        lines: list[str]
        if op == "hover":
            text = hover_text(result)
            lines = [text] if text else []
        elif op in ("documentSymbols", "workspaceSymbols"):
            paths = [path] if path is not None else []
            for sym in result if isinstance(result, list) else []:
                if isinstance(sym, dict) and isinstance(sym.get("location"), dict):
                    found = uri_to_path(str(sym["location"].get("uri", "")))
                    if found is not None:
                        paths.append(found)
            lines = render_symbols(result, await self._view(texts, answer, paths), path)
        elif op == "diagnostics":
            assert path is not None
            items = result.get("items") if isinstance(result, dict) else result
            lines = render_diagnostics(items, await self._view(texts, answer, [path]), path)
            if not lines:
                return text_result(f"No diagnostics for {target}.")
        elif op in ("incomingCalls", "outgoingCalls"):
            paths = []
            for call in result if isinstance(result, list) else []:
                item = (
                    call.get("from" if op == "incomingCalls" else "to")
                    if isinstance(call, dict)
                    else None
                )
                found = uri_to_path(str((item or {}).get("uri", "")))
                if found is not None:
                    paths.append(found)
            lines = render_calls(
                result, await self._view(texts, answer, paths), incoming=op == "incomingCalls"
            )
        else:
            view = await self._view(texts, answer, [p for p, _ in locations(result)])
            lines = render_locations(result, view)
        if not lines:
            text = f"No {_label(op)} results for {target}."
        else:
            trunc = truncate_head("\n".join(lines))
            text = trunc.content
            if trunc.truncated:
                text += "\n(output cut; narrow the query)"
        if answer.note:
            text += f"\n({answer.note})"
        return text_result(text)

    async def _rename(
        self,
        tool_call_id: str,
        params: LspParams,
        at: dict[str, Any],
        path: Path,
        target: str,
        ask: Any,
    ) -> AgentToolResult:
        new_name = (params.new_name or "").strip()
        if not new_name:
            raise ToolError("rename needs newName")
        answer: IntelAnswer = await ask("textDocument/rename", {**at, "newName": new_name}, path)
        files = await normalise(answer.result, self.workspace, answer.encoding, answer.seen)
        old = params.symbol or target
        label = f"rename {old} → {new_name}"
        context = ToolCallContext(session_id=self.session_id, tool_call_id=tool_call_id)
        if isinstance(self.workspace, MultiFileEdits):  # one change: one undo step, one review
            changes = {p: (f.document, f.edits) for p, f in files.items()}
            await self.workspace.apply_workspace_edit(changes, label=label, context=context)
        else:
            for f in files.values():
                await self.workspace.apply_edits(f.document, f.edits, label=label, context=context)
        total = sum(len(f.edits) for f in files.values())
        listing = "\n".join(
            f"{self.workspace.display_path(p)}: {len(f.edits)} occurrence"
            + ("s" if len(f.edits) != 1 else "")
            for p, f in sorted(files.items())
        )
        note = await self.workspace.disk_note(list(files))
        text = (
            f"Renamed {old} to {new_name}: {_count(total, 'occurrence')} in "
            f"{_count(len(files), 'file')}.\n{listing}"
        )
        return text_result(
            text + (f"\n{note}" if note else ""), {"files": len(files), "edits": total}
        )


class ReadOnlyLspTool(LspTool):
    """``lsp`` in plan mode: every operation but ``rename``."""

    read_only: ClassVar[bool] = True
    operations: tuple[str, ...] = READ_ONLY_OPERATIONS
    inner: LspTool | None = None
    """The act-mode tool this is the view of."""

    def read_only_view(self) -> LspTool:
        return self
