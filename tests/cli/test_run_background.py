"""Issue 42 in ``pi-lsp run``: "start the dev server, curl it, then stop it" never blocks the
run, and a background process still running at exit is killed, with a notice."""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.mcp.support import processes_with

from .helpers import clean_env, faux_script, pi_run

SERVER = """
import http.server, pathlib, sys
srv = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
pathlib.Path("port.txt").write_text(str(srv.server_address[1]))
print("serving", flush=True)
srv.serve_forever()
"""
CURL = (
    "until [ -s port.txt ]; do sleep 0.05; done; "
    "python3 -c \"import urllib.request; print('status', urllib.request.urlopen("
    "'http://127.0.0.1:' + open('port.txt').read() + '/').status)\""
)


def call(name: str, **args: object) -> dict[str, object]:
    return {"content": [{"type": "toolCall", "name": name, "arguments": args}]}


def test_start_curl_stop_a_dev_server(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    marker = f"devserver-{uuid.uuid4().hex[:8]}"
    (work / f"{marker}.py").write_text(SERVER)
    script = faux_script(
        tmp_path / "script.json",
        [
            call("bash", command=f"python3 -u {marker}.py", background=True),
            call("bash", command=CURL),
            call("bash_output", id="bg1"),
            call("bash_kill", id="bg1"),
            {"content": [{"type": "text", "text": "Served and stopped."}]},
        ],
    )
    res = pi_run(
        ["run the server", "--cwd", str(work), "--faux-script", str(script), "--yes"],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    assert "status 200" in res.stdout
    assert "Served and stopped." in res.stdout
    assert "background process(es) at exit" not in res.stderr  # it was stopped by the model
    assert processes_with(marker) == []


def test_a_process_left_running_is_killed_at_exit(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    marker = f"left-{uuid.uuid4().hex[:8]}"
    script = faux_script(
        tmp_path / "script.json",
        [
            call("bash", command=f"sh -c 'sleep 600' {marker}", background=True),
            {"content": [{"type": "text", "text": "Left it running."}]},
        ],
    )
    res = pi_run(
        ["start it", "--cwd", str(work), "--faux-script", str(script), "--yes"],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    assert "stopped 1 background process(es) at exit: bg1 (sh -c 'sleep 600'" in res.stderr
    assert processes_with(marker) == []
