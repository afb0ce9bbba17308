"""Revoking an "always allow" rule (``pi/permissions``) takes effect at once: the next such
command asks again, in the session where "always" was answered too (what ``:PiRules`` and
VS Code's rules manager promise). In process: the subject is the permission gate."""

from __future__ import annotations

from pathlib import Path

from .conftest import Start
from .harness import text_reply
from .test_security import bash, faux, start_with_permissions


async def test_a_revoked_rule_asks_again_in_the_same_session(
    pi_in_process: Start, tmp_path: Path
) -> None:
    script = faux(
        tmp_path, bash("git status"), text_reply("ok"), bash("git status"), text_reply("ok")
    )
    h, perms = await start_with_permissions(pi_in_process, script)
    perms.answer("allowAlways")
    sid = await h.run("first")
    assert len(perms.requests) == 1
    (rule,) = (await h.call("pi/permissions", {"op": "list"}))["rules"]
    assert (rule["tool"], rule["pattern"]) == ("bash", "git status")
    assert await h.call("pi/permissions", {"op": "revoke", "id": rule["id"]}) == {"revoked": True}
    perms.answer("allowOnce")
    await h.run("again", sessionId=sid)
    assert len(perms.requests) == 2  # asked again: the rule was the only thing allowing it
