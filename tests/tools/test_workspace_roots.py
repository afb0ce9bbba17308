"""``DiskWorkspace.set_roots``: editors add and remove workspace folders at run time."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.tools import DiskWorkspace, OutsideWorkspaceError


def test_set_roots_keeps_the_cwd_and_changes_confinement(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    ws = DiskWorkspace([a])
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve(str(b / "x.py"))
    ws.set_roots([b, a, b])
    assert ws.cwd == a.resolve()  # the cwd stays put while it is a root
    assert list(ws.roots) == [a.resolve(), b.resolve()]
    assert ws.resolve(str(b / "x.py")) == b.resolve() / "x.py"
    ws.set_roots([c])  # the cwd's folder was removed: the first remaining root takes over
    assert ws.cwd == c.resolve()
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve(str(a / "x.py"))
    ws.set_roots([])  # never left without a root
    assert list(ws.roots) == [c.resolve()]
