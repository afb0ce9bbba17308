"""The code actions on a review finding's diagnostic (``source: "pi review"``):
**Fix with pi** (a normal run with the finding and its lines as the prompt: its edit lands
in review like any edit), **Explain** (a question about it) and **Dismiss** (clears it for
this version of the file). Pure: lsprotocol types in, out."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from ..protocol.methods import CMD_DISMISS_FINDING, CMD_PROMPT
from .findings_book import SOURCE


def is_finding(d: types.Diagnostic) -> bool:
    return d.source == SOURCE and isinstance(d.data, dict) and "findingId" in d.data


def _range_wire(rng: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def _where(d: types.Diagnostic) -> str:
    first, last = d.range.start.line + 1, d.range.end.line + 1
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _describe(d: types.Diagnostic) -> str:
    data: dict[str, Any] = d.data if isinstance(d.data, dict) else {}
    text = f"{data.get('title') or d.message}"
    if data.get("body"):
        text += f"\n\n{data['body']}"
    if data.get("suggestion"):
        text += f"\n\nSuggested fix: {data['suggestion']}"
    return text


def finding_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    actions: list[types.CodeAction] = []
    for d in params.context.diagnostics or ():
        if not is_finding(d):
            continue
        finding_id = d.data["findingId"] if isinstance(d.data, dict) else ""
        attachment: dict[str, Any] = {"uri": uri, "range": _range_wire(d.range)}
        where = _where(d)
        fix = (
            f"Fix this code review finding ({where} of the attached file):\n\n{_describe(d)}\n\n"
            "Change only what the finding needs."
        )
        explain = (
            f"Explain this code review finding ({where} of the attached file): why is it a "
            f"problem, and what would fixing it involve? Do not change anything.\n\n{_describe(d)}"
        )
        actions.append(
            types.CodeAction(
                title=f"Fix with pi: {d.message}",
                kind=types.CodeActionKind.QuickFix.value,
                diagnostics=[d],
                is_preferred=True,
                command=types.Command(
                    title="Fix with pi",
                    command=CMD_PROMPT,
                    arguments=[{"text": fix, "attachments": [attachment]}],
                ),
            )
        )
        actions.append(
            types.CodeAction(
                title=f"Explain: {d.message}",
                kind=types.CodeActionKind.QuickFix.value,
                diagnostics=[d],
                command=types.Command(
                    title="Explain",
                    command=CMD_PROMPT,
                    arguments=[{"text": explain, "attachments": [attachment]}],
                ),
            )
        )
        actions.append(
            types.CodeAction(
                title=f"Dismiss: {d.message}",
                kind=types.CodeActionKind.QuickFix.value,
                diagnostics=[d],
                command=types.Command(
                    title="Dismiss",
                    command=CMD_DISMISS_FINDING,
                    arguments=[{"uri": uri, "findingId": finding_id}],
                ),
            )
        )
    return actions
