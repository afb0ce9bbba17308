"""The system prompt's resource blocks in Pi's text (``buildSystemPrompt`` of v0.80.2, the
version pi-lsp ports): after the base prompt and the appended text come the context files,
then the skills (only when the agent has the ``read`` tool), then the date and cwd.
"""

from __future__ import annotations

from collections.abc import Sequence

from .models import ContextFile, Resources
from .skills import format_skills_for_prompt


def format_context_files(files: Sequence[ContextFile]) -> str:
    """``""`` when there are none."""
    if not files:
        return ""
    out = "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n"
    for f in files:
        out += f'<project_instructions path="{f.path}">\n{f.content}\n</project_instructions>\n\n'
    return out + "</project_context>\n"


def prompt_base(default: str, resources: Resources, extra: str | None = None) -> str:
    """The base prompt (``SYSTEM.md`` replaces ``default``) and the appended texts
    (``APPEND_SYSTEM.md``, then ``extra``: a front end's own setting)."""
    base = resources.system_prompt.content if resources.system_prompt else default
    appended = [p.content for p in resources.append_prompts]
    if extra and extra.strip():
        appended.append(extra.strip())
    for text in appended:
        base += f"\n\n{text}"
    return base


def prompt_tail(resources: Resources, *, has_read: bool, date: str, cwd: str) -> str:
    """Everything after the base prompt and appended text, byte for byte Pi's."""
    tail = format_context_files(resources.context_files)
    if has_read:
        tail += format_skills_for_prompt(resources.skills)
    return tail + f"\nCurrent date: {date}\nCurrent working directory: {cwd}"
