"""The ``bash`` sandbox: bubblewrap (``bwrap``) with the policy of docs/tools.md.

Inside: the whole file system read-only (``--ro-bind / /``), a fresh ``/dev`` and ``/proc``
(its own PID namespace, so the server and every other process are invisible), a private
``/tmp`` (a tmpfs that ends with the command), the workspace roots bound writable, the
credential files of ``credential_files.hidden_files`` covered by an empty file, no
capabilities (``--cap-drop ALL``: root inside cannot remount), a new session (no terminal
injection), no network unless allowed (``--unshare-net``), and ``--die-with-parent``: killing
the command's process group (abort, timeout) kills everything in the sandbox.

``Bubblewrap.probe()`` really runs ``bwrap`` once (it can be installed yet fail, e.g. in a
container without user namespaces) and caches the answer; ``start_probe()`` does that in a
thread at start-up. ``PI_LSP_BWRAP`` names another ``bwrap`` binary (empty: none).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BWRAP_ENV = "PI_LSP_BWRAP"
SANDBOX_NAME = "bubblewrap (bwrap)"
PROBE_TIMEOUT = 15.0


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    writable: tuple[Path, ...]
    """Directories bound read-write (the workspace roots)."""
    network: bool = False
    hidden: tuple[Path, ...] = ()
    """Files covered by ``/dev/null`` (credential files: ``credential_files.hidden_files``)."""


def sandbox_argv(bwrap: str, argv: Sequence[str], *, cwd: Path, policy: SandboxPolicy) -> list[str]:
    """``argv`` run by ``bwrap`` under ``policy`` in ``cwd``."""
    args = [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/var/tmp",
    ]
    for root in policy.writable:
        args += ["--bind", str(root), str(root)]
    for path in policy.hidden:  # after the roots: a credential file inside one stays hidden
        args += ["--ro-bind", "/dev/null", str(path)]
    args += [
        "--chdir",
        str(cwd),
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--setenv",
        "TMPDIR",
        "/tmp",
    ]
    if not policy.network:
        args.append("--unshare-net")
    args += ["--", *argv]
    return args


class Bubblewrap:
    def __init__(self, binary: str | None = None) -> None:
        if binary is None:
            configured = os.environ.get(BWRAP_ENV)
            binary = configured if configured is not None else (shutil.which("bwrap") or "")
        self.binary = binary
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._problem: str | None = None
        self._started = False

    def start_probe(self) -> None:
        """Probe in a background thread (idempotent)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._probe, name="pi-sandbox-probe", daemon=True).start()

    def problem(self) -> str | None:
        """Why the sandbox cannot be used (``None``: it works). Waits for the probe."""
        self.start_probe()
        self._done.wait()
        return self._problem

    @property
    def available(self) -> bool:
        return self.problem() is None

    def settle(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for a started probe, so a process that exits without
        its interpreter's teardown (``os._exit``) does not leave the probe's temp dir behind."""
        if self._started:
            self._done.wait(timeout)

    def _probe(self) -> None:
        try:
            self._problem = self._run_probe()
        finally:
            self._done.set()

    def _run_probe(self) -> str | None:
        if not self.binary:
            return f"{SANDBOX_NAME} is not installed"
        with tempfile.TemporaryDirectory(prefix="pi-sandbox-probe-") as tmp:
            root = Path(tmp).resolve()
            argv = sandbox_argv(
                self.binary,
                ["/bin/sh", "-c", "echo ok > probe && cat probe"],
                cwd=root,
                policy=SandboxPolicy((root,)),
            )
            try:
                done = subprocess.run(
                    argv,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=PROBE_TIMEOUT,
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                )
            except (OSError, subprocess.SubprocessError) as exc:
                return f"{SANDBOX_NAME} could not run: {exc}"
        if done.returncode != 0 or done.stdout.strip() != b"ok":
            err = done.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = err[-1] if err else f"exit status {done.returncode}"
            return f"{SANDBOX_NAME} does not work here: {detail}"
        return None

    def wrap(self, argv: Sequence[str], *, cwd: Path, policy: SandboxPolicy) -> list[str]:
        return sandbox_argv(self.binary, argv, cwd=cwd, policy=policy)


_DEFAULT: Bubblewrap | None = None
_DEFAULT_LOCK = threading.Lock()


def default_sandbox() -> Bubblewrap:
    """The process-wide sandbox (probed once)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Bubblewrap()
        return _DEFAULT


def settle_probe(timeout: float = 5.0) -> None:
    """``settle`` the process-wide sandbox's probe, if one was started (before ``os._exit``)."""
    if _DEFAULT is not None:
        _DEFAULT.settle(timeout)
