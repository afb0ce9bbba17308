"""The suite's xdist scheduler: pytest-xdist's ``loadscope`` scheduling where a *unit* of work
is a group of modules (``tests/conftest.py``'s ``_GROUPS``) or else one test.

Why not xdist's own ``loadgroup``: pytest-xdist 3.8 names a test's group by appending
``@group`` to ``item._nodeid``, which pytest 9.2 no longer reads (a node's id is built from
``_id``), so every test arrives at the scheduler without its group and the grouped modules are
spread over the workers. Here the group comes from the test's path instead, which does not
depend on either library's internals beyond xdist's documented ``pytest_xdist_make_scheduler``
hook and its ``LoadScopeScheduling`` class.

Units are handed out in collection order (the conftest sorts the slow tiers first, the VS Code
chain before them all), not by size: the first unit is the longest chain, so it starts at once
and the other worker runs everything else meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling


class GroupScheduling(LoadScopeScheduling):
    """One work unit per group of modules (``groups``: module path relative to the rootdir →
    group name), one per test elsewhere."""

    def __init__(
        self, config: pytest.Config, log: Producer | None, groups: Mapping[str, str]
    ) -> None:
        super().__init__(config, log)
        self._groups = dict(groups)
        # keep the collection's order; LoadScopeScheduling would sort units by test count
        config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        group = self._groups.get(nodeid.split("::", 1)[0])
        return nodeid if group is None else f"group:{group}"
