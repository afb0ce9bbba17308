"""The data of the resources layer: what was loaded for a session, and what front ends show.

Frozen pydantic models (wire data for every front end: ``Command`` and ``ResourcesPayload``
are what a command list and a "context" view are built from).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

Scope = Literal["global", "ancestor", "cwd", "user", "project", "path"]
DiagnosticType = Literal["warning", "error", "collision"]
TrustStatus = Literal["trusted", "untrusted", "not-needed"]


class _Frozen(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True
    )


class Diagnostic(_Frozen):
    """Something the loader skipped, cut or could not read (never fatal)."""

    type: DiagnosticType
    message: str
    path: str


class ContextFile(_Frozen):
    """One ``AGENTS.md`` / ``CLAUDE.md`` (…) as it goes into the system prompt."""

    path: str
    content: str
    scope: Literal["global", "ancestor", "cwd"]
    bytes: int
    """The file's size on disk."""
    truncated: bool = False


class PromptFile(_Frozen):
    """``SYSTEM.md`` or ``APPEND_SYSTEM.md`` (``path`` ``None``: text given inline)."""

    path: str | None
    content: str


class Skill(_Frozen):
    name: str
    description: str
    path: str
    """The skill's file (``SKILL.md``, or a ``.md`` file directly in a skills directory)."""
    base_dir: str
    scope: Literal["user", "project", "path"]
    model_invocable: bool = True
    """``False`` for ``disable-model-invocation: true``: only ``/skill:name`` runs it."""


class PromptTemplate(_Frozen):
    name: str
    description: str
    content: str
    path: str
    scope: Literal["user", "project", "path"]
    argument_hint: str | None = None


class ResourceOptions(_Frozen):
    """What a front end asks the loader for (``RunConfig.resources``)."""

    context_files: bool = True
    skills: bool = True
    prompt_templates: bool = True
    extra_skill_paths: tuple[str, ...] = ()
    """``--skill PATH`` (loaded even with ``skills`` off, as in Pi)."""
    extra_template_paths: tuple[str, ...] = ()
    """``--prompt-template PATH`` (loaded even with ``prompt_templates`` off)."""
    system_prompt: str | None = None
    """Text or a file path; wins over ``SYSTEM.md``."""
    append_system_prompt: str | None = None
    """Text or a file path; wins over ``APPEND_SYSTEM.md``."""
    claude_compat: bool = True
    """Also ``.claude/skills``, ``~/.claude/skills``, ``.claude/commands`` and
    ``~/.claude/commands`` (Claude Code's directories)."""
    trust: Literal["ask", "always", "never"] = "ask"
    """Project trust when nothing was decided for the directory (``always``: ``--approve``,
    ``never``: ``--no-approve`` — these two also win over a saved decision)."""
    agent_dir: str | None = None
    """``None``: ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``."""


class Resources(_Frozen):
    """Everything loaded for one session's cwd (frozen: a reload makes a new one)."""

    cwd: str
    agent_dir: str
    context_files: tuple[ContextFile, ...] = ()
    system_prompt: PromptFile | None = None
    append_prompts: tuple[PromptFile, ...] = ()
    skills: tuple[Skill, ...] = ()
    templates: tuple[PromptTemplate, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    trusted: bool = True
    ignored_untrusted: tuple[str, ...] = ()
    """Project paths that exist but were not loaded because the project is not trusted."""

    def skill(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    def template(self, name: str) -> PromptTemplate | None:
        return next((t for t in self.templates if t.name == name), None)


class Command(_Frozen):
    """One slash command a front end offers (``name`` without the slash)."""

    name: str
    description: str
    argument_hint: str | None = None
    source: Literal["builtin", "prompt", "skill"]
    path: str | None = None


class TrustInfo(_Frozen):
    status: TrustStatus
    ignored_paths: tuple[str, ...] = ()


class ResourcesPayload(_Frozen):
    """What was loaded, for a front end's "context" view (``model_dump(by_alias=True)``
    gives the camelCase wire shape)."""

    cwd: str
    context_files: tuple[ContextFile, ...]
    system_prompt: PromptFile | None
    append_system_prompt: tuple[PromptFile, ...]
    skills: tuple[Skill, ...]
    templates: tuple[PromptTemplate, ...]
    diagnostics: tuple[Diagnostic, ...]
    trust: TrustInfo
