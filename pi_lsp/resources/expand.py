"""What the user typed → what the model gets: ``/skill:name args`` (the skill's body in
Pi's ``<skill>`` wrapper), then ``/name args`` (a prompt template), in Pi's order; anything
else unchanged. Never recursive: an expansion is not expanded again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from .files import FrontmatterError, Watch, parse_frontmatter, read_text
from .models import Diagnostic, Resources, Skill
from .templates import expand_template, missing_arguments, parse_command_args, split_command


@dataclass(frozen=True, slots=True)
class Expansion:
    text: str
    """What goes to the model."""
    kind: Literal["skill", "template", "none"]
    name: str | None = None
    warning: str | None = None
    """For the user (not the model): an unknown ``/name``, a skill that cannot be read, a
    template given fewer arguments than it uses."""


def skill_block(skill: Skill, body: str, args: str) -> str:
    """Pi's wrapper around a skill's body (``AgentSession._expandSkillCommand``)."""
    block = (
        f'<skill name="{skill.name}" location="{skill.path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block


def _expand_skill(text: str, resources: Resources) -> Expansion | None:
    if not text.startswith("/skill:"):
        return None
    space = text.find(" ")
    name = text[7:] if space == -1 else text[7:space]
    args = "" if space == -1 else text[space + 1 :].strip()
    skill = resources.skill(name)
    if skill is None:
        return Expansion(text, "none", name, f"/skill:{name}: no such skill; sent as typed")
    diagnostics: list[Diagnostic] = []
    content = read_text(skill.path, diagnostics, Watch())
    if content is None:
        reason = diagnostics[0].message if diagnostics else "cannot read"
        return Expansion(text, "none", name, f"/skill:{name}: {reason}; sent as typed")
    try:
        _, body = parse_frontmatter(content)
    except FrontmatterError as exc:
        return Expansion(text, "none", name, f"/skill:{name}: {exc}; sent as typed")
    return Expansion(skill_block(skill, body.strip(), args), "skill", name)


def expand_input(
    text: str, resources: Resources | None, builtins: Collection[str] = ()
) -> Expansion:
    """Expand ``text`` against ``resources`` (``None``: nothing loaded, nothing expands).
    ``builtins``: command names the front end handles itself (never called unknown)."""
    if resources is None or not text.startswith("/"):
        return Expansion(text, "none")
    skill = _expand_skill(text, resources)
    if skill is not None:
        return skill
    parts = split_command(text)
    if parts is None:
        return Expansion(text, "none")
    name, arg_text = parts
    expanded = expand_template(text, resources.templates)
    if expanded is not None:
        template = resources.template(name)
        warning = None
        if template is not None:
            missing = missing_arguments(template, parse_command_args(arg_text))
            if missing:
                given = len(parse_command_args(arg_text))
                refs = ", ".join(f"${n}" for n in missing)
                warning = (
                    f"/{name} uses {refs} but was given {given} argument"
                    f"{'' if given == 1 else 's'}: left empty"
                )
        return Expansion(expanded, "template", name, warning)
    if name in builtins or "/" in name:
        return Expansion(text, "none")  # a front end's own command, or a path like /usr/bin
    return Expansion(
        text, "none", name, f"/{name}: no such prompt template or skill; sent as typed"
    )
