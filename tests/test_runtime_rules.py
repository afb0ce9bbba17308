"""The runtime's rules (issue 23), checked on the source: one way to get a session, one owner
of run state, run identity as an argument.

- resolution (provider, model, key, faux script, HTTP client) happens only in ``runtime/``
  (and below it, in ``ai/``);
- a front end (``lsp/``, ``cli/``, ``acp/``) imports no provider module, no tool class (nor
  the factory that makes them) and not ``Agent``: files reach it as the ``Workspace``
  protocol (``tools/workspace.py``, ``DiskWorkspace``);
- nothing outside ``agent/`` and ``sessions/`` assigns a field of an ``Agent`` (or of its
  state), and no front end reads one: it goes through its ``AgentSession``;
- no context variable carries which run, session or tool call a change belongs to.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import test_layers
from tests.test_layers import PKG, _imports

FRONT_ENDS = ("lsp", "cli", "acp")
RESOLVERS = {
    "resolve_model",
    "default_provider",
    "get_env_api_key",
    "new_http_client",
    "FauxProvider",
    "FauxScript",
}
"""The names that turn configuration into a provider, model, key, script or client."""
RESOLUTION_EXEMPT = {
    "cli/prefetch.py": "the early first request: standard library only, sent before the "
    "runtime loads; the run uses its answer only if its own request is the same bytes",
}
TOOL_FACTORIES = ("pi_lsp.tools.factory", "create_coding_tools", "bind_session")


def _is_tool_class_or_factory(mod: str) -> bool:
    """A tool class (``BashTool``: front ends get tools only inside a session) or the code
    that makes them; a tool's data models (``AskParams``) and renderers may be shared."""
    name = mod.rsplit(".", 1)[-1]
    return name.endswith("Tool") or mod.startswith(TOOL_FACTORIES) or name in TOOL_FACTORIES


AGENT_OWNERS = ("agent", "sessions")


def _front_end_files() -> list[Path]:
    return [f for name in FRONT_ENDS for f in sorted((PKG / name).rglob("*.py"))]


def _rel(path: Path) -> str:
    return path.relative_to(test_layers.PKG).as_posix()


def test_no_resolution_outside_the_runtime() -> None:
    problems = []
    for f in sorted(PKG.rglob("*.py")):
        rel = _rel(f)
        if rel.split("/")[0] in ("runtime", "ai", "demo") or rel in RESOLUTION_EXEMPT:
            continue
        for mod in _imports(f):
            if mod.rsplit(".", 1)[-1] in RESOLVERS:
                problems.append(f"{rel} imports {mod}")
    assert not problems, "resolve through pi_lsp.runtime:\n" + "\n".join(problems)


def _front_end_problems(files: list[Path]) -> list[str]:
    problems = []
    for f in files:
        for mod in _imports(f):
            if mod.startswith("pi_lsp.ai.providers"):
                problems.append(f"{_rel(f)} imports the provider module {mod}")
            elif (
                mod in ("pi_lsp.agent.Agent", "pi_lsp.agent.agent")
                or mod.startswith("pi_lsp.agent.agent.")
                or (mod.startswith("pi_lsp.tools") and _is_tool_class_or_factory(mod))
            ):
                problems.append(f"{_rel(f)} imports {mod}")
    return problems


def test_front_ends_import_no_provider_tool_class_or_agent() -> None:
    files = _front_end_files()
    assert any(_rel(f).startswith("lsp/") for f in files)
    assert any(_rel(f).startswith("cli/") for f in files)
    problems = _front_end_problems(files)
    assert not problems, "front ends get these from pi_lsp.runtime:\n" + "\n".join(problems)


def test_the_front_end_import_check_can_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # guard the guard: each forbidden kind is seen, the workspace protocol is not
    pkg = tmp_path / "pi_lsp"
    (pkg / "lsp").mkdir(parents=True)
    probe = pkg / "lsp" / "probe.py"
    probe.write_text(
        "from ..ai.providers.faux import FauxProvider\n"
        "from ..agent import Agent\n"
        "from ..tools import BashTool\n"
        "from ..tools.workspace import Workspace\n"
    )
    monkeypatch.setattr(test_layers, "PKG", pkg)
    problems = "\n".join(_front_end_problems([probe]))
    for seen in ("pi_lsp.ai.providers.faux", "pi_lsp.agent.Agent", "pi_lsp.tools.BashTool"):
        assert seen in problems
    assert "tools.workspace" not in problems


def _agent_writes(tree: ast.AST) -> list[int]:
    """Lines assigning an attribute of something named ``agent`` (``agent.x = …``,
    ``self.agent.state.y = …``, ``session.agent.z += …``) or ``setattr(agent…)``."""

    def names_agent(node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute):
            if node.attr == "agent":
                return True
            node = node.value
        return isinstance(node, ast.Name) and node.id == "agent"

    lines = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
            targets = [node.args[0]] if node.args else []
            if targets and names_agent(targets[0]):
                lines.append(node.lineno)
            continue
        for target in targets:
            if isinstance(target, ast.Attribute) and names_agent(target.value):
                lines.append(node.lineno)
    return lines


def test_no_writes_to_agent_fields_outside_agent_and_sessions() -> None:
    writes = []
    for f in sorted(PKG.rglob("*.py")):
        if _rel(f).split("/")[0] in AGENT_OWNERS:
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"))
        writes += [f"{_rel(f)}:{line}" for line in _agent_writes(tree)]
    assert writes == [], "change a session through AgentSession's methods:\n" + "\n".join(writes)


def test_the_agent_write_counter_counts() -> None:
    source = (
        "agent.stream_fn = f\n"
        "self.agent.state.model = m\n"
        "session.agent.x += 1\n"
        "setattr(agent, 'y', 2)\n"
        "agents = 3\n"
        "self.session.config = c\n"
    )
    assert _agent_writes(ast.parse(source)) == [1, 2, 3, 4]


def _agent_reads(tree: ast.AST) -> list[int]:
    """Lines reaching into an agent from outside its session: any ``….agent`` attribute
    (``session.agent.state``, ``self.session.agent.follow_up(…)``)."""
    return sorted(
        {
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "agent"
        }
    )


def test_no_front_end_touches_the_sessions_agent() -> None:
    """A front end asks its ``AgentSession`` (``messages``, ``model``, ``steer``,
    ``take_next_queued``…), never the ``Agent`` inside it."""
    files = _front_end_files()
    assert any(_rel(f).startswith("acp/") for f in files)
    reads = []
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        reads += [f"{_rel(f)}:{line}" for line in _agent_reads(tree)]
    assert len(reads) == 0, "go through the session's own methods:\n" + "\n".join(reads)


def test_the_agent_read_counter_counts() -> None:
    source = (
        "n = len(self.session.agent.state.messages)\n"
        "session.agent.follow_up(m)\n"
        "agent = self.session.model\n"
        "from acp.agent.connection import AgentSideConnection\n"
        "x = hosted.session.agent\n"
    )
    assert _agent_reads(ast.parse(source)) == [1, 2, 5]


RULE_MAKERS = {"command_allowed", "suggest_patterns"}
"""What the bash permission rules are made of (``security.rules``): only
``runtime/permissions.py`` decides with them; a front end gives its ``Ask``."""


def _rule_problems(files: list[Path]) -> list[str]:
    return [
        f"{_rel(f)} imports {mod}"
        for f in files
        for mod in _imports(f)
        if mod.rsplit(".", 1)[-1] in RULE_MAKERS
    ]


def test_the_bash_permission_rules_are_written_once() -> None:
    problems = _rule_problems(_front_end_files())
    assert problems == [], "use runtime.permissions.BashRules:\n" + "\n".join(problems)
    assert _rule_problems([PKG / "runtime" / "permissions.py"]), "the check sees the rules"


def test_no_context_variables_for_run_identity() -> None:
    """Which run a change belongs to travels as ``ToolCallContext``, not in a ContextVar."""
    users = []
    for f in sorted(PKG.rglob("*.py")):
        text = f.read_text(encoding="utf-8")
        if "ContextVar(" in text or "import contextvars" in text:
            users.append(_rel(f))
    assert users == []
