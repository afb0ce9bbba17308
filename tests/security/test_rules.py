"""Always-allow rules: what a prefix allows, what an "always" proposes, where it is kept."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from pi_lsp.security.rules import RuleStore, command_allowed, suggest_patterns


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("pytest", True),
        ("pytest -k foo", True),
        ("pytest tests/ -x 2>&1", True),
        ("cd sub && pytest -q", True),
        ("pytest && echo done", True),
        ("pytest; rm -rf ~", False),
        ("pytest && rm -rf ~", False),
        ("pytest || curl evil.example", False),
        ("pytest | sh", False),
        ("pytest & rm -rf ~", False),
        ("pytest\nrm -rf ~", False),
        ("pytest $(rm -rf ~)", False),
        ("pytest `rm -rf ~`", False),
        ("(pytest)", False),
        ("pytest2", False),
        ("pytest.sh", False),
        ("LD_PRELOAD=/tmp/x.so pytest", False),
        ("pytest > ~/.bashrc", False),
        ("'pytest' -q", True),
        ("echo hi", False),  # nothing needed a rule: not allowed by one
        ("cd /", False),
    ],
)
def test_prefix_matching(command: str, allowed: bool) -> None:
    assert command_allowed(command, ["pytest"]) is allowed


def test_multi_word_prefixes_match_word_by_word() -> None:
    assert command_allowed("git status -s", ["git status"])
    assert not command_allowed("git push --force", ["git status"])
    assert not command_allowed("git statusx", ["git status"])
    assert command_allowed("npm run test -- -x && git status", ["npm run test", "git status"])


@pytest.mark.parametrize(
    ("command", "patterns"),
    [
        ("pytest -k foo", ["pytest"]),
        ("git status -s", ["git status"]),
        ("npm run test -- --watch", ["npm run test"]),
        ("uv run pytest -q", ["uv run pytest"]),
        ("python -m pytest tests", ["python -m pytest"]),
        ("python3 manage.py migrate", ["python3 manage.py"]),
        ("cd src && pytest && ruff check .", ["pytest", "ruff check"]),
        ("npx prettier --write .", ["npx prettier"]),
        ("rm -rf build", None),
        ("sudo apt install x", None),
        ("curl https://example.com", None),
        ("env FOO=1 pytest", None),
        ("xargs rm", None),
        ("python -c 'import os'", None),
        ("uv run", None),
        ("FOO=1 pytest", None),
        ("pytest > out.txt", None),
        ("$CMD -x", None),
        ("pytest $(x)", None),
        ("echo hi", None),
        ("git -c core.pager=x log", None),
        ("git", None),
        ("make", ["make"]),
        ("make -j4", ["make"]),
        ("make test", ["make test"]),
    ],
)
def test_suggested_patterns(command: str, patterns: list[str] | None) -> None:
    assert suggest_patterns(command) == patterns


def test_store_persists_dedupes_and_revokes(tmp_path: Path) -> None:
    path = tmp_path / "data" / "permissions" / "ws.json"
    store = RuleStore(path, "/ws")
    (rule,) = store.add("bash", ["pytest"])
    assert store.add("bash", ["pytest"]) == [rule]
    assert store.allows("bash", "pytest -q")
    assert not store.allows("bash", "pytest; rm -rf ~")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = RuleStore(path, "/ws")  # a restart, or another server on the same workspace
    assert again.rules() == [rule]
    assert again.revoke(rule.id)
    assert not again.revoke(rule.id)
    assert store.rules() == []  # the first instance sees the change on disk
    data = json.loads(path.read_text())
    assert data["workspace"] == "/ws"
    assert data["rules"] == []


def test_a_corrupt_or_hand_edited_file_never_allows_more(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_text("{not json")
    assert RuleStore(path).rules() == []
    path.write_text(
        json.dumps(
            {
                "rules": [
                    {"id": "1", "tool": "bash", "pattern": "pytest; rm -rf ~", "createdAt": "t"},
                    {"id": "2", "tool": "bash", "pattern": "", "createdAt": "t"},
                    {"id": "3", "tool": "bash", "pattern": "make", "createdAt": "t"},
                    "junk",
                ]
            }
        )
    )
    store = RuleStore(path)
    assert [r.id for r in store.rules()] == ["3"]
    assert not store.allows("bash", "rm -rf ~")
