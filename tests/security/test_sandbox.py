"""The bwrap command line, and a sandboxed bash that never runs unsandboxed."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.security.sandbox import Bubblewrap, SandboxPolicy, sandbox_argv
from pi_lsp.tools import BashOptions, BashSandbox, BashTool, DiskWorkspace, ToolError
from tests.tools.conftest import call, text

WORKING = Bubblewrap().problem() is None


def test_argv_policy() -> None:
    root = Path("/work/project")
    argv = sandbox_argv("bwrap", ["/bin/bash", "-c", "ls"], cwd=root, policy=SandboxPolicy((root,)))
    joined = " ".join(argv)
    assert argv[0] == "bwrap"
    assert "--ro-bind / /" in joined
    assert "--bind /work/project /work/project" in joined
    assert "--tmpfs /tmp" in joined
    assert "--cap-drop ALL" in joined  # root inside could remount / read-write otherwise
    assert "--die-with-parent" in argv
    assert "--unshare-pid" in argv
    assert "--unshare-net" in argv
    assert argv[-4:] == ["--", "/bin/bash", "-c", "ls"]
    assert joined.index("--tmpfs /tmp") < joined.index("--bind /work/project")
    online = sandbox_argv("bwrap", ["true"], cwd=root, policy=SandboxPolicy((root,), True))
    assert "--unshare-net" not in online


def test_a_missing_or_broken_bwrap_is_reported() -> None:
    assert Bubblewrap("").problem() == "bubblewrap (bwrap) is not installed"
    assert "could not run" in (Bubblewrap("/nonexistent/bwrap").problem() or "")
    assert "does not work here" in (Bubblewrap("/bin/false").problem() or "")


async def test_a_sandboxed_bash_without_a_sandbox_refuses(tmp_path: Path) -> None:
    ws = DiskWorkspace([tmp_path])
    tool = BashTool(ws, BashOptions(sandbox=BashSandbox(Bubblewrap(""))))
    with pytest.raises(ToolError, match="sandbox is unavailable"):
        await call(tool, {"command": f"touch {tmp_path}/ran"})
    assert not (tmp_path / "ran").exists()


@pytest.mark.skipif(not WORKING, reason="no working bubblewrap here")
async def test_sandboxed_bash_writes_only_the_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    tool = BashTool(DiskWorkspace([root]), BashOptions(sandbox=BashSandbox(Bubblewrap())))
    out = text(
        await call(
            tool,
            {
                "command": (
                    f"echo in > in.txt; echo out > {Path.home()}/.pi-sbx-x 2>&1 || echo refused"
                )
            },
        )
    )
    assert (root / "in.txt").read_text() == "in\n"
    assert "refused" in out
    assert not (Path.home() / ".pi-sbx-x").exists()
