"""A session's project resources (docs/context.md) and the project trust question.

- ``load_project_resources(cwd, options, trusted)`` → ``ProjectResources``;
- ``saved_trust(cwd, options)``: the decision without asking (``--approve``/``--no-approve``,
  a saved decision for the directory or its closest ancestor, else trusted only when the
  project has nothing that needs trust) — what ``create_agent_session`` uses when a front
  end passes no resources;
- ``ask_project_trust(cwd, options, ask)``: the same, asking through a front end's ``Ask``
  (the one MCP trust uses) when nothing is decided and something needs trust; the answer is
  kept in ``<data dir>/project-trust.json`` (``allowAlways`` → trusted, ``deny`` →
  untrusted; ``allowSession`` / ``allowOnce`` trust this session only);
- ``settle_project_trust(session, ask)``: ask for a session already made, and reload its
  resources when the answer is yes.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..agent.asking import Ask, Option, Question
from ..ai import AbortSignal
from ..resources import ProjectResources, ProjectTrustStore, ResourceOptions, protected_paths
from ..sessions.paths import data_dir

log = logging.getLogger(__name__)
TRUST_CALL_ID = "project-trust"


def trust_store() -> ProjectTrustStore:
    """``<pi-lsp data dir>/project-trust.json`` (never in a repository)."""
    return ProjectTrustStore(data_dir() / "project-trust.json")


@dataclass(frozen=True, slots=True)
class TrustOutcome:
    trusted: bool
    source: Literal["flag", "not-needed", "saved", "answer", "no-one-to-ask"]
    needs_trust: list[str] = field(default_factory=list)
    """The project's paths that need trust (ignored when ``trusted`` is false)."""

    @property
    def load_project(self) -> bool:
        """Whether to load the project's protected files: trusted, and not merely because it
        had none — one that appears later (written by the agent, say) is not loaded until
        someone decides (``settle_project_trust``)."""
        return self.trusted and self.source != "not-needed"


def saved_trust(
    cwd: str | Path, options: ResourceOptions, *, store: ProjectTrustStore | None = None
) -> TrustOutcome:
    """The trust decision for ``cwd`` without asking anyone."""
    paths = protected_paths(str(cwd), claude_compat=options.claude_compat)
    if options.trust in ("always", "never"):
        return TrustOutcome(options.trust == "always", "flag", paths)
    if not paths:
        return TrustOutcome(True, "not-needed", paths)
    try:
        decision = (store or trust_store()).decision(str(cwd))
    except OSError as exc:
        log.warning("project trust store unreadable: %s", exc)
        decision = None
    if decision is not None:
        return TrustOutcome(decision == "trusted", "saved", paths)
    return TrustOutcome(False, "no-one-to-ask", paths)


def trust_question(cwd: str | Path, paths: list[str]) -> Question:
    """The question (``allowAlways`` / ``allowSession`` / ``deny``)."""
    listing = "\n".join(paths)
    return Question(
        call_id=TRUST_CALL_ID,
        tool="trust",
        title=f"Trust project files in {cwd}?",
        detail=(
            "This project has its own agent instructions, skills or prompt templates; "
            "loaded, they steer the agent like your own:\n"
            f"{listing}\n\n"
            "AGENTS.md and CLAUDE.md are loaded either way. The answer is remembered for "
            "this directory (and those below it) unless given for this session only."
        ),
        options=[
            Option("allowAlways", "Trust (remember for this directory)", "allowAlways"),
            Option("allowSession", "Trust for this session", "allowSession"),
            Option("deny", "Do not trust (remember)", "deny"),
        ],
    )


async def ask_project_trust(
    cwd: str | Path,
    options: ResourceOptions,
    ask: Ask | None,
    *,
    store: ProjectTrustStore | None = None,
    signal: AbortSignal | None = None,
) -> TrustOutcome:
    """The trust decision for ``cwd``, asking through ``ask`` when it is not decided."""
    store = store or trust_store()
    outcome = saved_trust(cwd, options, store=store)
    if outcome.source != "no-one-to-ask" or ask is None:
        return outcome
    try:
        answer = await ask(trust_question(cwd, outcome.needs_trust), signal)
    except Exception as exc:  # a front end that could not ask: not trusted, asked again later
        log.info("project trust not given: %s", exc or type(exc).__name__)
        return outcome
    trusted = answer.kind in ("allowAlways", "allowSession", "allowOnce")
    if answer.kind in ("allowAlways", "deny"):
        try:
            await asyncio.to_thread(store.remember, str(cwd), "trusted" if trusted else "untrusted")
        except OSError as exc:
            log.error("could not save the project trust decision: %s", exc)
    return TrustOutcome(trusted, "answer", outcome.needs_trust)


def load_project_resources(
    cwd: str | Path, options: ResourceOptions, *, trusted: bool
) -> ProjectResources:
    """A session's resources for ``cwd`` (never raises: problems are diagnostics)."""
    return ProjectResources(str(cwd), options, trusted=trusted)


async def settle_project_trust(
    session: Any, ask: Ask | None, *, signal: AbortSignal | None = None
) -> TrustOutcome | None:
    """For a session made without a trust answer: ask (when something needs trust and
    nothing is decided) and, on yes, load the project's resources into it from its next
    model call on. ``None`` when the session has no project resources."""
    project: ProjectResources | None = getattr(session, "project_resources", None)
    if project is None:
        return None
    outcome = await ask_project_trust(project.cwd, project.options, ask, signal=signal)
    if outcome.load_project != project.trusted:
        session.set_resources_trust(outcome.load_project)
    return outcome
