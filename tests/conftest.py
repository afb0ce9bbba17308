"""Suite-wide fixtures and guards.

- An autouse guard fails any test that tries to reach a non-loopback host (only ``-m live``
  tests may).
- ``live`` tests are skipped unless selected with ``-m live``.
- With ``CI=true`` a skip is a failure that keeps its reason (a tier that cannot run fails in
  CI), unless the reason is ``tests.support.tiers.optional(...)`` (``tests/support/tiers.py``).
- Every test that starts a real process of the product (the server over stdio, ``pi-lsp run``,
  a real editor, the llama.cpp server, the VS Code tiers) is marked ``e2e`` here, by where it
  lives or the fixture it uses, so a new test in those places joins the tier by itself;
  ``pytest -m "not e2e"`` is the fast loop (docs/testing.md).
- The suite runs on pytest-xdist's workers (``-n auto --dist loadgroup``, ``pyproject.toml``):
  tests that share a build or a module-wide server run on one worker (``_GROUPS``), and the
  slow editor tiers are handed out first, so their waiting overlaps the rest.
"""

from __future__ import annotations

import fcntl
import hashlib
import ipaddress
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.tiers import ci_failure, in_ci, is_optional, optional

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}

# The user's own ~/.pi/agent (AGENTS.md, skills, templates: docs/context.md) must not reach
# the prompts the tests build: every session (and every pi-lsp process a test starts) gets an
# empty agent dir; tests of the resources give theirs explicitly.
os.environ["PI_CODING_AGENT_DIR"] = tempfile.mkdtemp(prefix="pi-lsp-test-agent-")


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if not isinstance(host, str):
        return True  # AF_UNIX paths and the like
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class NetworkBlockedError(RuntimeError):
    pass


_E2E_DIRS = {"editors", "real_server", "cli"}
"""Folders under ``tests/`` whose every test starts a real process (``tests/cli``: the
``pi-lsp run`` subprocess; the few in-process tests there are marked by module below)."""
_E2E_MODULE_PREFIXES = ("test_e2e_", "test_editors_")
_E2E_MODULES = {"test_cli.py", "test_bench_smoke.py"}
_IN_PROCESS_CLI_MODULES = {"test_permission.py", "test_prefetch.py"}
_E2E_FIXTURES = {"pi", "lsp_client"}
"""``pi``: the server started as ``python -m pi_lsp`` (tests/lsp/harness.py); ``lsp_client``:
pytest-lsp's own subprocess client."""

_TESTS = Path(__file__).resolve().parent

_GROUPS = {
    "editors/test_vscode.py": "vscode",
    "editors/test_vscode_unit.py": "vscode",
    "real_server/test_vscode_real_model.py": "vscode",
    "real_server/test_llama_wire.py": "llama-wire",
    "real_server/test_llama_responses.py": "llama-responses",
}
"""Modules that run on one worker: the VS Code modules share ``vscode-client/`` (``npm ci``, its
``dist/`` and ``.vsix``, ``test/e2e/test-output``), so they must not run at once; the llama.cpp
modules start one server per module (a module-scoped fixture), which a split module would start
twice.

The suite's own scheduler (``pytest_xdist_make_scheduler`` below, ``tests/support/schedule.py``)
keeps each group on one worker, by path: xdist's ``xdist_group`` marks do not under pytest 9.2.
The modules that share ``vscode-client/`` also hold a lock (``_shared_checkout_lock``) while they
run, so no scheduler can run two of them at once."""

_FIRST_GROUP = "vscode"
"""The longest chain of the suite (the extension's unit/lint/typecheck, then one ``run.mjs`` run:
its host tier, the real-model pass and the UI tier; docs/testing.md#time-budget): handed out
first so everything else runs beside it on the other worker."""

_EXCLUSIVE = frozenset({"vscode"})
"""Groups whose modules must never run at the same time, whatever the scheduler does."""


@pytest.fixture(scope="module", autouse=True)
def _shared_checkout_lock(request: pytest.FixtureRequest) -> Iterator[None]:
    """An exclusive ``flock`` per group in ``_EXCLUSIVE`` for the module's run: another
    worker's module of the group waits (blocked on the lock, no polling) until it is done."""
    group = _module_group(Path(str(request.path)))
    if group not in _EXCLUSIVE:
        yield
        return
    key = hashlib.sha256(str(_TESTS).encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"pi-lsp-tests-{key}-{group}.lock"
    with path.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def is_e2e(item: pytest.Item) -> bool:
    path = Path(str(item.path)).resolve()
    try:
        parts = path.relative_to(_TESTS).parts
    except ValueError:
        return False
    name = parts[-1]
    if parts[0] in _E2E_DIRS and name not in _IN_PROCESS_CLI_MODULES:
        return True
    if name.startswith(_E2E_MODULE_PREFIXES) or name in _E2E_MODULES:
        return True
    return bool(_E2E_FIXTURES.intersection(getattr(item, "fixturenames", ())))


def _group(item: pytest.Item) -> str | None:
    return _module_group(Path(str(item.path)))


def _module_group(path: Path) -> str | None:
    try:
        return _GROUPS.get(path.resolve().relative_to(_TESTS).as_posix())
    except ValueError:
        return None


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` (``pyproject.toml``) with the groups of ``_GROUPS`` kept on one
    worker each; any other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.support.schedule import GroupScheduling

    root = Path(str(config.rootpath))
    groups = {(_TESTS / module).relative_to(root).as_posix(): g for module, g in _GROUPS.items()}
    return GroupScheduling(config, log, groups)


def _long(item: pytest.Item) -> bool:
    """A test handed out before the rest: marked ``slow``, of the llama.cpp tier (each module
    starts its model server; ``test_llama_review.py`` took 118 s in a full run at load ≈ 10),
    or of a group (one unit of several tests). Handed out last, one of them was the tail of
    the run, the other worker idle."""
    return (
        item.get_closest_marker("slow") is not None
        or item.get_closest_marker("real_server") is not None
        or _group(item) is not None
    )


def _distributed(config: pytest.Config) -> bool:
    """The run hands tests out to xdist workers (``-n`` > 0): this process is one of them."""
    return bool(getattr(config, "workerinput", None))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    e2e = pytest.mark.e2e
    for item in items:
        if is_e2e(item):
            item.add_marker(e2e)
    if _distributed(config):
        # the VS Code chain, then the other slow tiers (editors, llama.cpp: mostly waiting on
        # their processes) first, so the other worker runs the rest meanwhile; every worker
        # sorts alike (same collection), and the scheduler keeps this order
        items.sort(key=lambda item: (_group(item) != _FIRST_GROUP, not _long(item)))
    selected = config.getoption("-m") or ""
    if "live" in selected:
        return
    skip = pytest.mark.skip(reason=optional("live provider test: run with -m live and the key set"))
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


def _skip_reason(longrepr: object) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_skip_in_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Under ``CI=true`` turn a skip whose reason is not ``optional(...)`` into a failure."""
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report.longrepr)
    if not is_optional(reason):
        report.outcome = "failed"
        report.longrepr = ci_failure(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under ``CI=true`` a skip (from a mark, a fixture or the test) fails with its reason."""
    outcome = yield
    _fail_skip_in_ci(outcome.get_result())  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """The same for a whole module skipped at import (``pytest.importorskip``)."""
    outcome = yield
    _fail_skip_in_ci(outcome.get_result())  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _no_real_network(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if "live" in request.keywords:
        yield
        return
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(address: Any) -> None:
        if isinstance(address, tuple) and not _is_loopback(address[0]):
            raise NetworkBlockedError(f"test tried to reach a real host: {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        check(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _is_loopback(host):
            raise NetworkBlockedError(f"test tried to resolve a real host: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield
