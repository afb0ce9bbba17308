"""Agent definitions: what a ``task`` child is (docs/subagents.md#definitions).

Markdown files with YAML frontmatter, looked for (highest first) in the project's nearest
``.pi/agents/`` and ``.claude/agents/`` (up from the cwd to the git root; only in a trusted
project), then the user's ``<agent dir>/agents/`` (``~/.pi/agent/agents``) and
``~/.claude/agents/``. The first definition of a name wins (a later one is a ``collision``
diagnostic). A file without a ``description``, with bad YAML or with a field of the wrong
type is skipped with a diagnostic the front ends show. The built-in ``general`` agent (the
parent's tools and model, no extra prompt) always exists unless a file replaces it.

Claude Code's tool names are mapped to ours (``Read`` → ``read``, ``Glob`` → ``find`` …);
``Bash(git *)`` gives ``bash``; ``mcp__server__tool`` names are kept; an unknown name is a
diagnostic. Imports nothing above ``resources/`` and ``tools/``' names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..resources.files import FrontmatterError, Watch, list_dir, parse_frontmatter, read_text
from ..resources.models import Diagnostic
from ..resources.roots import git_root

Source = Literal["builtin", "project", "user", "inline"]

CLAUDE_TOOL_NAMES: dict[str, str] = {
    "read": "read",
    "write": "write",
    "edit": "edit",
    "multiedit": "edit",
    "bash": "bash",
    "grep": "grep",
    "glob": "find",
    "find": "find",
    "ls": "ls",
    "todowrite": "todo",
    "todo": "todo",
}
"""Claude Code's (and our own) tool names, lower-cased → ours."""
KNOWN_TOOLS = frozenset(CLAUDE_TOOL_NAMES.values())
IGNORED_CLAUDE_TOOLS = frozenset(
    {"webfetch", "websearch", "notebookedit", "notebookread", "task", "agent", "exitplanmode"}
)
"""Claude tools we do not have: dropped with a diagnostic (never an error)."""
MODEL_ALIASES = frozenset({"haiku", "sonnet", "opus"})
GENERAL = "general"


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str = ""
    """The body: appended to the child's system prompt."""
    tools: tuple[str, ...] | None = None
    """Our tool names (``None``: the parent's coding tools)."""
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None
    """``None`` / ``inherit``: the parent's; ``provider/id``; an id; a Claude alias."""
    max_turns: int | None = None
    isolation: Literal["worktree"] | None = None
    read_only: bool = False
    """``permissionMode: plan``: the child runs in plan mode (it can only restrict)."""
    source: Source = "builtin"
    path: str | None = None


BUILTIN_GENERAL = AgentDefinition(
    name=GENERAL,
    description=(
        "General-purpose agent for researching questions, searching code and doing "
        "multi-step tasks in its own context"
    ),
)


@dataclass(frozen=True, slots=True)
class AgentCatalog:
    """The definitions a session can start, by name, and what was skipped."""

    agents: dict[str, AgentDefinition]
    diagnostics: tuple[Diagnostic, ...] = ()
    project_dirs: tuple[str, ...] = ()
    watch: Watch = field(default_factory=Watch, compare=False)
    """The files and directories read: ``changed()`` says a load again would differ."""

    def get(self, name: str) -> AgentDefinition | None:
        return self.agents.get(name)

    def names(self) -> list[str]:
        return sorted(self.agents)


@dataclass
class _Load:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    watch: Watch = field(default_factory=Watch)


def _project_dirs(cwd: str, *, claude_compat: bool) -> list[str]:
    """The nearest ``.pi/agents`` and ``.claude/agents`` up from ``cwd`` to the git root."""
    root = git_root(cwd)
    found: list[str] = []
    names = [(".pi", "agents")] + ([(".claude", "agents")] if claude_compat else [])
    for parts in names:
        directory = cwd
        while True:
            candidate = os.path.join(directory, *parts)
            if os.path.isdir(candidate):
                found.append(candidate)
                break
            parent = os.path.dirname(directory)
            if (root is not None and directory == root) or parent == directory:
                break
            directory = parent
    return found


def project_agent_dirs(cwd: str, *, claude_compat: bool = True) -> list[str]:
    """Every project directory whose definitions need trust (``resources/trust.py``)."""
    return [
        os.path.join(cwd, ".pi", "agents"),
        *([os.path.join(cwd, ".claude", "agents")] if claude_compat else []),
    ]


def load_agents(
    cwd: str,
    *,
    agent_dir: str,
    trusted: bool,
    claude_compat: bool = True,
    home: str | None = None,
    inline: Iterable[AgentDefinition] = (),
) -> AgentCatalog:
    """The catalog for a session in ``cwd``: inline, project (when ``trusted``), user,
    built-in; the first of a name wins."""
    home = home if home is not None else os.path.expanduser("~")
    load = _Load()
    agents: dict[str, AgentDefinition] = {}

    def add(definition: AgentDefinition) -> None:
        if definition.name in agents:
            load.diagnostics.append(
                Diagnostic(
                    type="collision",
                    message=f'agent "{definition.name}" is already defined by '
                    f"{agents[definition.name].path or agents[definition.name].source}",
                    path=definition.path or "",
                )
            )
            return
        agents[definition.name] = definition

    for definition in inline:
        add(definition)
    project = _project_dirs(cwd, claude_compat=claude_compat) if trusted else []
    if trusted:  # one appearing later joins at the next load
        for candidate in project_agent_dirs(cwd, claude_compat=claude_compat):
            load.watch.note(candidate)
    for directory in project:
        for definition in _read_dir(directory, "project", load):
            add(definition)
    user = [os.path.join(agent_dir, "agents")]
    if claude_compat:
        user.append(os.path.join(home, ".claude", "agents"))
    for directory in user:
        if os.path.abspath(directory) in (os.path.abspath(p) for p in project):
            continue
        for definition in _read_dir(directory, "user", load):
            add(definition)
    agents.setdefault(GENERAL, BUILTIN_GENERAL)
    return AgentCatalog(agents, tuple(load.diagnostics), tuple(project), load.watch)


def _read_dir(directory: str, source: Source, load: _Load) -> list[AgentDefinition]:
    out = []
    for entry in list_dir(directory, load.watch):
        if not entry.name.endswith(".md") or not entry.is_file():
            continue
        definition = parse_definition(entry.path, source, load.diagnostics, load.watch)
        if definition is not None:
            out.append(definition)
    return out


def parse_definition(
    path: str, source: Source, diagnostics: list[Diagnostic], watch: Watch | None = None
) -> AgentDefinition | None:
    """One file's definition, or ``None`` (and a diagnostic saying why it was skipped)."""
    text = read_text(path, diagnostics, watch or Watch())
    if text is None:
        return None
    try:
        return definition_from_text(text, path=path, source=source, diagnostics=diagnostics)
    except FrontmatterError as exc:
        diagnostics.append(Diagnostic(type="warning", message=f"skipped: {exc}", path=path))
        return None


def definition_from_text(
    text: str, *, path: str, source: Source, diagnostics: list[Diagnostic]
) -> AgentDefinition | None:
    meta, body = parse_frontmatter(text)

    def skip(why: str) -> None:
        diagnostics.append(Diagnostic(type="warning", message=f"skipped: {why}", path=path))

    def note(what: str) -> None:
        diagnostics.append(Diagnostic(type="warning", message=what, path=path))

    stem = os.path.splitext(os.path.basename(path))[0]
    name = meta.get("name", stem)
    if not isinstance(name, str) or not name.strip():
        skip("`name` must be a non-empty string")
        return None
    name = name.strip()
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        skip("`description` is required")
        return None
    tools = _tool_list(meta.get("tools"), "tools", skip, note)
    if tools is False:
        return None
    disallowed = _tool_list(meta.get("disallowedTools"), "disallowedTools", skip, note)
    if disallowed is False:
        return None
    model = meta.get("model")
    if model is not None and not isinstance(model, str):
        skip("`model` must be a string")
        return None
    if isinstance(model, str) and model.strip() in ("", "inherit"):
        model = None
    max_turns = meta.get("maxTurns")
    if max_turns is not None and (
        not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1
    ):
        skip("`maxTurns` must be a positive integer")
        return None
    isolation = meta.get("isolation")
    if isolation not in (None, "worktree", "none"):
        skip('`isolation` must be "worktree"')
        return None
    mode = meta.get("permissionMode")
    read_only = mode == "plan"
    if mode not in (None, "plan", "default"):
        note(f"permissionMode {mode!r} ignored: a definition may only restrict (plan)")
    for ignored in ("hooks", "memory", "mcpServers"):
        if ignored in meta:
            note(f"`{ignored}` is not supported yet: ignored")
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        prompt=body,
        tools=tuple(tools) if tools is not None else None,
        disallowed_tools=tuple(disallowed or ()),
        model=model.strip() if isinstance(model, str) else None,
        max_turns=max_turns,
        isolation="worktree" if isolation == "worktree" else None,
        read_only=read_only,
        source=source,
        path=path,
    )


def _tool_list(value: Any, key: str, skip: Any, note: Any) -> list[str] | Literal[False] | None:
    """Our names for a ``tools`` value (comma string or list); ``None`` when absent;
    ``False`` when it is not a string or a list of strings."""
    if value is None:
        return None
    if isinstance(value, str):
        raw = [part.strip() for part in _split_commas(value)]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        raw = [v.strip() for v in value]
    else:
        skip(f"`{key}` must be a comma-separated string or a list of names")
        return False
    out: list[str] = []
    for item in raw:
        if not item:
            continue
        mapped = map_tool_name(item)
        if mapped is None:
            note(f"`{key}`: unknown tool {item!r} ignored")
        elif mapped not in out:
            out.append(mapped)
    return out


def _split_commas(value: str) -> list[str]:
    """``Read, Bash(git diff, git log), Grep`` → three parts (commas inside parentheses
    belong to the part)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def map_tool_name(name: str) -> str | None:
    """Our tool for a Claude Code (or our own) name; ``None`` when we have none."""
    if name.startswith("mcp__"):
        return name
    base = name.split("(", 1)[0].strip().lower()
    if base in IGNORED_CLAUDE_TOOLS:
        return None
    return CLAUDE_TOOL_NAMES.get(base)
