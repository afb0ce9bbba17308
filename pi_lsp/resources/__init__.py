"""Project context, skills and prompt templates (docs/context.md): what a session's cwd and
the user's agent dir (``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``) give its agent, loaded as
Pi loads them.

- ``load_resources(cwd, options, trusted=…)`` → ``Resources`` (context files, ``SYSTEM.md`` /
  ``APPEND_SYSTEM.md``, skills, templates, diagnostics, what was ignored for want of trust);
- ``ProjectResources``: one session's current resources, reloaded when their files change;
- ``expand_input`` (``/skill:name``, ``/template``), ``list_commands``, ``describe``
  (``ResourcesPayload``), ``format_context_files`` / ``format_skills_for_prompt`` (the system
  prompt's blocks, Pi's text);
- ``ProjectTrustStore`` / ``protected_paths``: project trust (asking is ``runtime``'s).

The bottom of the layers beside ``security/``: imports nothing of pi-lsp.
"""

from __future__ import annotations

from .expand import Expansion, expand_input, skill_block
from .loader import ProjectResources, agent_dir, describe, list_commands, load_resources
from .models import (
    Command,
    ContextFile,
    Diagnostic,
    PromptFile,
    PromptTemplate,
    ResourceOptions,
    Resources,
    ResourcesPayload,
    Skill,
    TrustInfo,
)
from .prompt import format_context_files, prompt_tail
from .skills import format_skills_for_prompt
from .templates import parse_command_args, substitute_args
from .trust import ProjectTrustStore, protected_paths

__all__ = [
    "Command",
    "ContextFile",
    "Diagnostic",
    "Expansion",
    "ProjectResources",
    "ProjectTrustStore",
    "PromptFile",
    "PromptTemplate",
    "ResourceOptions",
    "Resources",
    "ResourcesPayload",
    "Skill",
    "TrustInfo",
    "agent_dir",
    "describe",
    "expand_input",
    "format_context_files",
    "format_skills_for_prompt",
    "list_commands",
    "load_resources",
    "parse_command_args",
    "prompt_tail",
    "protected_paths",
    "skill_block",
    "substitute_args",
]
