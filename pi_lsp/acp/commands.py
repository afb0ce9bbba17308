"""The slash commands an ACP client offers, and what ``/context`` answers.

- ``BUILTINS``: the commands this front end handles itself (``/compact``, ``/context``,
  ``/export``, ``/reload``, ``/review``) — never expanded as templates, never reported unknown;
- ``available_commands(project)``: the builtins, the project's prompt templates and its
  skills as ``skill:name`` (``resources.list_commands``, the list ``pi/commands`` gives the
  language server's clients) as the SDK's ``AvailableCommand`` models;
- ``context_text(payload)``: what was loaded, as the markdown ``/context`` answers with (no
  model call).
Imports the SDK's schema and ``resources`` only.
"""

from __future__ import annotations

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    UnstructuredCommandInput,
)

from ..resources import Command, ProjectResources, ResourcesPayload, list_commands

BUILTINS: dict[str, str] = {
    "compact": "Summarise the conversation so far to free context",
    "context": "Show the context files, skills and prompt templates loaded for this session",
    "export": "Write this session as a self-contained HTML page",
    "reload": "Load the context files, skills and prompt templates again",
    "review": "Code review of the changes: findings with locations",
}
BUILTIN_HINTS: dict[str, str] = {
    "compact": "what to keep (optional)",
    "export": "output path (optional)",
    "review": "--base REF | --commit SHA (optional)",
}


def to_acp(command: Command) -> AvailableCommand:
    hint = BUILTIN_HINTS.get(command.name) if command.source == "builtin" else None
    hint = hint or command.argument_hint
    return AvailableCommand(
        name=command.name,
        description=command.description or command.name,
        input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None,
    )


def available_commands(project: ProjectResources | None) -> list[AvailableCommand]:
    commands = project.commands(BUILTINS) if project is not None else list_commands(None, BUILTINS)
    return [to_acp(c) for c in commands]


def commands_update(project: ProjectResources | None) -> AvailableCommandsUpdate:
    return AvailableCommandsUpdate(
        session_update="available_commands_update",
        available_commands=available_commands(project),
    )


def context_text(payload: ResourcesPayload | None) -> str:
    """``/context``'s answer: the files, skills and templates loaded, trust, diagnostics."""
    if payload is None:
        return "No project context is loaded for this session."
    lines: list[str] = [f"**Context for** `{payload.cwd}`", ""]
    lines.append("Context files:" if payload.context_files else "Context files: none")
    for f in payload.context_files:
        cut = " (truncated)" if f.truncated else ""
        lines.append(f"- `{f.path}` ({f.scope}, {f.bytes} bytes{cut})")
    if payload.system_prompt is not None:
        lines.append(f"System prompt: `{payload.system_prompt.path or 'given text'}`")
    for extra in payload.append_system_prompt:
        lines.append(f"Appended to the system prompt: `{extra.path or 'given text'}`")
    lines.append("Skills:" if payload.skills else "Skills: none")
    for s in payload.skills:
        hidden = "" if s.model_invocable else " (only as /skill:)"
        lines.append(f"- `{s.name}`{hidden}: {s.description} — `{s.path}`")
    lines.append("Prompt templates:" if payload.templates else "Prompt templates: none")
    for t in payload.templates:
        lines.append(f"- `/{t.name}`: {t.description} — `{t.path}`")
    trust = payload.trust
    lines.append(f"Project trust: {trust.status}")
    for path in trust.ignored_paths:
        lines.append(f"- not loaded (project not trusted): `{path}`")
    if payload.diagnostics:
        lines.append("Diagnostics:")
        for d in payload.diagnostics:
            where = f" (`{d.path}`)" if d.path else ""
            lines.append(f"- {d.type}: {d.message}{where}")
    return "\n".join(lines) + "\n"
