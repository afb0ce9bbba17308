"""Skips under CI: a tier that cannot run fails there instead of skipping.

Outside CI a test whose tool is missing (code-server, Node, ``npm ci``, Neovim 0.11.4, bubblewrap,
ripgrep, Emacs, llama.cpp, acpx, ...) skips with the reason, so a fresh checkout's
``pytest`` stays usable. With ``CI=true`` (what CI services set; ``.ci/run`` installs every
tier's tools first) ``tests/conftest.py`` turns every skip into a failure that keeps the
reason — unless the reason was made with :func:`optional`: a test that is not meant to run in
CI at all (live providers, a thing CI cannot reach, a variant this Python does not have).
A new test therefore cannot make CI green by skipping, whatever helper it uses to skip.
"""

from __future__ import annotations

import os

OPTIONAL = "optional: "
"""Prefix of a skip reason that CI accepts (see :func:`optional`)."""


def in_ci() -> bool:
    """``CI`` is set to a true value (``true``, ``1``, ``yes``; GitHub and GitLab set ``true``)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def optional(reason: str) -> str:
    """A skip reason CI accepts: the test is not part of the CI run by design, not because a
    tool is missing (say which in ``reason``)."""
    return OPTIONAL + reason


def is_optional(reason: str) -> bool:
    # pytest prefixes the message of pytest.skip() with "Skipped: " in the report
    return reason.removeprefix("Skipped: ").startswith(OPTIONAL)


def ci_failure(reason: str) -> str:
    """The failure message that replaces a skip under CI."""
    return (
        f"CI=true: this tier cannot run here and a tier that cannot run fails in CI "
        f"(run `bash .ci/run` to install every tier's tools): {reason.removeprefix('Skipped: ')}"
    )
