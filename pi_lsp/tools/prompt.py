"""The coding-agent system prompt (``build_system_prompt``), in Pi's coding-agent style.

Owns the prompt text: who the agent is, the tools it has (one line each, from each tool's
``prompt_snippet``), guidelines (Pi's, plus each tool's ``prompt_guidelines``, deduplicated),
optional extra text, then the date and working directory. With the session's ``Resources``
(docs/context.md) the prompt follows Pi's layout: ``SYSTEM.md`` replaces the default text,
``APPEND_SYSTEM.md`` and the extra text follow it, then the project's context files, the
skills (when there is a ``read`` tool) and the date and cwd, in Pi's words. Must not import
above tools/.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..agent.types import AgentTool
from ..resources import Resources
from ..resources.prompt import prompt_base, prompt_tail
from .workspace import Workspace

PREAMBLE = (
    "You are an expert coding assistant operating inside pi-lsp, a coding agent that lives in "
    "the user's editor. You help users by reading files, executing commands, editing code, "
    "and writing new files. Your edits land in the editor's buffers, where the user sees them "
    "and can undo them."
)


def _snippet(tool: AgentTool[Any]) -> str:
    snippet = getattr(tool, "prompt_snippet", None)
    if isinstance(snippet, str) and snippet:
        return snippet
    first = tool.description.split(". ")[0].strip()
    return first.rstrip(".")


def _guidelines(
    tools: Sequence[AgentTool[Any]], workspace: Workspace, *, skills: bool = False
) -> list[str]:
    names = {t.name for t in tools}
    rules: list[str] = []

    def add(rule: str) -> None:
        rule = rule.strip()
        if rule and rule not in rules:
            rules.append(rule)

    if "bash" in names and not names & {"grep", "find", "ls"}:
        add("Use bash for file operations like ls, rg, find")
    elif "bash" in names:
        add(
            "Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)"
        )
    if "edit" in names and "write" in names:
        add("Prefer edit over write for changes to existing files")
    for tool in tools:
        for rule in getattr(tool, "prompt_guidelines", ()) or ():
            if isinstance(rule, str):
                add(rule)
    roots = ", ".join(str(r) for r in workspace.roots)
    add(f"Only files inside the workspace can be read or changed (roots: {roots})")
    if skills:
        add("The skills' directories listed below can also be read (read, ls, find, grep)")
    add("Be concise in your responses")
    add("Show file paths clearly when working with files")
    return rules


def build_system_prompt(
    workspace: Workspace,
    tools: Sequence[AgentTool[Any]],
    *,
    extra: str | None = None,
    now: datetime | None = None,
    resources: Resources | None = None,
) -> str:
    today = (now or datetime.now()).strftime("%Y-%m-%d")
    if resources is not None:
        has_read = any(t.name == "read" for t in tools)
        skills = has_read and any(s.model_invocable for s in resources.skills)
        default = "\n\n".join(_default_parts(workspace, tools, skills=skills))
        return prompt_base(default, resources, extra) + prompt_tail(
            resources, has_read=has_read, date=today, cwd=workspace.cwd.as_posix()
        )
    parts = _default_parts(workspace, tools)
    if extra and extra.strip():
        parts.append(extra.strip())
    parts.append(f"Current date: {today}\nCurrent working directory: {workspace.cwd.as_posix()}")
    return "\n\n".join(parts)


def _default_parts(
    workspace: Workspace, tools: Sequence[AgentTool[Any]], *, skills: bool = False
) -> list[str]:
    tool_lines = "\n".join(f"- {t.name}: {_snippet(t)}" for t in tools) or "(none)"
    guidelines = "\n".join(f"- {rule}" for rule in _guidelines(tools, workspace, skills=skills))
    return [
        PREAMBLE,
        f"Available tools:\n{tool_lines}",
        "In addition to the tools above, you may have access to other custom tools depending "
        "on the project.",
        f"Guidelines:\n{guidelines}",
    ]
