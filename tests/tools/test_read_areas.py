"""read/ls/find/grep may read inside a discovered skill directory outside the workspace;
write/edit may not (docs/context.md#skills)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.tools import DiskWorkspace, create_coding_tools
from pi_lsp.tools.read_areas import ReadAreas


def _tools(tmp_path: Path, areas: ReadAreas | None) -> dict[str, object]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    tools = create_coding_tools(DiskWorkspace([project]), read_areas=areas)
    return {t.name: t for t in tools}


def _skill(tmp_path: Path) -> Path:
    skill = tmp_path / "home" / "skills" / "release"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: d\n---\nRun scripts/tag.sh\n")
    (skill / "scripts" / "tag.sh").write_text("git tag v1\n")
    return skill


async def _run(tool: object, **args: object) -> str:
    result = await tool.execute("call-1", tool.parameters.model_validate(args), None, None)  # type: ignore[attr-defined]
    return "".join(getattr(c, "text", "") for c in result.content)


async def test_read_tools_reach_a_skill_dir_outside_the_workspace(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    tools = _tools(tmp_path, ReadAreas([skill]))
    assert "Run scripts/tag.sh" in await _run(tools["read"], path=str(skill / "SKILL.md"))
    assert "tag.sh" in await _run(tools["ls"], path=str(skill / "scripts"))
    assert "tag.sh" in await _run(tools["find"], pattern="*.sh", path=str(skill))
    assert "git tag" in await _run(tools["grep"], pattern="git tag", path=str(skill))


async def test_write_and_edit_still_refuse_there(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    tools = _tools(tmp_path, ReadAreas([skill]))
    with pytest.raises(Exception, match="outside the workspace"):
        await _run(tools["write"], path=str(skill / "SKILL.md"), content="x")
    with pytest.raises(Exception, match="outside the workspace"):
        await _run(
            tools["edit"], path=str(skill / "SKILL.md"), edits=[{"oldText": "Run", "newText": "x"}]
        )
    assert "Run scripts" in (skill / "SKILL.md").read_text()


async def test_without_areas_and_beside_them_reading_is_confined(tmp_path: Path) -> None:
    skill = _skill(tmp_path)
    other = tmp_path / "home" / "secret.txt"
    other.write_text("secret")
    with pytest.raises(Exception, match="outside the workspace"):
        await _run(_tools(tmp_path, None)["read"], path=str(skill / "SKILL.md"))
    tools = _tools(tmp_path, ReadAreas([skill]))
    with pytest.raises(Exception, match="outside the workspace"):
        await _run(tools["read"], path=str(other))
    link = skill / "escape"
    os.symlink(other, link)
    with pytest.raises(Exception, match="outside the workspace"):
        await _run(tools["read"], path=str(link))
