"""The project's context files, skills and templates in a real session (issue 37): the first
model request carries AGENTS.md under Pi's header and the skills block, ``/review x`` and
``/skill:name`` arrive expanded (prompt, steer, follow-up), a changed file is used from the
next prompt, untrusted project files load only once trusted, and nothing stops a session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.ai import TextContent, UserMessage
from pi_lsp.mcp.permissions import Answer, Question
from pi_lsp.resources import ProjectTrustStore
from pi_lsp.runtime import (
    ResourceOptions,
    RunConfig,
    ask_project_trust,
    create_agent_session,
    load_project_resources,
    settle_project_trust,
)
from pi_lsp.sessions.events import ResourceNoticeEvent, ResourcesUpdateEvent
from pi_lsp.tools.disk_workspace import DiskWorkspace
from tests.resources.trees import Tree, build, write


def _script(path: Path, n: int = 4) -> str:
    replies = [{"content": [{"type": "text", "text": f"ok {i}"}]} for i in range(n)]
    path.write_text(json.dumps({"responses": replies}), encoding="utf-8")
    return str(path)


def _config(tree: Tree, tmp_path: Path, **options: Any) -> RunConfig:
    return RunConfig(
        provider="faux",
        faux_script=_script(tmp_path / "script.json"),
        resources=ResourceOptions(agent_dir=str(tree.agent), **options),
    )


def _calls(session: Any) -> list[Any]:
    return list(session._faux[1].calls)


def _user_texts(session: Any) -> list[str]:
    out = []
    for m in session.messages:
        if isinstance(m, UserMessage):
            content = m.content
            out.append(content if isinstance(content, str) else content[0].text)
    return out


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    t = build(tmp_path)
    monkeypatch.setenv("HOME", str(t.home))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    return t


async def test_first_request_has_agents_md_and_skills_and_templates_expand(
    tree: Tree, tmp_path: Path
) -> None:
    ProjectTrustStore(tmp_path / "data" / "project-trust.json").remember(str(tree.repo), "trusted")
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        events: list[Any] = []
        session.subscribe(events.append)
        await session.prompt('/review src/x.py "error handling"')
        await session.wait_for_idle()
        prompt = _calls(session)[0].system_prompt
        assert (
            "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n" in prompt
        )
        assert (
            f'<project_instructions path="{tree.repo / "AGENTS.md"}">\n'
            "Run tests with `make check`. Never touch `vendor/`.\n\n</project_instructions>"
        ) in prompt
        assert "<name>release</name>" in prompt
        assert "<name>hidden</name>" not in prompt
        assert prompt.endswith(f"Current working directory: {tree.cwd}")
        assert _user_texts(session) == [
            "Review src/x.py with a focus on error handling. "
            "All: src/x.py error handling / src/x.py error handling."
        ]
        await session.prompt("/skill:changelog-entry for v2")
        await session.wait_for_idle()
        text = _user_texts(session)[1]
        skill = tree.cwd / ".pi" / "skills" / "changelog-entry"
        assert text.startswith(
            f'<skill name="changelog-entry" location="{skill / "SKILL.md"}">\n'
            f"References are relative to {skill}.\n\n# Changelog entry"
        )
        assert text.endswith("</skill>\n\nfor v2")
        assert not [e for e in events if isinstance(e, ResourceNoticeEvent)]
    finally:
        await session.aclose()
        session.close()


async def test_unknown_name_is_sent_as_typed_with_a_notice(tree: Tree, tmp_path: Path) -> None:
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        notices: list[str] = []
        session.subscribe(
            lambda e: notices.append(e.message) if isinstance(e, ResourceNoticeEvent) else None
        )
        await session.prompt("/nosuch thing")
        await session.wait_for_idle()
        assert _user_texts(session) == ["/nosuch thing"]
        assert notices == ["/nosuch: no such prompt template or skill; sent as typed"]
    finally:
        await session.aclose()
        session.close()


async def test_steer_and_follow_up_expand_too(tree: Tree, tmp_path: Path) -> None:
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        session.steer(UserMessage(content=[TextContent(text="/standup")]))
        session.follow_up(UserMessage(content="/skill:user-skill now"))
        steering, follow_ups = session.queue_items()
        assert steering[0].message.content[0].text.startswith("Summarise yesterday")  # type: ignore[union-attr]
        assert str(follow_ups[0].message.content).startswith('<skill name="user-skill"')  # type: ignore[union-attr]
    finally:
        await session.aclose()
        session.close()


async def test_a_changed_file_is_used_from_the_next_prompt_and_reload_forces_it(
    tree: Tree, tmp_path: Path
) -> None:
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        updates: list[Any] = []
        session.subscribe(
            lambda e: updates.append(e) if isinstance(e, ResourcesUpdateEvent) else None
        )
        await session.prompt("one")
        await session.wait_for_idle()
        write(tree.repo / "AGENTS.md", "Now: run `make test-all` instead.\n")
        await session.prompt("two")
        await session.wait_for_idle()
        first, second = (c.system_prompt for c in _calls(session)[:2])
        assert "make check" in first
        assert "make test-all" in second
        assert len(updates) == 1
        assert updates[0].payload.context_files[2].content.startswith("Now:")
        assert session.reload_resources() is not None
        assert len(updates) == 2
    finally:
        await session.aclose()
        session.close()


async def test_untrusted_project_loads_context_but_not_its_skills_until_trusted(
    tree: Tree, tmp_path: Path
) -> None:
    write(tree.cwd / ".pi" / "SYSTEM.md", "PROJECT SYSTEM PROMPT")
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        resources = session.resources
        assert resources is not None
        assert not resources.trusted
        assert str(tree.cwd / ".pi" / "SYSTEM.md") in resources.ignored_untrusted
        prompt = session.agent.state.system_prompt
        assert "make check" in prompt
        assert "PROJECT SYSTEM PROMPT" not in prompt
        assert "<name>release</name>" not in prompt
        assert "<name>user-skill</name>" in prompt
        asked: list[Question] = []

        async def ask(question: Question, signal: Any) -> Answer:
            asked.append(question)
            return Answer("allowAlways")

        outcome = await settle_project_trust(session, ask)
        assert outcome is not None
        assert outcome.trusted
        assert asked[0].title == f"Trust project files in {tree.cwd}?"
        assert str(tree.cwd / ".pi" / "SYSTEM.md") in asked[0].detail
        prompt = session.agent.state.system_prompt
        assert prompt.startswith("PROJECT SYSTEM PROMPT")
        assert "<name>release</name>" in prompt
        again = await ask_project_trust(tree.cwd / "sub", ResourceOptions(), ask)
        assert again.source == "saved"
        assert again.trusted
        assert len(asked) == 1
    finally:
        await session.aclose()
        session.close()


async def test_deny_is_remembered_and_no_approve_overrides_a_saved_trust(
    tree: Tree, tmp_path: Path
) -> None:
    async def deny(question: Question, signal: Any) -> Answer:
        return Answer("deny")

    outcome = await ask_project_trust(tree.cwd, ResourceOptions(), deny)
    assert not outcome.trusted
    assert outcome.source == "answer"
    assert (await ask_project_trust(tree.cwd, ResourceOptions(), None)).source == "saved"
    ProjectTrustStore(tmp_path / "data" / "project-trust.json").remember(str(tree.cwd), "trusted")
    flagged = await ask_project_trust(tree.cwd, ResourceOptions(trust="never"), deny)
    assert not flagged.trusted
    assert flagged.source == "flag"
    project = load_project_resources(
        tree.cwd, ResourceOptions(agent_dir=str(tree.agent)), trusted=False
    )
    assert project.current.skill("release") is None


async def test_nothing_protected_means_no_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    write(tmp_path / "p" / "AGENTS.md", "rules")

    async def ask(question: Question, signal: Any) -> Answer:
        raise AssertionError("asked")

    outcome = await ask_project_trust(tmp_path / "p", ResourceOptions(), ask)
    assert outcome.trusted
    assert outcome.source == "not-needed"


async def test_a_skill_outside_the_workspace_is_readable_by_the_read_tool(
    tree: Tree, tmp_path: Path
) -> None:
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        read = next(t for t in session.tools if t.name == "read")
        skill = tree.agent / "skills" / "user-skill" / "SKILL.md"
        result = await read.execute(
            "c1", read.parameters.model_validate({"path": str(skill)}), None, None
        )
        assert "A user's own skill" in result.content[0].text  # type: ignore[union-attr]
        write_tool = next(t for t in session.tools if t.name == "write")
        with pytest.raises(Exception, match="outside the workspace"):
            await write_tool.execute(
                "c2",
                write_tool.parameters.model_validate({"path": str(skill), "content": "x"}),
                None,
                None,
            )
    finally:
        await session.aclose()
        session.close()


async def test_a_broken_loader_does_not_stop_the_session(
    tree: Tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("pi_lsp.resources.loader.load_context_files", boom)
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        await session.prompt("hi")
        await session.wait_for_idle()
        assert session.resources is not None
        assert session.resources.diagnostics[0].type == "error"
    finally:
        await session.aclose()
        session.close()


async def test_a_changed_config_reloads_with_the_new_options(tree: Tree, tmp_path: Path) -> None:
    config = _config(tree, tmp_path)
    session = create_agent_session(config, DiskWorkspace([tree.cwd]))
    try:
        assert "make check" in session.agent.state.system_prompt
        off = config.resources.model_copy(update={"context_files": False})
        session.configure(config.model_copy(update={"resources": off}))
        assert "make check" not in session.agent.state.system_prompt
        session.configure(session.config.model_copy(update={"system_prompt_append": "BE TERSE"}))
        assert "\n\nBE TERSE\n" in session.agent.state.system_prompt
    finally:
        await session.aclose()
        session.close()


async def test_project_files_that_appear_later_wait_for_a_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    project = tmp_path / "p"
    write(project / "AGENTS.md", "rules")
    config = RunConfig(
        provider="faux",
        faux_script=_script(tmp_path / "s.json"),
        resources=ResourceOptions(agent_dir=str(tmp_path / "agent")),
    )
    session = create_agent_session(config, DiskWorkspace([project]))
    try:
        write(project / ".pi" / "SYSTEM.md", "INJECTED BY A TOOL CALL")
        await session.prompt("go")
        await session.wait_for_idle()
        assert "INJECTED" not in _calls(session)[0].system_prompt
        assert session.resources is not None
        assert session.resources.ignored_untrusted == (str(project / ".pi" / "SYSTEM.md"),)
    finally:
        await session.aclose()
        session.close()


async def test_a_front_end_that_expanded_itself_can_say_so(tree: Tree, tmp_path: Path) -> None:
    session = create_agent_session(_config(tree, tmp_path), DiskWorkspace([tree.cwd]))
    try:
        expanded = session.expand_text("/standup").text + "\n\n<file>attached</file>"
        await session.prompt(expanded, expand=False)
        await session.wait_for_idle()
        await session.prompt("/nosuch", expand=False)
        await session.wait_for_idle()
        session.steer(UserMessage(content="/standup"), expand=False)
        assert _user_texts(session) == [expanded, "/nosuch"]
        assert session.queue_items()[0][0].message.content == "/standup"  # type: ignore[union-attr]
    finally:
        await session.aclose()
        session.close()
