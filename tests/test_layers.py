"""The layer import direction of docs/architecture.md, enforced on the source.

- inside lsp/, no two sub-folders (or a sub-folder and a root module) import each other;
- nothing under ai/, agent/, tools/, sessions/, review/ imports pygls or lsprotocol;
- security/, review/ (pure text algorithms) and resources/ (project context, skills,
  templates) import nothing of ours; ai/ imports nothing of
  ours above it; agent/ and tools/ do not import lsp/ or sessions/; sessions/ does not import
  lsp/.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "pi_lsp"
EDITOR_LIBS = {"pygls", "lsprotocol"}

ABOVE_AI = {
    "pi_lsp.runtime",
    "pi_lsp.subagents",
    "pi_lsp.mcp",
    "pi_lsp.langserv",
    "pi_lsp.agent",
    "pi_lsp.tools",
    "pi_lsp.sessions",
    "pi_lsp.lsp",
    "pi_lsp.cli",
    "pi_lsp.acp",
    "pi_lsp.main",
}
FRONT_ENDS = {"pi_lsp.lsp", "pi_lsp.cli", "pi_lsp.acp", "pi_lsp.main"}
FORBIDDEN: dict[str, set[str]] = {
    "security": {"pi_lsp.ai", *ABOVE_AI},  # stdlib only: everything may use it
    "ai": ABOVE_AI,
    "agent": {
        "pi_lsp.tools",
        "pi_lsp.mcp",
        "pi_lsp.langserv",
        "pi_lsp.sessions",
        *FRONT_ENDS,
        "pi_lsp.runtime",
    },
    "tools": {"pi_lsp.sessions", *FRONT_ENDS, "pi_lsp.runtime", "pi_lsp.mcp", "pi_lsp.langserv"},
    "sessions": {*FRONT_ENDS, "pi_lsp.runtime"},
    # the MCP client, beside tools/: the runtime and the front ends import it
    "mcp": {"pi_lsp.sessions", *FRONT_ENDS, "pi_lsp.runtime", "pi_lsp.langserv"},
    # task children (definitions, the runner, the task tool): the runtime makes their
    # sessions, so it imports the runtime's factory only through what it is given
    "subagents": {*FRONT_ENDS, "pi_lsp.runtime"},
    # language servers pi-lsp starts (the lsp tool's Backend B), beside mcp/: pygls' client is
    # allowed here (it is what the package is for); the runtime and the front ends import it
    "langserv": {"pi_lsp.sessions", *FRONT_ENDS, "pi_lsp.runtime", "pi_lsp.mcp"},
    # the runtime every front end shares: no front end in it
    "runtime": FRONT_ENDS,
    # the two front ends never import each other (main.py picks one)
    "cli": {"pi_lsp.lsp", "pi_lsp.acp", "pi_lsp.main"},
    "acp": {"pi_lsp.lsp", "pi_lsp.cli", "pi_lsp.main"},
}
# code review (docs/review.md): a runtime-level capability every front end reaches
FORBIDDEN["codereview"] = set(FRONT_ENDS)
FORBIDDEN["review"] = FORBIDDEN["ai"]  # pure text algorithms: nothing of ours either
# project context, skills and templates: files in, frozen data out; every layer above the
# tools (the prompt builder, the session's expansion, the runtime, the front ends) uses it
FORBIDDEN["resources"] = {"pi_lsp.ai", "pi_lsp.security", *ABOVE_AI}


_RAW_IMPORTS = """
import ast, json, sys
out = []
for node in ast.walk(ast.parse(sys.stdin.read())):
    if isinstance(node, ast.Import):
        out.append([-1, None, [a.name for a in node.names]])
    elif isinstance(node, ast.ImportFrom):
        out.append([node.level, node.module, [a.name for a in node.names]])
print(json.dumps(out))
"""


def _raw_imports(source: str) -> list[tuple[int, str | None, list[str]]]:
    """``(level, module, names)`` of every import statement (``level`` -1: ``import x``)."""
    try:
        tree = ast.parse(source)
    except SystemError:
        # CPython 3.11 can fail ast.parse with "AST constructor recursion depth mismatch"
        # after other code in the process ran deep (seen once in CI): parse in a fresh one
        res = subprocess.run(
            [sys.executable, "-c", _RAW_IMPORTS],
            input=source,
            capture_output=True,
            text=True,
            check=True,
        )
        return [(level, module, names) for level, module, names in json.loads(res.stdout)]
    out: list[tuple[int, str | None, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.append((-1, None, [alias.name for alias in node.names]))
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module, [alias.name for alias in node.names]))
    return out


def _imports(path: Path) -> set[str]:
    rel_pkg = ".".join(("pi_lsp", *path.relative_to(PKG).parent.parts))
    found: set[str] = set()
    for level, module, names in _raw_imports(path.read_text(encoding="utf-8")):
        if level == -1:
            found.update(names)
            continue
        if level:
            base = rel_pkg.split(".")
            base = base[: len(base) - (level - 1)]
            module = ".".join([*base, module] if module else base)
        else:
            module = module or ""
        found.add(module)
        found.update(f"{module}.{name}" for name in names)
    return found


def test_the_import_reader_works_in_a_fresh_interpreter_too() -> None:
    # the fallback path of _raw_imports, used when ast.parse fails in this process
    res = subprocess.run(
        [sys.executable, "-c", _RAW_IMPORTS],
        input="import os\nfrom ..a import b, c\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(res.stdout) == [[-1, None, ["os"]], [2, "a", ["b", "c"]]]


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports(layer: str) -> None:
    files = sorted((PKG / layer).rglob("*.py"))
    assert files, f"layer {layer} has no modules"
    problems = []
    for f in files:
        for mod in _imports(f):
            top = mod.split(".")[0]
            if top in EDITOR_LIBS and layer != "langserv":
                problems.append(f"{f.relative_to(PKG)} imports {mod}")
            if any(mod == bad or mod.startswith(bad + ".") for bad in FORBIDDEN[layer]):
                problems.append(f"{f.relative_to(PKG)} imports {mod}")
    assert not problems, "layer violations:\n" + "\n".join(problems)


def test_import_resolution_sees_relative_imports() -> None:
    # guard the guard: a relative import is resolved to its absolute name
    found = _imports(PKG / "agent" / "types.py")
    assert "pi_lsp.ai" in found


def test_the_language_server_never_imports_the_cli() -> None:
    """``lsp/`` is one front end, ``pi-lsp run`` and ``pi-lsp acp`` two others: they share what
    lies below them (``wire.py``, ``sessions/``, ``agent/`` …), never each other."""
    cli = ("pi_lsp.cli", "pi_lsp.acp", "pi_lsp.main")
    problems = [
        f"{f.relative_to(PKG)} imports {mod}"
        for f in sorted((PKG / "lsp").rglob("*.py"))
        for mod in _imports(f)
        if any(mod == bad or mod.startswith(bad + ".") for bad in cli)
    ]
    assert not problems, "\n".join(problems)


ACP_MAY_IMPORT = (
    "pi_lsp.acp",
    "pi_lsp.runtime",
    "pi_lsp.sessions",
    "pi_lsp.security",
    "pi_lsp.wire",
    # the types wire.py is made of: events, messages, the abort signal, thinking levels
    "pi_lsp.agent.types",
    "pi_lsp.agent.messages",
    "pi_lsp.ai.types",
    "pi_lsp.ai.events",
    "pi_lsp.ai.abort",
    "pi_lsp.ai.thinking_levels",
    "pi_lsp.tools.workspace",  # the Workspace protocol, not the tools
    # the data the session's ask handler and todo_update speak (AskParams/AskAnswer, TodoItem)
    "pi_lsp.tools.ask",
    "pi_lsp.tools.todo",
    # a session's background processes, whose output the tool call shows (acp/background.py)
    "pi_lsp.tools.background",
    "pi_lsp.mcp",  # the MCP client: the servers a client passes in session/new become tools
    "pi_lsp.resources",  # the project's commands and context (Command, ResourcesPayload)
    "pi_lsp.codereview",  # /review: the review run and its findings (docs/review.md)
)
ACP_FACTORY_MAY_IMPORT = ("pi_lsp.tools.disk_workspace",)
"""acp/factory.py makes the sessions (runtime.create_agent_session) over a disk workspace."""


def test_the_acp_front_end_imports_only_runtime_sessions_and_wire_level_modules() -> None:
    problems = []
    for f in sorted((PKG / "acp").rglob("*.py")):
        allowed = ACP_MAY_IMPORT + (ACP_FACTORY_MAY_IMPORT if f.name == "factory.py" else ())
        for mod in _imports(f):
            if not mod.startswith("pi_lsp") or mod in ("pi_lsp", "pi_lsp.__version__"):
                continue
            if not any(mod == ok or mod.startswith(ok + ".") for ok in allowed):
                problems.append(f"{f.relative_to(PKG)} imports {mod}")
    assert not problems, "\n".join(problems)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_cycles() -> list[list[str]]:
    """Strongly connected components (more than one module) of the import graph of pi_lsp/,
    counting every import: module level, inside functions and under TYPE_CHECKING."""
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {
        name: {m for m in _imports(path) if m in modules and m != name}
        for name, path in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_import_cycles_in_the_package() -> None:
    assert _import_cycles() == []


def test_the_cycle_finder_sees_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # guard the guard: two modules importing each other (one lazily) are one cycle
    pkg = tmp_path / "pi_lsp"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", pkg)
    assert _import_cycles() == [["pi_lsp.a", "pi_lsp.b"]]


def test_one_function_builds_the_agents_of_every_front_end() -> None:
    """``runtime.build_agent`` is the only place outside ``agent/`` that calls ``Agent(…)``."""
    callers = []
    for f in sorted(PKG.rglob("*.py")):
        if f.relative_to(PKG).parts[0] == "agent":
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name == "Agent":
                    callers.append(str(f.relative_to(PKG)))
    assert callers == ["runtime/assemble.py"]


def _lsp_part(path: Path) -> str:
    """The part of ``lsp/`` a module belongs to: its first sub-folder, or the root module."""
    rel = path.relative_to(PKG / "lsp")
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _lsp_part_graph() -> dict[str, set[str]]:
    """Which parts of ``lsp/`` (sub-folders and root modules) import which others."""
    root = PKG / "lsp"
    graph: dict[str, set[str]] = {}
    for f in sorted(root.rglob("*.py")):
        part = _lsp_part(f)
        if part == "__init__":
            continue
        targets = graph.setdefault(part, set())
        for mod in _imports(f):
            names = mod.split(".")
            inside = names[:2] == ["pi_lsp", "lsp"] and len(names) > 2 and names[2] != part
            if inside and ((root / names[2]).is_dir() or (root / f"{names[2]}.py").is_file()):
                targets.add(names[2])
    return graph


def _lsp_part_cycles() -> list[str]:
    """Every pair of ``lsp/`` parts that reach each other through imports (mutual imports,
    direct or through other parts): the parts must form a DAG."""
    graph = _lsp_part_graph()

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {part: reach(part) for part in graph}
    return sorted(
        f"{a} <-> {b}" for a in graph for b in reached[a] if a < b and a in reached.get(b, ())
    )


def test_no_mutual_imports_inside_lsp() -> None:
    """``lsp/``'s sub-folders and root modules form a DAG (docs/architecture.md gives the
    order): contract models below handlers, entry points above ``server.py``."""
    assert _lsp_part_cycles() == []


def test_the_lsp_part_graph_sees_mutual_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # guard the guard: a root module and a sub-folder importing each other (one lazily), and a
    # sub-folder importing a second one, are seen
    lsp = tmp_path / "pi_lsp" / "lsp"
    (lsp / "editor").mkdir(parents=True)
    (lsp / "protocol").mkdir()
    (tmp_path / "pi_lsp" / "__init__.py").write_text("")
    (lsp / "__init__.py").write_text("")
    (lsp / "bridge.py").write_text("from .editor.positions import x\n")
    (lsp / "editor" / "__init__.py").write_text("")
    (lsp / "editor" / "positions.py").write_text("from ..protocol import models\n")
    (lsp / "editor" / "work.py").write_text("def f():\n    from ..bridge import y\n")
    (lsp / "protocol" / "models.py").write_text("import os\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", tmp_path / "pi_lsp")
    assert _lsp_part_graph() == {
        "bridge": {"editor"},
        "editor": {"bridge", "protocol"},
        "protocol": set(),
    }
    assert _lsp_part_cycles() == ["bridge <-> editor"]
