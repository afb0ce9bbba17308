"""``profile``: the ACP client profile a scenario runs under — every test that takes it runs
once as the full-featured (Zed-like) client and once as CodeCompanion.nvim
(``tests/acp/harness.py``)."""

from __future__ import annotations

import pytest

from .harness import PROFILES, Profile


@pytest.fixture(params=PROFILES, ids=str)
def profile(request: pytest.FixtureRequest) -> Profile:
    return request.param  # type: ignore[no-any-return]
