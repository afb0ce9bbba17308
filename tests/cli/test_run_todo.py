"""``pi-lsp run`` prints the todo list each time the model writes it (a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from .helpers import clean_env, faux_script, pi_run


def _todo(*statuses: str) -> dict[str, object]:
    items = [
        {"id": str(i), "content": f"step {i}", "status": status}
        for i, status in enumerate(statuses, 1)
    ]
    return {"content": [{"type": "toolCall", "name": "todo", "arguments": {"todos": items}}]}


def test_the_todo_list_is_printed_as_it_changes(tmp_path: Path) -> None:
    script = faux_script(
        tmp_path / "script.json",
        [
            _todo("in_progress", "pending"),
            _todo("completed", "in_progress"),
            {"content": [{"type": "text", "text": "Finished."}]},
        ],
    )
    res = pi_run(
        ["do two things", "--cwd", str(tmp_path), "--faux-script", str(script)],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    assert "Todo (0/2):\n  [~] step 1\n  [ ] step 2\n" in res.stdout
    assert "Todo (1/2):\n  [x] step 1\n  [~] step 2\n" in res.stdout
    assert "Finished." in res.stdout


def test_json_output_has_todo_update_events(tmp_path: Path) -> None:
    script = faux_script(
        tmp_path / "script.json",
        [_todo("in_progress"), {"content": [{"type": "text", "text": "ok"}]}],
    )
    res = pi_run(
        ["go", "--cwd", str(tmp_path), "--faux-script", str(script), "--json"],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    updates = [e["event"] for e in events if e["event"]["type"] == "todo_update"]
    assert updates == [
        {
            "type": "todo_update",
            "items": [{"id": "1", "content": "step 1", "status": "in_progress"}],
        }
    ]


def test_plan_flag_keeps_the_files_untouched(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("original\n")
    script = faux_script(
        tmp_path / "script.json",
        [
            {
                "content": [
                    {
                        "type": "toolCall",
                        "name": "write",
                        "arguments": {"path": "a.txt", "content": "x"},
                    },
                    {"type": "toolCall", "name": "bash", "arguments": {"command": "rm a.txt"}},
                ]
            },
            {"content": [{"type": "text", "text": "Plan: change a.txt."}]},
        ],
    )
    res = pi_run(
        ["plan it", "--cwd", str(tmp_path), "--faux-script", str(script), "--plan", "--yes"],
        clean_env(tmp_path),
    )
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "a.txt").read_text() == "original\n"
    assert "plan mode, where write is not available" in res.stdout
    assert "plan mode" in res.stdout
    assert "Plan: change a.txt." in res.stdout
