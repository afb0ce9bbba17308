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
        attached = [attachment]
        actions.append(
            _action("Fix with pi", d, CMD_PROMPT, {"text": fix, "attachments": attached}, True)
        )
        actions.append(
            _action("Explain", d, CMD_PROMPT, {"text": explain, "attachments": attached})
        )
        dismiss = {"uri": uri, "findingId": finding_id}
        actions.append(_action("Dismiss", d, CMD_DISMISS_FINDING, dismiss))
    return actions


def _action(
    label: str,
    d: types.Diagnostic,
    command: str,
    argument: dict[str, Any],
    preferred: bool | None = None,
) -> types.CodeAction:
    """The quick fix ``label: <finding>`` that runs ``command`` with ``argument``."""
    return types.CodeAction(
        title=f"{label}: {d.message}",
        kind=types.CodeActionKind.QuickFix.value,
        diagnostics=[d],
        is_preferred=preferred,
        command=types.Command(title=label, command=command, arguments=[argument]),
    )
