"""Project-resources benchmark (schema ``pi-resources-bench/1``): what loading a project's
context files, skills and templates costs a session, and what the check before each prompt
costs (docs/context.md#reload).

Builds, in a temp directory, a cwd ``--depth`` directories below a git root with an
``AGENTS.md`` on every level, ``--skills`` skills (each with ``scripts/`` and
``references/``) split between the project and the user's agent dir, and ``--templates``
templates; then times (median of ``--runs``) a full ``load_resources``, the no-change
``Watch.changed()`` a session runs before each prompt, and building the system prompt with
and without the resources. Ratios are against the plain system prompt built in the same run.
Not a test: ``python bench/resources_bench.py [--skills 200] [--runs 20]``; the JSON result is
the last line of stdout.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pi_lsp.resources import ResourceOptions, load_resources
from pi_lsp.tools import DiskWorkspace, build_system_prompt, create_coding_tools


def build_tree(root: Path, depth: int, skills: int, templates: int) -> tuple[Path, Path, Path]:
    home, repo = root / "home", root / "repo"
    agent = home / ".pi" / "agent"
    (repo / ".git").mkdir(parents=True)
    cwd = repo
    for level in range(depth):
        cwd.mkdir(parents=True, exist_ok=True)
        (cwd / "AGENTS.md").write_text(f"Level {level}: rules.\n" * 20)
        cwd = cwd / f"d{level}"
    cwd.mkdir(parents=True, exist_ok=True)
    for n in range(skills):
        base = (cwd / ".pi" / "skills") if n % 2 else (agent / "skills")
        skill = base / f"skill-{n:04d}"
        (skill / "scripts").mkdir(parents=True)
        (skill / "references").mkdir()
        (skill / "SKILL.md").write_text(
            f"---\nname: skill-{n:04d}\ndescription: Skill number {n}, for benchmarks.\n---\n"
            + "Step.\n" * 40
        )
        (skill / "scripts" / "run.sh").write_text("echo hi\n")
        (skill / "references" / "notes.md").write_text("notes\n")
    for n in range(templates):
        prompts = cwd / ".pi" / "prompts"
        prompts.mkdir(parents=True, exist_ok=True)
        (prompts / f"t{n:03d}.md").write_text(f"---\ndescription: T {n}\n---\nDo $1 then $@.\n")
    return home, agent, cwd


def median_ms(fn: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--templates", type=int, default=30)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pi-resources-bench-") as tmp:
        home, agent, cwd = build_tree(Path(tmp), args.depth, args.skills, args.templates)
        options = ResourceOptions(agent_dir=str(agent))

        def load() -> Any:
            return load_resources(str(cwd), options, home=str(home))

        resources, watch = load()
        workspace = DiskWorkspace([cwd])
        tools = create_coding_tools(workspace)
        plain = median_ms(lambda: build_system_prompt(workspace, tools), args.runs)
        full = median_ms(load, args.runs)
        check = median_ms(watch.changed, args.runs)
        with_resources = median_ms(
            lambda: build_system_prompt(workspace, tools, resources=resources), args.runs
        )
        report = {
            "schema": "pi-resources-bench/1",
            "python": platform.python_version(),
            "tree": {
                "skills": len(resources.skills),
                "templates": len(resources.templates),
                "contextFiles": len(resources.context_files),
                "watchedPaths": len(watch.seen),
            },
            "ms": {
                "plainSystemPrompt": round(plain, 3),
                "systemPromptWithResources": round(with_resources, 3),
                "load": round(full, 3),
                "checkBeforePrompt": round(check, 3),
            },
            "ratioToPlainPrompt": {
                "load": round(full / plain, 1),
                "checkBeforePrompt": round(check / plain, 1),
            },
        }
        print(json.dumps(report))


if __name__ == "__main__":
    main()
