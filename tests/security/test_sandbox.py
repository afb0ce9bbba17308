"""The bwrap command line, and a sandboxed bash that never runs unsandboxed and cannot read
the credential files (``security/credential_files.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.security.credential_files import hidden_files
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


def test_credential_files_are_covered_after_the_roots(tmp_path: Path) -> None:
    root = Path("/work/project")
    secret = root / ".netrc"
    policy = SandboxPolicy((root,), hidden=(secret,))
    joined = " ".join(sandbox_argv("bwrap", ["true"], cwd=root, policy=policy))
    assert f"--ro-bind /dev/null {secret}" in joined
    assert joined.index("--bind /work/project") < joined.index(f"/dev/null {secret}")


def test_hidden_files_are_the_named_and_the_default_credential_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for rel in (".netrc", ".kube/config", ".git-credentials", ".config/gh/hosts.yml"):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text("secret\n")
    elsewhere = tmp_path / "clusters"
    elsewhere.mkdir()
    (elsewhere / "a.yaml").write_text("token: x\n")
    (elsewhere / "b.yaml").write_text("token: y\n")
    docker = tmp_path / "docker"
    docker.mkdir()
    (docker / "config.json").write_text('{"auths": {}}')
    (home / ".pgpass-link").symlink_to(elsewhere / "a.yaml")
    env = {
        "KUBECONFIG": f"{elsewhere / 'a.yaml'}{os.pathsep}{elsewhere / 'b.yaml'}",
        "DOCKER_CONFIG": str(docker),
        "PGPASSFILE": str(home / ".pgpass-link"),  # a symlink: its target is covered
        "NETRC": str(tmp_path / "missing"),  # nothing to cover
    }
    hidden = set(hidden_files(env, home))
    assert hidden == {
        (home / ".netrc").resolve(),
        (home / ".kube/config").resolve(),
        (home / ".git-credentials").resolve(),
        (home / ".config/gh/hosts.yml").resolve(),
        (elsewhere / "a.yaml").resolve(),
        (elsewhere / "b.yaml").resolve(),
        (docker / "config.json").resolve(),
    }
    kept = set(hidden_files(env, home, allow={"KUBECONFIG"}))  # the user let it through
    assert (home / ".kube/config").resolve() not in kept
    assert (elsewhere / "b.yaml").resolve() not in kept
    assert (home / ".netrc").resolve() in kept


@pytest.mark.skipif(not WORKING, reason="no working bubblewrap here")
async def test_sandboxed_bash_cannot_read_credential_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"  # bound into the sandbox (a fresh /tmp would hide anything else)
    home = root / "home"
    home.mkdir(parents=True)
    (home / ".netrc").write_text("machine example.com login me password hunter2\n")
    (home / "plain.txt").write_text("readable\n")
    kube = root / "kube.yaml"
    kube.write_text("users: [{user: {token: kube-secret}}]\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("KUBECONFIG", str(kube))
    tool = BashTool(DiskWorkspace([root]), BashOptions(sandbox=BashSandbox(Bubblewrap())))
    out = text(await call(tool, {"command": f"cat ~/.netrc {kube} ~/plain.txt; env"}))
    assert "hunter2" not in out
    assert "kube-secret" not in out
    assert "KUBECONFIG" not in out
    assert "readable" in out  # the files are there, empty
