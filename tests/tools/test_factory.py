"""create_coding_tools, build_system_prompt, and the schemas the model sees."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from pi_lsp.tools import (
    ALL_TOOL_NAMES,
    BashOptions,
    BashTool,
    DiskWorkspace,
    EditParams,
    GrepParams,
    ProcessRegistry,
    ReadParams,
    build_system_prompt,
    create_coding_tools,
)


def test_default_tool_set_and_order(ws: DiskWorkspace) -> None:
    tools = create_coding_tools(ws)
    assert [t.name for t in tools] == [
        *("read", "bash", "edit", "write", "grep", "find", "ls"),
        *("bash_output", "bash_kill"),
    ]
    assert tuple(t.name for t in tools) == ALL_TOOL_NAMES
    assert all(t.label == t.name for t in tools)
    assert all(t.execution_mode is None for t in tools)  # Pi's built-ins run in parallel


def test_named_subset_and_bash_options(ws: DiskWorkspace) -> None:
    registry = ProcessRegistry()
    tools = create_coding_tools(
        ws, names=["ls", "bash", "ls"], bash=BashOptions(process_registry=registry)
    )
    assert [t.name for t in tools] == ["ls", "bash"]
    bash = tools[1]
    assert isinstance(bash, BashTool)
    assert bash.options.process_registry is registry
    with pytest.raises(ValueError, match="Unknown tool name"):
        create_coding_tools(ws, names=["read", "rm"])


def test_schemas_are_pi_shaped(ws: DiskWorkspace) -> None:
    schemas = {t.name: t.to_tool().parameters for t in create_coding_tools(ws)}
    text = json.dumps(schemas)
    assert "$defs" not in text
    assert "$ref" not in text
    assert "null" not in text
    assert "title" not in text
    assert schemas["read"]["required"] == ["path"]
    assert schemas["read"]["properties"]["offset"] == {
        "description": "Line number to start reading from (1-indexed)",
        "type": "integer",
    }
    assert set(schemas["grep"]["properties"]) == {
        "pattern",
        "path",
        "glob",
        "ignoreCase",
        "literal",
        "context",
        "limit",
    }
    edit = schemas["edit"]
    assert edit["additionalProperties"] is False
    assert edit["required"] == ["path", "edits"]
    assert edit["properties"]["edits"]["items"]["required"] == ["oldText", "newText"]
    assert schemas["bash"]["properties"]["timeout"]["type"] == "number"


def test_arguments_are_coerced_like_the_loop_does() -> None:
    read = ReadParams.model_validate({"path": "a", "offset": "5", "limit": 2.0})
    assert (read.offset, read.limit) == (5, 2)
    grep = GrepParams.model_validate({"pattern": "x", "ignoreCase": "true"})
    assert grep.ignore_case is True
    edit = EditParams.model_validate({"path": "a", "edits": [{"oldText": "o", "newText": "n"}]})
    assert edit.edits[0].old_text == "o"


def test_system_prompt_lists_every_tool_and_the_extra_text(ws: DiskWorkspace, root: Path) -> None:
    tools = create_coding_tools(ws)
    prompt = build_system_prompt(
        ws, tools, extra="Project rule: run make test.", now=datetime(2026, 3, 4, 12, 0)
    )
    assert prompt.startswith("You are an expert coding assistant operating inside pi-lsp")
    assert "Available tools:\n- read: Read file contents\n- bash: " in prompt
    for name in ALL_TOOL_NAMES:
        assert f"\n- {name}: " in prompt
    for rule in (
        "- Use read before edit",
        "- Prefer edit over write for changes to existing files",
        "- Be concise in your responses",
        f"(roots: {root})",
    ):
        assert rule in prompt
    assert "Project rule: run make test." in prompt
    assert prompt.endswith(f"Current date: 2026-03-04\nCurrent working directory: {root}")


def test_system_prompt_for_bash_only(ws: DiskWorkspace) -> None:
    prompt = build_system_prompt(ws, create_coding_tools(ws, names=["read", "bash"]))
    assert "- Use bash for file operations like ls, rg, find" in prompt
    assert "edit:" not in prompt
