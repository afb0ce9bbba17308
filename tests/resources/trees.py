"""Fixture trees shared by the unit tests and the Pi oracle test (tests/resources/): a home
directory with an agent dir, and a git project with context files, skills and templates."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

REAL_SKILL = Path(__file__).resolve().parent.parent / "fixtures" / "skills" / "changelog-entry"


@dataclass
class Tree:
    home: Path
    agent: Path
    repo: Path
    cwd: Path


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def skill(
    root: Path, name: str, description: str | None, body: str = "Do it.\n", **extra: str
) -> Path:
    lines = ["---", f"name: {name}"]
    if description is not None:
        lines.append(f"description: {description}")
    lines += [f"{k}: {v}" for k, v in extra.items()]
    lines += ["---", "", body]
    return write(root / name / "SKILL.md", "\n".join(lines))


def build(tmp: Path) -> Tree:
    """The standard tree: global AGENTS.md, a CLAUDE.md above the repo, the repo's AGENTS.md,
    a sub-directory cwd with an override beside an AGENTS.md, skills in every root and
    templates in both directories."""
    home = tmp / "home"
    agent = home / ".pi" / "agent"
    repo = tmp / "work" / "repo"
    cwd = repo / "pkg"
    write(agent / "AGENTS.md", "Global rules: be brief.\n")
    write(tmp / "work" / "CLAUDE.md", "\ufeffWork-wide: use British spelling.\n")
    write(repo / "AGENTS.md", "Run tests with `make check`. Never touch `vendor/`.\n")
    write(cwd / "AGENTS.override.md", "Package override: this package uses tabs.\n")
    write(cwd / "AGENTS.md", "Shadowed by the override.\n")
    (repo / ".git").mkdir(parents=True)
    skill(agent / "skills", "user-skill", "A user's own skill & <tricks>.")
    skill(home / ".agents" / "skills", "agents-user", "From ~/.agents/skills.")
    skill(cwd / ".pi" / "skills", "release", "Cut a release - bump, tag, push.")
    skill(cwd / ".pi" / "skills", "hidden", "Only by hand.", **{"disable-model-invocation": "true"})
    skill(repo / ".agents" / "skills", "repo-agents", "From the repo's .agents/skills.")
    skill(repo / ".agents" / "skills", "release", "A second release skill, which loses.")
    shutil.copytree(REAL_SKILL, cwd / ".pi" / "skills" / "changelog-entry")
    write(
        cwd / ".pi" / "prompts" / "review.md",
        "---\ndescription: Review a file\nargument-hint: <file> [focus]\n---\n"
        "Review $1 with a focus on ${@:2}. All: $ARGUMENTS / $@.\n",
    )
    write(
        cwd / ".pi" / "prompts" / "plain.md",
        "Explain the code in $1 to a newcomer, line by line, with examples of each part.\n",
    )
    write(agent / "prompts" / "review.md", "The user's review template (loses to the project's).\n")
    write(agent / "prompts" / "standup.md", "Summarise yesterday's commits for a standup.\n")
    return Tree(home=home, agent=agent, repo=repo, cwd=cwd)
