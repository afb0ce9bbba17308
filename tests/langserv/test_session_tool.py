"""The lsp tool in a session: offered only with a backend, one guideline line in the system
prompt, in plan mode every operation but rename (the act-mode tool comes back after)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from pi_lsp.runtime import RunConfig, SessionOptions, create_agent_session
from pi_lsp.tools.code_intel import IntelAnswer
from pi_lsp.tools.common import ToolError
from pi_lsp.tools.disk_workspace import DiskWorkspace
from pi_lsp.tools.lsp import LspParams, LspTool, ReadOnlyLspTool

GUIDELINE = "Prefer lsp definition/references over grep for code navigation"


class Canned:
    """A CodeIntel that answers every question with no result."""

    def serves(self, path: Path) -> bool:
        return path.suffix == ".py"

    def languages(self) -> str:
        return "*.py"

    async def query(self, method: str, params: dict[str, Any], **_: Any) -> IntelAnswer:
        return IntelAnswer(None)


def session(tmp_path: Path, intel: Any) -> Any:
    config = RunConfig(provider="faux", faux_demo=True)
    return create_agent_session(
        config, DiskWorkspace([tmp_path]), options=SessionOptions(code_intel=intel)
    )


def test_no_backend_no_tool_and_no_guideline(tmp_path: Path) -> None:
    s = session(tmp_path, None)
    assert "lsp" not in [t.name for t in s.tools]
    assert GUIDELINE not in s.agent.state.system_prompt


def test_with_a_backend_the_tool_and_its_guideline(tmp_path: Path) -> None:
    s = session(tmp_path, Canned())
    assert "lsp" in [t.name for t in s.tools]
    assert GUIDELINE in s.agent.state.system_prompt


async def test_plan_mode_keeps_lsp_without_rename_and_act_mode_gets_it_back(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    s = session(tmp_path, Canned())
    s.set_mode("plan")
    (planned,) = [t for t in s.tools if t.name == "lsp"]
    assert isinstance(planned, ReadOnlyLspTool)
    with pytest.raises(ToolError, match="plan mode"):
        await planned.execute(
            "c", LspParams(operation="rename", path="a.py", line=1, symbol="x", newName="y")
        )
    found = await planned.execute(
        "c", LspParams(operation="hover", path="a.py", line=1, symbol="x")
    )
    assert "No hover results" in found.content[0].text  # type: ignore[union-attr]
    s.set_mode("act")
    (acting,) = [t for t in s.tools if t.name == "lsp"]
    assert type(acting) is LspTool


class Refreshing(Canned):
    """A CodeIntel whose configuration can be reloaded (``ServerPool.refresh``)."""

    def __init__(self) -> None:
        self.refreshed = 0

    async def refresh(self) -> bool:
        self.refreshed += 1
        return False


async def test_each_prompted_run_first_reloads_a_changed_server_configuration(
    tmp_path: Path,
) -> None:
    intel = Refreshing()
    s = session(tmp_path, intel)
    assert s.before_run is not None
    await s.before_run()  # what the start of each prompted run awaits
    assert intel.refreshed == 1


async def test_the_editor_backend_passes_the_reload_to_its_fallback_servers() -> None:
    from pi_lsp.lsp.editor.editor_intel import EditorIntel

    servers = Refreshing()
    editor = EditorIntel(cast(Any, None), lambda: cast(Any, None), servers)
    await editor.refresh()  # what a session of the language server front end awaits
    assert servers.refreshed == 1
    assert await EditorIntel(cast(Any, None), lambda: cast(Any, None), None).refresh() is False
