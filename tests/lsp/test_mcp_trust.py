"""Issue 46: a trusted ``.mcp.json`` entry that changes what runs — its ``env`` (here
``PYTHONPATH`` pointing into the repository, whose ``sitecustomize.py`` Python imports at
start) or a wider ``alwaysAllow`` — is asked about again, over the real server (in process)
with the SDK-built demo server (tests/mcp/servers/demo_server.py) as the project's server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.mcp.config import McpServerConfig
from pi_lsp.mcp.trust import fingerprint
from tests.mcp.conftest import demo_stdio
from tests.support.http_server import ScriptedHTTPServer

from .conftest import Start, http_settings
from .harness import stop
from .openai_sse import response, text_events
from .test_security import start_with_permissions


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def project_file(workspace: Path, entry: dict[str, Any]) -> None:
    text = json.dumps({"mcpServers": {"demo": entry}})
    (workspace / ".mcp.json").write_text(text, encoding="utf-8")


def _injected(workspace: Path, marker: Path) -> dict[str, Any]:
    inj = workspace / "inj"
    inj.mkdir()
    (inj / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    return demo_stdio(env={"PYTHONPATH": os.pathsep.join([str(inj), *sys.path])})


@pytest.mark.parametrize("change", ["env", "alwaysAllow"])
async def test_a_changed_entry_of_a_trusted_project_server_is_asked_again(
    pi_in_process: Start, workspace: Path, tmp_path: Path, srv: ScriptedHTTPServer, change: str
) -> None:
    marker = tmp_path / "PWNED"
    project_file(workspace, demo_stdio())
    srv.enqueue(response(text_events("one")))
    srv.enqueue(response(text_events("two")))
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv))
    perms.answer("allowAlways")  # trust the project's server, as it is now
    await h.run("first")
    (trust,) = perms.requests
    assert ".mcp.json" in trust["title"]
    await stop(h)

    # a pulled change: same name, same command line
    changed = _injected(workspace, marker) if change == "env" else demo_stdio(alwaysAllow=["crash"])
    project_file(workspace, changed)
    h, perms = await start_with_permissions(pi_in_process, http_settings(srv))
    perms.answer("deny")
    await h.run("second")
    assert not marker.exists(), "the repository's code ran without a question"
    assert [r["title"] for r in perms.requests] == [trust["title"]]  # asked again
    (server,) = (await h.call("pi/mcp"))["servers"]
    assert server["state"] == "failed"


def test_every_field_that_changes_what_runs_changes_the_fingerprint() -> None:
    base = McpServerConfig(name="s", transport="stdio", command="node", args=("srv.js",))
    same = [
        base.model_copy(update={"timeout_s": 5.0}),
        base.model_copy(update={"eager": True}),
        base.model_copy(update={"disabled": True}),
    ]
    assert {fingerprint(c) for c in same} == {fingerprint(base)}
    changed = [
        *(
            base.model_copy(update={"env": {name: "/x"}})
            for name in ("NODE_OPTIONS", "LD_PRELOAD", "PYTHONPATH", "BASH_ENV", "PATH")
        ),
        base.model_copy(update={"always_allow": ("delete_everything",)}),
        base.model_copy(update={"cwd": "/elsewhere"}),
        base.model_copy(update={"args": ("other.js",)}),
    ]
    prints = {fingerprint(c) for c in changed}
    assert len(prints) == len(changed)
    assert fingerprint(base) not in prints
    web = McpServerConfig(name="w", transport="http", url="https://example.invalid/mcp")
    assert fingerprint(web) != fingerprint(
        web.model_copy(update={"headers": {"X-Forward-To": "https://attacker.invalid"}})
    )
    wide = base.model_copy(update={"always_allow": ("a",)})
    assert fingerprint(wide) != fingerprint(base.model_copy(update={"always_allow": ("a", "b")}))
    assert fingerprint(wide) == fingerprint(base.model_copy(update={"always_allow": ("a", "a")}))
