"""Secrets leave os.environ and /proc/self/environ at start-up, and session redaction follows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from pi_lsp.security import vault
from pi_lsp.sessions import Redactor

CHILD = r"""
import json, os, subprocess, sys
from pi_lsp.security import vault
moved = vault.capture()
seen = subprocess.run(
    ["/bin/sh", "-c", "tr '\\0' '\\n' < /proc/$PPID/environ"],
    capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
).stdout
print(json.dumps({
    "moved": sorted(moved),
    "seen": seen,
    "os_environ": sorted(os.environ),
    "vault_key": vault.get("OPENAI_API_KEY"),
    "proxy_in_process": os.environ.get("HTTPS_PROXY"),
}))
"""


def test_capture_hides_secrets_from_children_and_keeps_them_for_us() -> None:
    key = "sk-test-" + "k" * 30
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.pathsep.join(sys.path),
        "OPENAI_API_KEY": key,
        "UPSTREAM": "https://u:pass-in-url@example.com/",
        "HTTPS_PROXY": "http://user:proxy-pass@proxy:3128",
        "HARMLESS": "visible-1",
    }
    out = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out)
    assert data["moved"] == ["HTTPS_PROXY", "OPENAI_API_KEY", "UPSTREAM"]
    for secret in (key, "pass-in-url", "proxy-pass"):
        assert secret not in data["seen"]
    assert "HARMLESS=visible-1" in data["seen"]
    assert "OPENAI_API_KEY" not in data["os_environ"]
    assert data["vault_key"] == key
    # our own HTTP client still finds an authenticated proxy
    assert data["proxy_in_process"] == env["HTTPS_PROXY"]


@pytest.fixture
def clean_vault() -> Iterator[None]:
    vault.reset_for_tests()
    yield
    vault.reset_for_tests()


def test_redactor_follows_names_marked_later(
    clean_vault: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_VAULT_TEST_LLM", "opaque-model-credential-77")
    redactor = Redactor()
    assert "opaque-model-credential-77" in redactor.text("k=opaque-model-credential-77")
    vault.mark_secret("PI_VAULT_TEST_LLM", harden_process=False)
    assert "PI_VAULT_TEST_LLM" not in os.environ
    assert vault.get("PI_VAULT_TEST_LLM") == "opaque-model-credential-77"
    assert redactor.text("k=opaque-model-credential-77") == "k=[REDACTED]"
    vault.remember_value("passed-in-options-key-1")
    assert redactor.text("passed-in-options-key-1") == "[REDACTED]"


def test_redactor_masks_url_passwords_private_keys_and_tokens(clean_vault: None) -> None:
    r = Redactor({})
    assert r.text("postgres://app:pw-123@db/x") == "postgres://app:[REDACTED]@db/x"
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"
    assert r.text(f"key:\n{pem}\nafter") == "key:\n[REDACTED]\nafter"
    assert r.text("token ghp_" + "a" * 36) == "token [REDACTED]"
    assert r.text("id AKIAIOSFODNN7EXAMPLE") == "id [REDACTED]"
