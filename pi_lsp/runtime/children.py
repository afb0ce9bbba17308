"""The runtime side of ``task`` children (docs/subagents.md): how a root session's
``Subagents`` (``pi_lsp/subagents``) gets its children.

``attach_subagents(session, workspace, options)`` (called by ``create_agent_session`` for a
root session) gives the session its ``Subagents`` and the ``task`` tool. Each child is made
by ``create_agent_session`` from a ``RunConfig`` derived from the root's: the definition's
model (else the root's model and thinking level), the definition's body appended to the
system prompt, the root's permission checks (attributed to the child when the front end
gives ``SessionOptions.child_permissions``, so "always" answers are shared by the tree and
every question reaches the root's client), its sandbox and project resources; no ``task``
tool (depth 1) and no ``ask`` tool. A child's session file sits beside the root's, its
header naming the root's file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..resources.loader import agent_dir
from ..sessions import SessionFile
from ..subagents.definitions import MODEL_ALIASES, AgentCatalog, AgentDefinition, load_agents
from ..subagents.runner import ChildEvent, ChildSpec, Subagents
from ..subagents.tool import TaskTool
from ..subagents.worktrees import list_worktrees, prune, worktree_summary
from ..tools import Workspace
from ..tools.factory import bind_session

__all__ = [
    "ChildEvent",
    "Subagents",
    "attach_subagents",
    "child_config",
    "list_worktrees",
    "make_child",
    "prune_worktrees",
    "worktree_summary",
]
prune_worktrees = prune
_pruned_at_start = False

ConfiguredSession = Any
"""``session_factory.ConfiguredSession`` (not imported: the factory imports this module)."""
SessionOptions = Any
CreateSession = Callable[..., Any]

log = logging.getLogger(__name__)


def attach_subagents(
    session: ConfiguredSession,
    workspace: Workspace,
    options: SessionOptions,
    create: CreateSession,
) -> Subagents:
    """Give the root ``session`` its children runner and the ``task`` tool."""
    catalog_cache: dict[str, Any] = {}

    def catalog() -> AgentCatalog:
        project = session.project_resources
        trusted = bool(project is not None and project.trusted)
        res = session.config.resources
        key = (trusted, res.agent_dir, res.claude_compat)
        cached = catalog_cache.get("catalog")
        if cached is not None and cached[0] == key and not cached[1].watch.changed():
            return cached[1]  # type: ignore[no-any-return]
        loaded = load_agents(
            str(workspace.cwd),
            agent_dir=agent_dir(res),
            trusted=trusted,
            claude_compat=res.claude_compat,
        )
        shown = catalog_cache.setdefault("shown", set())
        for diagnostic in loaded.diagnostics:
            line = f"agent definition {diagnostic.path}: {diagnostic.message}"
            if line not in shown:  # each once per session, where the user sees notices
                shown.add(line)
                log.warning("%s", line)
                session.notify_user(line)
        catalog_cache["catalog"] = (key, loaded)
        return loaded

    def factory(spec: ChildSpec) -> Any:
        return make_child(session, workspace, options, spec, create)

    from ..subagents.worktrees import GitWorktrees

    _prune_once()
    worktrees = GitWorktrees(workspace, session.session_id)
    subagents = Subagents(session, factory, catalog, worktrees=worktrees)
    session.subagents = subagents
    session.add_session_tools(ask=session.ask_handler is not None, extra=(TaskTool(subagents),))
    return subagents


def child_config(parent: ConfiguredSession, definition: AgentDefinition) -> Any:
    """The parent's ``RunConfig`` for a child: its model, thinking and prompt."""
    config = parent.config
    model = parent.model
    provider, model_id = model.provider, model.id
    wanted = definition.model
    if wanted and wanted not in MODEL_ALIASES:
        if "/" in wanted:
            provider, model_id = wanted.split("/", 1)
        else:
            model_id = wanted
    append = "\n\n".join(p for p in (config.system_prompt_append, definition.prompt) if p)
    return config.model_copy(
        update={
            "provider": provider,
            "model": model_id,
            "thinking": parent.thinking_choice or config.thinking or parent.thinking_level,
            "system_prompt_append": append or None,
            "default_mode": "plan" if definition.read_only else "act",
            "mcp_servers": (),
        }
    )


def make_child(
    parent: ConfiguredSession,
    workspace: Workspace,
    options: SessionOptions,
    spec: ChildSpec,
    create_agent_session: CreateSession,
) -> ConfiguredSession:
    from dataclasses import replace

    from ..tools.disk_workspace import DiskWorkspace

    config = child_config(parent, spec.agent)
    child_workspace: Workspace = workspace if spec.cwd is None else DiskWorkspace([spec.cwd])
    tree = parent.tree
    if tree.persist:
        file = SessionFile.new(
            tree.path.parent,
            str(child_workspace.cwd),
            session_id=spec.child_id,
            parent_session=str(tree.path),
            redactor=tree.redactor,
        )
        file.sync = tree.sync
    else:
        file = SessionFile.in_memory(str(child_workspace.cwd), session_id=spec.child_id)
    permissions = (
        options.child_permissions(spec.agent.name, spec.child_id)
        if options.child_permissions is not None
        else options.permissions
    )
    child_options = replace(
        options,
        session_id=spec.child_id,
        permissions=tuple(permissions),
        ask=None,
        before_run=(),
        resources=parent.project_resources if spec.cwd is None else None,
        subagents=False,
        http_transport=None,
        parent=parent,  # its faux script before it is configured: configured once
    )
    child = create_agent_session(config, child_workspace, file=file, options=child_options)
    # the root checked its resources' files when its run started: the child (mid-run, never
    # reloading mid-turn either) uses the same, without one stat per watched path again
    child.refresh_before_prompt = False
    if child.config_error is not None:
        error = child.config_error
        child.close()
        raise ValueError(f"the {spec.agent.name} agent's model does not resolve: {error}")
    keep = spec.agent.tools
    drop = set(spec.agent.disallowed_tools) | {"task", "ask"}
    tools = [t for t in child.tools if (keep is None or t.name in keep) and t.name not in drop]
    if spec.cwd is None:  # its edits are the root's to review (hunks tagged with its calls)
        bind_session(tools, parent.session_id)
    if any(t.name == "mcp" or t.name.startswith("mcp__") for t in parent.tools):
        # the parent's MCP tools its definition allows: the same connections, no second server
        from ..mcp.toolset import child_mcp_tools

        tools += child_mcp_tools(parent.tools, keep, spec.agent.disallowed_tools)
    child.set_tools(tools)
    child.record_custom(
        "subagent_parent",
        {
            "parentSessionId": spec.parent_id,
            "toolCallId": spec.tool_call_id,
            "agent": spec.agent.name,
            "description": spec.description,
        },
    )
    return child


def _prune_once() -> None:
    """At the first session of the process: remove the worktrees a crashed pi-lsp left
    (not kept for the user, their process gone), in the background."""
    global _pruned_at_start
    if _pruned_at_start:
        return
    _pruned_at_start = True
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(_prune_quietly())
    _background.add(task)
    task.add_done_callback(_background.discard)


_background: set[Any] = set()


async def _prune_quietly() -> None:
    try:
        removed = await prune()
    except Exception:
        log.exception("pruning stale worktrees failed")
        return
    for path in removed:
        log.info("removed a stale subagent worktree: %s", path)
