"""Code actions that start a prompt: "Ask pi to fix this" and "Explain this".

Offered on a non-empty selection or where diagnostics are; each runs the ``pi.prompt``
command with attachments — the selection, and the diagnostics (which the server sends with
the code around them: the whole file when it is short, else the lines around) — so any
client with code actions gets the agent with no plugin. Pure: lsprotocol types in, out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from ..protocol.models import CMD_PROMPT

FIX_TITLE = "Ask pi to fix this"
EXPLAIN_TITLE = "Explain this"


def _is_empty(rng: types.Range) -> bool:
    return rng.start == rng.end


def _range_wire(rng: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def _describe(diagnostics: list[types.Diagnostic]) -> str:
    lines = []
    for d in diagnostics[:10]:
        source = f"{d.source}: " if d.source else ""
        lines.append(f"- line {d.range.start.line + 1}: {source}{d.message}")
    return "\n".join(lines)


def _diagnostic_wire(d: types.Diagnostic) -> dict[str, Any]:
    out: dict[str, Any] = {"range": _range_wire(d.range), "message": d.message}
    if d.severity is not None:
        out["severity"] = int(d.severity)
    if d.source:
        out["source"] = d.source
    if d.code is not None:
        out["code"] = d.code
    return out


def _allowed(kind: str | None, only: Sequence[Any] | None) -> bool:
    if not only:
        return True
    if kind is None:
        return False
    wanted = [str(getattr(k, "value", k)) for k in only]
    return any(kind == w or kind.startswith(w + ".") for w in wanted)


def code_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    # a code review's findings have their own actions (finding_actions.py)
    diagnostics = [d for d in params.context.diagnostics or [] if d.source != "pi review"]
    rng = params.range
    if _is_empty(rng) and not diagnostics:
        return []
    uri = params.text_document.uri
    attachments: list[dict[str, Any]] = []
    if not _is_empty(rng):
        attachments.append({"uri": uri, "range": _range_wire(rng)})
    if diagnostics:
        items = [_diagnostic_wire(d) for d in diagnostics]
        attachments.append({"diagnostics": {"uri": uri, "items": items}})
        fix_text = "Fix these problems:\n" + _describe(diagnostics)
        explain_text = "Explain these problems:\n" + _describe(diagnostics)
    else:
        fix_text = "Fix the problems in the selected code."
        explain_text = "Explain the selected code."
    only = params.context.only
    actions: list[types.CodeAction] = []
    fix_kind = types.CodeActionKind.QuickFix.value
    if _allowed(fix_kind, only):
        actions.append(
            types.CodeAction(
                title=FIX_TITLE,
                kind=fix_kind,
                diagnostics=diagnostics or None,
                command=types.Command(
                    title=FIX_TITLE,
                    command=CMD_PROMPT,
                    arguments=[{"text": fix_text, "attachments": attachments}],
                ),
            )
        )
    if _allowed(None, only):
        actions.append(
            types.CodeAction(
                title=EXPLAIN_TITLE,
                command=types.Command(
                    title=EXPLAIN_TITLE,
                    command=CMD_PROMPT,
                    arguments=[{"text": explain_text, "attachments": attachments}],
                ),
            )
        )
    return actions
