"""``pi-lsp run`` keeps its secrets from the commands it runs, like the server does."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import clean_env, faux_script, pi_run

WALK = (
    'p=$PPID; while :; do tr "\\0" "\\n" < /proc/$p/environ; [ "$p" -le 1 ] && break; '
    'p=$(cut -d" " -f4 /proc/$p/stat); done; echo WALKED; env'
)
SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-test-" + "q" * 30,
    "DATABASE_URL": "postgres://app:cli-db-pass@db/app",
    "DEPLOY_WEBHOOK": "https://hooks.slack.com/services/T0/B0/cli",
}


def test_no_secret_in_the_environment_of_the_command_or_its_ancestors(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = faux_script(
        tmp_path / "s.json",
        [
            {"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": WALK}}]},
            {"content": [{"type": "text", "text": "done"}]},
        ],
    )
    env = clean_env(tmp_path, **SECRETS)
    res = pi_run(["look", "--cwd", str(work), "--faux-script", str(script), "--yes", "--json"], env)
    assert res.returncode == 0, res.stderr
    ends = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    (end,) = [e["event"] for e in ends if e["event"]["type"] == "tool_execution_end"]
    out = "".join(b.get("text", "") for b in end["result"]["content"])
    assert "WALKED" in out
    assert out.count("PI_LSP_DATA_DIR=") >= 2  # pi-lsp run's environment was read, and env
    for value in SECRETS.values():
        assert value not in out
    assert "cli-db-pass" not in out
