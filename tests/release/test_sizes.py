"""The artifacts' sizes against the budgets docs/release.md states (its "Sizes" table is read
here, so the documented budget is the enforced one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi_lsp import __version__

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `([^`]+)` \| [^|]+ \| ([\d.]+) MB \|", re.M)


def budgets() -> dict[str, float]:
    text = (ROOT / "docs" / "release.md").read_text()
    rows = {name.replace("X", __version__): float(mb) for name, mb in ROW.findall(text)}
    assert rows, "docs/release.md has no sizes table"
    return rows


@pytest.mark.parametrize("name", sorted(budgets()))
def test_artifact_within_its_budget(dist: Path, name: str) -> None:
    path = dist / name
    assert path.exists(), f"{name} was not built into {dist}"
    size_mb = path.stat().st_size / 1_000_000
    print(f"{name}: {size_mb:.2f} MB (budget {budgets()[name]} MB)")
    assert size_mb <= budgets()[name], f"{name} is {size_mb:.2f} MB, past its budget"
