"""The resources loader on real trees in tmp_path: context files, SYSTEM/APPEND, skills,
templates, trust, and every bad input of issue 37 (a diagnostic, never a failure)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.resources import (
    ProjectResources,
    ResourceOptions,
    describe,
    list_commands,
    load_resources,
)
from pi_lsp.resources.context_files import MAX_CONTEXT_BYTES

from .trees import Tree, build, skill, write


def load(tree: Tree, trusted: bool = True, **options: object):  # type: ignore[no-untyped-def]
    opts = ResourceOptions(agent_dir=str(tree.agent), **options)  # type: ignore[arg-type]
    resources, _ = load_resources(str(tree.cwd), opts, trusted=trusted, home=str(tree.home))
    return resources


def test_context_files_global_first_then_root_to_cwd_one_per_directory(tmp_path: Path) -> None:
    tree = build(tmp_path)
    files = load(tree).context_files
    assert [f.path for f in files] == [
        str(tree.agent / "AGENTS.md"),
        str(tmp_path / "work" / "CLAUDE.md"),
        str(tree.repo / "AGENTS.md"),
        str(tree.cwd / "AGENTS.override.md"),
    ]
    assert [f.scope for f in files] == ["global", "ancestor", "ancestor", "cwd"]
    assert files[1].content == "Work-wide: use British spelling.\n"  # the BOM is stripped


def test_context_files_need_no_trust_and_can_be_turned_off(tmp_path: Path) -> None:
    tree = build(tmp_path)
    assert len(load(tree, trusted=False).context_files) == 4
    assert load(tree, context_files=False).context_files == ()


def test_a_directory_named_agents_md_falls_through_to_claude_md(tmp_path: Path) -> None:
    tree = build(tmp_path)
    (tree.repo / "AGENTS.md").unlink()
    (tree.repo / "AGENTS.md").mkdir()
    write(tree.repo / "CLAUDE.md", "Claude's rules.\n")
    paths = [f.path for f in load(tree).context_files]
    assert str(tree.repo / "CLAUDE.md") in paths
    assert str(tree.repo / "AGENTS.md") not in paths


def test_an_empty_context_file_is_still_chosen_as_pi_does(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.repo / "AGENTS.md", "")
    write(tree.repo / "CLAUDE.md", "never read")
    files = {f.path: f.content for f in load(tree).context_files}
    assert files[str(tree.repo / "AGENTS.md")] == ""


def test_agent_dir_inside_the_cwd_chain_loads_once(tmp_path: Path) -> None:
    tree = build(tmp_path)
    opts = ResourceOptions(agent_dir=str(tree.repo))
    resources, _ = load_resources(str(tree.cwd), opts, home=str(tree.home))
    paths = [f.path for f in resources.context_files]
    assert paths.count(str(tree.repo / "AGENTS.md")) == 1
    assert paths[0] == str(tree.repo / "AGENTS.md")


def test_non_utf8_bytes_are_replaced_with_a_diagnostic(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.repo / "AGENTS.md", b"caf\xe9 rules\n")
    resources = load(tree)
    content = next(f.content for f in resources.context_files if f.path.endswith("repo/AGENTS.md"))
    assert content == "caf\ufffd rules\n"
    assert any(
        "not valid UTF-8" in d.message and d.path.endswith("repo/AGENTS.md")
        for d in resources.diagnostics
    )


def test_a_context_file_over_64_kib_is_cut_visibly_with_a_diagnostic(tmp_path: Path) -> None:
    tree = build(tmp_path)
    big = "x" * (MAX_CONTEXT_BYTES + 100)
    path = write(tree.repo / "AGENTS.md", big)
    resources = load(tree)
    f = next(f for f in resources.context_files if f.path == str(path))
    assert f.truncated
    assert f.bytes == MAX_CONTEXT_BYTES + 100
    assert f.content == "x" * MAX_CONTEXT_BYTES + f"\n\n[truncated: 100 bytes more; read {path}]"
    assert any(d.path == str(path) and "64 KiB" in d.message for d in resources.diagnostics)


def test_an_import_line_is_listed_as_not_followed(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.repo / "AGENTS.md", "See:\n@docs/rules.md\n")
    assert any("@docs/rules.md is not followed" in d.message for d in load(tree).diagnostics)


def test_nested_linked_worktree_shadows_the_main_checkouts_file(tmp_path: Path) -> None:
    main = tmp_path / "main"
    write(main / "AGENTS.md", "main's\n")
    gitdir = main / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    write(gitdir / "commondir", "../..\n")
    wt = main / ".claude" / "worktrees" / "wt"
    write(wt / ".git", f"gitdir: {gitdir}\n")
    write(wt / "AGENTS.md", "the worktree's copy\n")
    resources, _ = load_resources(
        str(wt), ResourceOptions(agent_dir=str(tmp_path / "agent")), home=str(tmp_path)
    )
    assert [f.path for f in resources.context_files] == [str(wt / "AGENTS.md")]
    sibling = tmp_path / "sibling"
    write(sibling / ".git", f"gitdir: {gitdir}\n")
    write(sibling / "AGENTS.md", "sibling\n")
    resources, _ = load_resources(
        str(sibling), ResourceOptions(agent_dir=str(tmp_path / "agent")), home=str(tmp_path)
    )
    assert [f.path for f in resources.context_files] == [str(sibling / "AGENTS.md")]


def test_system_and_append_project_wins_only_when_trusted(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.agent / "SYSTEM.md", "user system")
    write(tree.cwd / ".pi" / "SYSTEM.md", "project system")
    write(tree.agent / "APPEND_SYSTEM.md", "user append")
    write(tree.cwd / ".pi" / "APPEND_SYSTEM.md", "project append")
    trusted = load(tree)
    assert trusted.system_prompt is not None
    assert trusted.system_prompt.content == "project system"
    assert [p.content for p in trusted.append_prompts] == ["project append"]
    untrusted = load(tree, trusted=False)
    assert untrusted.system_prompt is not None
    assert untrusted.system_prompt.content == "user system"
    assert [p.content for p in untrusted.append_prompts] == ["user append"]
    assert str(tree.cwd / ".pi" / "SYSTEM.md") in untrusted.ignored_untrusted
    flagged = load(tree, system_prompt="inline text", append_system_prompt="extra")
    assert flagged.system_prompt is not None
    assert flagged.system_prompt.path is None
    assert flagged.system_prompt.content == "inline text"
    assert [p.content for p in flagged.append_prompts] == ["extra"]
    from_file = load(tree, system_prompt=str(tree.agent / "SYSTEM.md"))
    assert from_file.system_prompt is not None
    assert from_file.system_prompt.path == str(tree.agent / "SYSTEM.md")


def test_skills_in_pi_order_first_name_wins_with_a_collision(tmp_path: Path) -> None:
    tree = build(tmp_path)
    resources = load(tree)
    names = [s.name for s in resources.skills]
    assert names == [
        "changelog-entry",
        "hidden",
        "release",
        "repo-agents",
        "user-skill",
        "agents-user",
    ]
    release = resources.skill("release")
    assert release is not None
    assert release.path == str(tree.cwd / ".pi/skills/release/SKILL.md")
    collision = [d for d in resources.diagnostics if d.type == "collision" and "SKILL" in d.path]
    assert [d.path for d in collision] == [str(tree.repo / ".agents/skills/release/SKILL.md")]
    hidden = resources.skill("hidden")
    assert hidden is not None
    assert not hidden.model_invocable


def test_untrusted_project_keeps_user_skills_and_lists_what_it_ignored(tmp_path: Path) -> None:
    tree = build(tmp_path)
    resources = load(tree, trusted=False)
    assert [s.name for s in resources.skills] == ["user-skill", "agents-user"]
    assert [t.name for t in resources.templates] == ["review", "standup"]
    assert resources.template("review").scope == "user"  # type: ignore[union-attr]
    assert str(tree.cwd / ".pi" / "skills") in resources.ignored_untrusted
    assert str(tree.cwd / ".pi" / "prompts") in resources.ignored_untrusted
    assert str(tree.repo / ".agents" / "skills") in resources.ignored_untrusted
    assert describe(resources).trust.status == "untrusted"


def test_claude_compat_adds_claude_dirs_and_a_setting_turns_it_off(tmp_path: Path) -> None:
    tree = build(tmp_path)
    skill(tree.repo / ".claude" / "skills", "claude-proj", "From .claude/skills.")
    skill(tree.home / ".claude" / "skills", "claude-user", "From ~/.claude/skills.")
    write(tree.cwd / ".claude" / "commands" / "fix.md", "Fix issue #$1.\n")
    on = load(tree)
    assert {"claude-proj", "claude-user"} <= {s.name for s in on.skills}
    assert on.template("fix") is not None
    off = load(tree, claude_compat=False)
    assert not {"claude-proj", "claude-user"} & {s.name for s in off.skills}
    assert off.template("fix") is None


def test_bad_skills_are_skipped_with_diagnostics_naming_the_file(tmp_path: Path) -> None:
    tree = build(tmp_path)
    root = tree.cwd / ".pi" / "skills"
    nodesc = skill(root, "no-desc", None)
    bad_yaml = write(root / "bad-yaml" / "SKILL.md", "---\nname: [unclosed\n---\nbody\n")
    colon = write(
        root / "colon" / "SKILL.md", "---\nname: colon\ndescription: Use when: a colon\n---\n"
    )
    mismatch = skill(root, "Wrong_Name", "Name is not the spec's.")
    resources = load(tree)
    by_path = {d.path: d.message for d in resources.diagnostics}
    assert "description is required" in by_path[str(nodesc)]
    assert "invalid YAML frontmatter" in by_path[str(bad_yaml)]
    assert "invalid characters" in by_path[str(mismatch)]
    names = {s.name for s in resources.skills}
    assert "no-desc" not in names
    assert "bad-yaml" not in names
    assert "Wrong_Name" in names  # lenient, like Pi
    assert resources.skill("colon").description == "Use when: a colon"  # type: ignore[union-attr]
    assert str(colon) not in by_path


def test_a_symlink_loop_in_a_skills_dir_ends_with_a_diagnostic(tmp_path: Path) -> None:
    tree = build(tmp_path)
    loop = tree.cwd / ".pi" / "skills" / "loop"
    loop.mkdir()
    os.symlink(loop, loop / "again")
    resources = load(tree)
    assert any("symlink loop" in d.message for d in resources.diagnostics)
    assert resources.skill("release") is not None


def test_a_symlinked_agents_md_pointing_nowhere_is_skipped(tmp_path: Path) -> None:
    tree = build(tmp_path)
    (tree.repo / "AGENTS.md").unlink()
    os.symlink(tree.repo / "missing.md", tree.repo / "AGENTS.md")
    write(tree.repo / "CLAUDE.md", "fallback\n")
    assert str(tree.repo / "CLAUDE.md") in [f.path for f in load(tree).context_files]


def test_gitignored_skills_are_not_loaded(tmp_path: Path) -> None:
    tree = build(tmp_path)
    write(tree.cwd / ".pi" / "skills" / ".gitignore", "release/\n")
    assert load(tree).skill("release").path.startswith(str(tree.repo / ".agents"))  # type: ignore[union-attr]


def test_templates_project_wins_and_commands_list_everything(tmp_path: Path) -> None:
    tree = build(tmp_path)
    resources = load(tree)
    review = resources.template("review")
    assert review is not None
    assert review.scope == "project"
    assert review.description == "Review a file"
    assert review.argument_hint == "<file> [focus]"
    plain = resources.template("plain")
    assert plain is not None
    assert plain.description == "Explain the code in $1 to a newcomer, line by line, with exa..."
    commands = list_commands(resources, {"compact": "Compact the session"})
    assert [c.name for c in commands] == [
        "compact",
        "plain",
        "review",
        "standup",
        "skill:agents-user",
        "skill:changelog-entry",
        "skill:hidden",
        "skill:release",
        "skill:repo-agents",
        "skill:user-skill",
    ]
    by_name = {c.name: c for c in commands}
    assert by_name["plain"].argument_hint == "arguments"
    assert by_name["standup"].argument_hint is None
    assert by_name["skill:release"].source == "skill"
    wire = by_name["review"].model_dump(by_alias=True)
    assert wire["argumentHint"] == "<file> [focus]"


def test_duplicate_template_names_keep_the_first(tmp_path: Path) -> None:
    tree = build(tmp_path)
    collisions = [
        d for d in load(tree).diagnostics if d.type == "collision" and "/review" in d.message
    ]
    assert [d.path for d in collisions] == [str(tree.agent / "prompts" / "review.md")]


def test_cli_paths_load_even_with_discovery_off(tmp_path: Path) -> None:
    tree = build(tmp_path)
    extra = skill(tmp_path / "elsewhere", "extra", "An extra skill.")
    tpl = write(tmp_path / "elsewhere" / "hello.md", "Hello $1\n")
    resources = load(
        tree,
        skills=False,
        prompt_templates=False,
        extra_skill_paths=(str(extra.parent),),
        extra_template_paths=(str(tpl), str(tmp_path / "nope.md")),
    )
    assert [s.name for s in resources.skills] == ["extra"]
    assert [t.name for t in resources.templates] == ["hello"]
    assert any(d.path == str(tmp_path / "nope.md") for d in resources.diagnostics)


def test_settings_json_paths_only_from_a_trusted_project(tmp_path: Path) -> None:
    tree = build(tmp_path)
    skill(tmp_path / "shared", "shared-skill", "From settings.")
    write(tree.cwd / ".pi" / "settings.json", '{"skills": ["../../../../shared"]}')
    write(tree.agent / "settings.json", "{not json")
    trusted = load(tree)
    assert trusted.skill("shared-skill") is not None
    assert any("invalid JSON" in d.message for d in trusted.diagnostics)
    assert load(tree, trusted=False).skill("shared-skill") is None
    assert str(tree.cwd / ".pi" / "settings.json") in load(tree, trusted=False).ignored_untrusted


def test_reload_sees_a_changed_or_new_file_and_nothing_else(tmp_path: Path) -> None:
    tree = build(tmp_path)
    project = ProjectResources(
        str(tree.cwd), ResourceOptions(agent_dir=str(tree.agent)), home=str(tree.home)
    )
    assert not project.refresh()
    write(tree.repo / "AGENTS.md", "Changed: run `make test`, a longer line now.\n")
    assert project.refresh()
    assert "make test" in project.current.context_files[2].content
    write(tree.cwd / ".pi" / "prompts" / "new.md", "New one\n")
    assert project.refresh()
    assert project.current.template("new") is not None
    write(tree.cwd / "CLAUDE.md", "lower priority than the override: still not loaded\n")
    project.refresh()
    assert str(tree.cwd / "CLAUDE.md") not in [f.path for f in project.current.context_files]
    write(tree.agent / "skills" / "late" / "SKILL.md", "---\ndescription: late\n---\n")
    assert project.refresh()
    assert project.current.skill("late") is not None


def test_the_loader_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = build(tmp_path)

    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("pi_lsp.resources.loader.load_context_files", boom)
    project = ProjectResources(str(tree.cwd), ResourceOptions(agent_dir=str(tree.agent)))
    assert project.current.diagnostics[0].type == "error"
    assert "disk on fire" in project.current.diagnostics[0].message


def test_agent_dir_from_the_environment(tmp_path: Path) -> None:
    from pi_lsp.resources import agent_dir

    assert agent_dir(env={"PI_CODING_AGENT_DIR": str(tmp_path)}) == str(tmp_path)
    assert agent_dir(env={}).endswith(os.path.join(".pi", "agent"))
