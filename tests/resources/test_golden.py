"""Pi's exact texts (copied from the published @earendil-works/pi-coding-agent packages:
0.80.2's ``system-prompt.js`` for the context block, 1.6.0's ``skills.js``,
``prompt-templates.js`` and ``agent-session.js`` for the rest), and the expansion rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.resources import (
    ContextFile,
    Resources,
    Skill,
    expand_input,
    format_context_files,
    format_skills_for_prompt,
    parse_command_args,
    prompt_tail,
    skill_block,
    substitute_args,
)
from pi_lsp.resources.models import PromptTemplate

CONTEXT_GOLDEN = (
    "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n"
    '<project_instructions path="/g/AGENTS.md">\nglobal\n</project_instructions>\n\n'
    '<project_instructions path="/r/AGENTS.md">\nrepo rules\n\n</project_instructions>\n\n'
    "</project_context>\n"
)
SKILLS_GOLDEN = (
    "\n\nThe following skills provide specialized instructions for specific tasks.\n"
    "Use the read tool to load a skill's file when the task matches its description.\n"
    "Resolve relative paths against the skill's directory (parent of SKILL.md). "
    "Use absolute paths in tool calls.\n"
    "\n"
    "<available_skills>\n"
    "  <skill>\n"
    "    <name>release</name>\n"
    "    <description>Tag &amp; push &lt;now&gt; &quot;quoted&quot; &apos;single&apos;"
    "</description>\n"
    "    <location>/r/.pi/skills/release/SKILL.md</location>\n"
    "  </skill>\n"
    "</available_skills>"
)


def _file(path: str, content: str) -> ContextFile:
    return ContextFile(path=path, content=content, scope="ancestor", bytes=len(content))


def _skill(name: str, description: str, invocable: bool = True) -> Skill:
    path = f"/r/.pi/skills/{name}/SKILL.md"
    return Skill(
        name=name,
        description=description,
        path=path,
        base_dir=str(Path(path).parent),
        scope="project",
        model_invocable=invocable,
    )


def test_the_project_context_block_is_pis() -> None:
    files = [_file("/g/AGENTS.md", "global"), _file("/r/AGENTS.md", "repo rules\n")]
    assert format_context_files(files) == CONTEXT_GOLDEN
    assert format_context_files([]) == ""


def test_the_skills_block_is_pis_and_hides_disable_model_invocation() -> None:
    skills = [
        _skill("release", "Tag & push <now> \"quoted\" 'single'"),
        _skill("manual", "Only by hand", invocable=False),
    ]
    assert format_skills_for_prompt(skills) == SKILLS_GOLDEN
    assert format_skills_for_prompt([_skill("m", "x", invocable=False)]) == ""


def test_the_prompt_tail_orders_context_skills_date_cwd_and_needs_read_for_skills() -> None:
    resources = Resources(
        cwd="/r",
        agent_dir="/g",
        context_files=(_file("/r/AGENTS.md", "rules"),),
        skills=(_skill("release", "Tag"),),
    )
    tail = prompt_tail(resources, has_read=True, date="2026-12-05", cwd="/r")
    assert tail.startswith("\n\n<project_context>")
    assert "</project_context>\n\n\nThe following skills" in tail
    assert tail.endswith(
        "</available_skills>\nCurrent date: 2026-12-05\nCurrent working directory: /r"
    )
    no_read = prompt_tail(resources, has_read=False, date="2026-12-05", cwd="/r")
    assert "<available_skills>" not in no_read


def test_the_skill_wrapper_is_pis() -> None:
    skill = _skill("release", "Tag")
    assert skill_block(skill, "Body.", "") == (
        '<skill name="release" location="/r/.pi/skills/release/SKILL.md">\n'
        "References are relative to /r/.pi/skills/release.\n\nBody.\n</skill>"
    )
    assert skill_block(skill, "Body.", "v1.2").endswith("</skill>\n\nv1.2")


SUBSTITUTION_CASES: list[tuple[str, list[str], str]] = [
    ("$1 and $2", ["a", "b"], "a and b"),
    ("$1 $3", ["a"], "a "),
    ("$10 vs $1", ["1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"], "ten vs 1"),
    ("${@:2}", ["a", "b", "c"], "b c"),
    ("${@:2:1}", ["a", "b", "c"], "b"),
    ("${@:0}", ["a", "b"], "a b"),
    ("$ARGUMENTS|$@", ["x y", "z"], "x y z|x y z"),
    ("${1:-none} ${2:-none}", ["a"], "a none"),
    ("${@:-nothing}", [], "nothing"),
    ("$1", ["$2 and $ARGUMENTS"], "$2 and $ARGUMENTS"),  # never recursive
    ("$9 of two", ["a", "b"], " of two"),
    ("cost: $5.00", [], "cost: .00"),
]


@pytest.mark.parametrize(("template", "args", "expected"), SUBSTITUTION_CASES)
def test_substitution_cases(template: str, args: list[str], expected: str) -> None:
    assert substitute_args(template, args) == expected


ARGUMENT_CASES: list[tuple[str, list[str]]] = [
    ('a "b c" d', ["a", "b c", "d"]),
    ("'one two' three", ["one two", "three"]),
    ('say "x \\"y\\""', ["say", 'x "y"']),
    ('"" x', ["", "x"]),
    ("don't stop", ["don't", "stop"]),
    ('"unclosed rest', ['"unclosed', "rest"]),
    ("  spaced   out ", ["spaced", "out"]),
]


@pytest.mark.parametrize(("text", "expected"), ARGUMENT_CASES)
def test_argument_splitting_cases(text: str, expected: list[str]) -> None:
    assert parse_command_args(text) == expected


def _resources(tmp_path: Path) -> Resources:
    skill_file = tmp_path / "release" / "SKILL.md"
    skill_file.parent.mkdir()
    skill_file.write_text("---\nname: release\ndescription: Tag\n---\n\n  Steps here.  \n")
    return Resources(
        cwd=str(tmp_path),
        agent_dir="/g",
        skills=(
            Skill(
                name="release",
                description="Tag",
                path=str(skill_file),
                base_dir=str(skill_file.parent),
                scope="project",
            ),
        ),
        templates=(
            PromptTemplate(
                name="review",
                description="Review",
                content="Review $1 focusing on $2",
                path="/r/review.md",
                scope="project",
            ),
        ),
    )


def test_expansion_skill_then_template_and_unknown_names(tmp_path: Path) -> None:
    resources = _resources(tmp_path)
    skill = expand_input("/skill:release  v2 now ", resources)
    assert skill.kind == "skill"
    assert skill.warning is None
    assert skill.text.endswith("Steps here.\n</skill>\n\nv2 now")
    template = expand_input('/review src/x.py "error handling"', resources)
    assert template.text == "Review src/x.py focusing on error handling"
    unknown = expand_input("/nope args", resources)
    assert unknown.text == "/nope args"
    assert unknown.kind == "none"
    assert unknown.warning == "/nope: no such prompt template or skill; sent as typed"
    missing_skill = expand_input("/skill:gone", resources)
    assert missing_skill.text == "/skill:gone"
    assert "no such skill" in (missing_skill.warning or "")
    assert expand_input("/usr/bin/env is broken", resources).warning is None
    assert expand_input("/compact", resources, builtins={"compact"}).warning is None
    assert expand_input("plain text", resources).text == "plain text"
    assert expand_input("/review", None).text == "/review"


def test_a_template_given_fewer_arguments_than_it_uses_warns(tmp_path: Path) -> None:
    resources = _resources(tmp_path)
    one = expand_input("/review a.py", resources)
    assert one.text == "Review a.py focusing on "
    assert one.warning == "/review uses $2 but was given 1 argument: left empty"


def test_an_expansion_is_never_expanded_again(tmp_path: Path) -> None:
    resources = _resources(tmp_path)
    out = expand_input("/review /review /skill:release", resources)
    assert out.text == "Review /review focusing on /skill:release"


def test_a_template_referencing_9_with_two_arguments_warns_and_leaves_it_empty() -> None:
    template = PromptTemplate(
        name="t", description="", content="a=$1 b=$2 i=$9.", path="/t.md", scope="project"
    )
    resources = Resources(cwd="/r", agent_dir="/g", templates=(template,))
    out = expand_input("/t one two", resources)
    assert out.text == "a=one b=two i=."
    assert out.warning == "/t uses $9 but was given 2 arguments: left empty"
