"""The ``edit`` tool (docs/reference/pi.md#tool-edit): exact (then fuzzy) text replacement in one
file.

Reads the document (buffer first), plans the change with ``edit_apply`` and hands the
resulting minimal ``TextEdit``s to ``workspace.apply_edits`` inside the file's mutation lock;
it never rewrites the file itself. Result details: ``diff``, ``patch``, ``firstChangedLine``.
Must not import anything above tools/.
"""

from __future__ import annotations

import errno
import json
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ..agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from ..ai import AbortSignal
from ..ai.surrogates import show_undecodable
from .common import ToolError, ToolParams, text_result, throw_if_aborted
from .edit_apply import EditError, EditPlan, Replacement, plan_edits
from .edit_diff import display_diff, unified_patch
from .workspace import CURRENT_TOOL_CALL, Document, Workspace


class EditItem(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    old_text: str = Field(
        alias="oldText",
        description=(
            "Exact text for one targeted replacement. It must be unique in the original file "
            "and must not overlap with any other edits[].oldText in the same call."
        ),
    )
    new_text: str = Field(alias="newText", description="Replacement text for this targeted edit.")


class EditParams(ToolParams):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="Path to the file to edit (relative or absolute)")
    edits: list[EditItem] = Field(
        description=(
            "One or more targeted replacements. Each edit is matched against the original "
            "file, not incrementally. Do not include overlapping or nested edits. If two "
            "changes touch the same block or nearby lines, merge them into one edit instead."
        )
    )


class EditTool(AgentTool[EditParams]):
    name: ClassVar[str] = "edit"
    label: ClassVar[str] = "edit"
    description: ClassVar[str] = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a "
        "unique, non-overlapping region of the original file. If two changes affect the same "
        "block or nearby lines, merge them into one edit instead of emitting overlapping "
        "edits. Do not include large unchanged regions just to connect distant changes."
    )
    parameters: ClassVar[type[EditParams]] = EditParams
    prompt_snippet: ClassVar[str] = (
        "Make precise file edits with exact text replacement, including multiple disjoint "
        "edits in one call"
    )
    prompt_guidelines: ClassVar[tuple[str, ...]] = (
        "Use read before edit: edits[].oldText must match the file's current text exactly",
        "Use edit for precise changes (edits[].oldText must match exactly)",
        "When changing multiple separate locations in one file, use one edit call with "
        "multiple entries in edits[] instead of multiple edit calls",
        "Each edits[].oldText is matched against the original file, not after earlier edits "
        "are applied. Do not emit overlapping or nested edits. Merge nearby changes into one "
        "edit.",
        "Keep edits[].oldText as small as possible while still being unique in the file. Do "
        "not pad with large unchanged regions.",
    )

    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def prepare_arguments(self, args: Any) -> Any:
        """Accept ``edits`` sent as a JSON string and the legacy top-level oldText/newText."""
        if not isinstance(args, dict):
            return args
        out = dict(args)
        if isinstance(out.get("edits"), str):
            try:
                parsed = json.loads(out["edits"])
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                out["edits"] = parsed
        old, new = out.get("oldText"), out.get("newText")
        if isinstance(old, str) and isinstance(new, str):
            edits = list(out["edits"]) if isinstance(out.get("edits"), list) else []
            edits.append({"oldText": old, "newText": new})
            del out["oldText"], out["newText"]
            out["edits"] = edits
        return out

    async def execute(
        self,
        tool_call_id: str,
        params: EditParams,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        if not params.edits:
            raise ToolError(
                "Edit tool input is invalid. edits must contain at least one replacement."
            )
        CURRENT_TOOL_CALL.set(tool_call_id)
        ws = self.workspace
        shown = params.path
        path = ws.resolve(params.path)
        async with ws.mutation_lock(path):
            throw_if_aborted(signal)
            seen = ws.seen_text(path)
            try:
                document = await ws.read_document(path)
            except OSError as exc:
                code = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
                raise ToolError(f"Could not edit file: {shown}. Error code: {code}.") from exc
            throw_if_aborted(signal)
            if "\x00" in document.text:
                raise ToolError(f"Cannot edit {shown}: it is a binary file.")
            replacements = [Replacement(e.old_text, e.new_text) for e in params.edits]
            try:
                plan = plan_edits(document.text, replacements, shown)
            except EditError as exc:
                older = _from_older_read(seen, document, replacements, shown)
                if older is None:
                    raise ToolError(str(exc)) from exc
                # computed from the text the agent read, which the user changed since: the
                # workspace rebases it onto theirs, or refuses an overlap showing their text
                document, plan = older
            throw_if_aborted(signal)
            try:
                await ws.apply_edits(
                    document, plan.text_edits, label=f"pi: edit {ws.display_path(path)}"
                )
            except PermissionError as exc:
                raise ToolError(f"Could not edit file: {shown}. Error code: EACCES.") from exc
        diff, first_changed = display_diff(
            plan.base, plan.new, plan.base_lines, plan.new_lines, plan.changes
        )
        patch = unified_patch(shown, plan.base_lines, plan.new_lines, plan.changes)
        # bytes that are not UTF-8 show as \xNN (they are kept as lone surrogates in memory,
        # which no JSON reader accepts)
        note = await ws.disk_note([path])
        return text_result(
            f"Successfully replaced {len(params.edits)} block(s) in {shown}."
            + (f" {note}" if note else ""),
            {
                "diff": show_undecodable(diff),
                "patch": show_undecodable(patch),
                "firstChangedLine": first_changed,
            },
        )


def _from_older_read(
    seen: str | None, document: Document, replacements: list[Replacement], shown: str
) -> tuple[Document, EditPlan] | None:
    """The edit planned on the text the agent last saw, when it fits that text (and not the
    current one): docs/protocol.md#edits-rebase-onto-newer-user-text-92."""
    if seen is None or seen == document.text:
        return None
    try:
        plan = plan_edits(seen, replacements, shown)
    except EditError:
        return None
    return Document(document.path, seen, None, document.from_buffer), plan
