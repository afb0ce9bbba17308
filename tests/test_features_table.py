"""docs/features.md cannot claim what no test proves: every row of its table has an evidence
section whose statuses match the table, every Y or P names a test, every Y a pytest test
(the suite runs it), and every cited test exists — ``path::function`` for Python (a
``def``), ``path::title`` for the editors' tests (the title as written in the file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "features.md"
FRONT_ENDS = ("VS Code", "Neovim", "ACP", "`pi-lsp run`")
STATUSES = {"Y", "P", "N", "n/a"}
ROW = re.compile(r"^\| (\d+) \| (.+?) \|((?: [^|]+ \|){4})\s*$")
BULLET = re.compile(r"^- (.+?) — (Y|P|N|n/a)\b(.*)$")
CITATION = re.compile(r"`([^`\s]+?\.(?:py|ts|js|mjs|lua))::([^`]+)`")


def table(text: str) -> dict[str, tuple[str, list[str]]]:
    rows: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        found = ROW.match(line)
        if found:
            cells = [c.strip() for c in found.group(3).strip(" |").split("|")]
            rows[found.group(1)] = (found.group(2), cells)
    return rows


def evidence(text: str) -> dict[str, dict[str, tuple[str, str]]]:
    """Row number → front end → (status, the bullet's text with its continuation lines)."""
    out: dict[str, dict[str, tuple[str, str]]] = {}
    row: str | None = None
    last: str | None = None
    for line in text.splitlines():
        heading = re.match(r"^### (\d+) ", line)
        if heading:
            row, last = heading.group(1), None
            out[row] = {}
            continue
        if row is None:
            continue
        bullet = BULLET.match(line)
        if bullet:
            last = bullet.group(1)
            out[row][last] = (bullet.group(2), bullet.group(3))
        elif last is not None and line.startswith("  "):
            status, body = out[row][last]
            out[row][last] = (status, body + " " + line.strip())
        elif not line.strip() or line.startswith("#"):
            last = None
    return out


def missing(path: str, name: str) -> str | None:
    """Why ``path::name`` is not a test in this checkout (``None``: it is)."""
    file = ROOT / path
    if not file.is_file():
        return f"{path} does not exist"
    text = file.read_text(encoding="utf-8")
    if path.endswith(".py"):
        if not re.search(rf"^(?:async )?def {re.escape(name)}\(", text, re.M):
            return f"{path} has no test function {name}"
    elif name not in text:
        return f"{path} has no test titled {name!r}"
    return None


def problems(text: str) -> list[str]:
    out: list[str] = []
    rows = table(text)
    proofs = evidence(text)
    if not rows:
        return ["the feature table has no rows"]
    for number, (feature, cells) in rows.items():
        if len(cells) != len(FRONT_ENDS):
            out.append(f"row {number}: {len(cells)} front-end columns")
            continue
        found = proofs.get(number)
        if found is None:
            out.append(f"row {number} ({feature}) has no evidence section")
            continue
        for front_end, cell in zip(FRONT_ENDS, cells, strict=True):
            if cell not in STATUSES:
                out.append(f"row {number}, {front_end}: unknown status {cell!r}")
                continue
            if front_end not in found:
                out.append(f"row {number}, {front_end}: no evidence line")
                continue
            status, body = found[front_end]
            if status != cell:
                out.append(f"row {number}, {front_end}: table says {cell}, evidence {status}")
            cited = CITATION.findall(body)
            if cell in ("Y", "P") and not cited:
                out.append(f"row {number}, {front_end}: {cell} without a test")
            if cell == "Y" and not any(
                p.startswith("tests/") and p.endswith(".py") for p, _ in cited
            ):
                out.append(f"row {number}, {front_end}: Y without a pytest test")
            for path, name in cited:
                why = missing(path, name.strip())
                if why:
                    out.append(f"row {number}, {front_end}: {why}")
    return out


def test_every_claim_of_the_feature_table_names_tests_that_exist() -> None:
    assert problems(PAGE.read_text(encoding="utf-8")) == []


def test_rows_47_and_48_and_language_intelligence_are_in_the_table() -> None:
    rows = table(PAGE.read_text(encoding="utf-8"))
    assert "subagents" in rows["47"][0].lower()
    assert "@" in rows["48"][0]
    assert any("language intelligence" in feature.lower() for feature, _ in rows.values())


@pytest.mark.parametrize(
    ("page", "problem"),
    [
        (
            "| 1 | X | Y | N | N | N |\n\n### 1 X\n- VS Code — Y: `tests/nope.py::test_x`\n"
            "- Neovim — N\n- ACP — N\n- `pi-lsp run` — N\n",
            "tests/nope.py does not exist",
        ),
        (
            "| 1 | X | Y | N | N | N |\n\n### 1 X\n- VS Code — Y: "
            "`tests/test_features_table.py::test_no_such_test`\n"
            "- Neovim — N\n- ACP — N\n- `pi-lsp run` — N\n",
            "has no test function test_no_such_test",
        ),
        (
            "| 1 | X | Y | N | N | N |\n\n### 1 X\n- VS Code — Y: "
            "`editors/neovim/tests/suite.lua::a title nobody wrote`\n"
            "- Neovim — N\n- ACP — N\n- `pi-lsp run` — N\n",
            "Y without a pytest test",
        ),
        (
            "| 1 | X | Y | N | N | N |\n\n### 1 X\n- VS Code — Y\n"
            "- Neovim — N\n- ACP — N\n- `pi-lsp run` — N\n",
            "Y without a test",
        ),
        (
            "| 1 | X | Y | N | N | N |\n\n### 1 X\n- VS Code — P: "
            "`tests/test_features_table.py::test_rows_47_and_48_and_language_intelligence_are_in_the_table`\n"
            "- Neovim — N\n- ACP — N\n- `pi-lsp run` — N\n",
            "table says Y, evidence P",
        ),
    ],
)
def test_a_claim_without_a_real_test_is_caught(page: str, problem: str) -> None:
    assert any(problem in p for p in problems(page)), problems(page)
