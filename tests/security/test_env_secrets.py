"""The scrub: credential-looking names and values go, the user's allow-list comes back."""

from __future__ import annotations

import pytest

from pi_lsp.ai.env_keys import scrub_env
from pi_lsp.security.env_secrets import is_secret_name, is_secret_value

SECRET_NAMES = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "API_KEY",
    "KEY",
    "STRIPE_KEY",
    "GPG_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GITHUB_TOKEN",
    "HF_TOKEN",
    "NPM_TOKEN",
    "CI_JOB_TOKEN",
    "SLACK_BOT_TOKEN",
    "CLIENT_SECRET",
    "SECRET",
    "DB_PASSWORD",
    "MYSQL_PWD",
    "PGPASSWORD",
    "REDIS_PASS",
    "SENTRY_DSN",
    "DATABASE_URL",
    "REDIS_URL",
    "MONGODB_URL",
    "SERVICE_PRIVATE_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AZURE_CREDENTIALS_JSON",
    "SLACK_WEBHOOK_URL",
    "DISCORD_WEBHOOK",
    "ANTHROPIC_OAUTH_TOKEN",
    "SESSION_COOKIE",
    "SSH_AUTH_SOCK",
    "db_password",
    "my_api_key",
    "GH_PAT",
    "GITHUB_PAT",
    "PAT",
    "AUTH_HEADER",
    "DOCKER_AUTH_CONFIG",
    "HTTP_AUTHORIZATION",
    "AUTHORIZATION",
]
PLAIN_NAMES = [
    "PATH",
    "HOME",
    "PWD",
    "OLDPWD",
    "SHELL",
    "LANG",
    "TERM",
    "USER",
    "EDITOR",
    "KEYBOARD",
    "MONKEY",
    "TOKENIZERS_PARALLELISM",
    "PI_LSP_DATA_DIR",
    "VIRTUAL_ENV",
    "LS_COLORS",
    "KEY_PATH_HINT",
    "XDG_DATA_HOME",
    "PYTHONPATH",
    "GIT_AUTHOR_NAME",
    "COMPAT",
    "PATCH_LEVEL",
    "SPATIAL_INDEX",
    "AUTHOR",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", PLAIN_NAMES)
def test_plain_names(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "value",
    [
        "postgres://user:pass@db:5432/app",
        "https://deploy:tok@git.example.com/x.git",
        "amqp://guest:guest@localhost//",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nabc",
        "-----BEGIN RSA PRIVATE KEY-----",
        "sk-proj-" + "A" * 30,
        "sk-ant-api03-" + "b" * 30,
        "ghp_" + "c" * 36,
        "github_pat_" + "d" * 40,
        "xoxb-1234-5678-abcdefgh",
        "AKIAIOSFODNN7EXAMPLE",
        "glpat-" + "e" * 20,
        "AIza" + "f" * 35,
        "hf_" + "g" * 34,
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
        "https://hooks.slack.com/services/T0/B0/xyz",
        "https://discord.com/api/webhooks/1/abc",
        "Bearer-less ghp_" + "h" * 36 + " inside text",
        "ghs_" + "i" * 36,  # a GitHub App token
        "Bearer abcdefghij0123456789",
        "bearer eyJhbGciOiJIUzI1NiJ9abcdef",
        "Authorization: token 0123456789abcdef",
        "Basic dXNlcjpwYXNzd29yZA==",
        '{"auths": {"registry.example.com": {"auth": "dXNlcjpwYXNz"}}}',
    ],
)
def test_secret_values(value: str) -> None:
    assert is_secret_value(value)


@pytest.mark.parametrize(
    "value",
    [
        "/usr/local/bin:/usr/bin",
        "http://127.0.0.1:8080/v1",
        "ssh://git@github.com/org/repo.git",
        "https://example.com/path@version",
        "en_US.UTF-8",
        "task-runner",
        "xterm-256color",
        "desk-" + "a" * 30,  # "sk-" inside a word is not a key prefix
        "Basic configuration",
        "the bearer of this",
        "token based authentication",
        '{"auths": {}}',
    ],
)
def test_plain_values(value: str) -> None:
    assert not is_secret_value(value)


def test_scrub_removes_by_name_value_and_extra_and_keeps_allowed() -> None:
    env = {
        "PATH": "/bin",
        "DATABASE_URL": "postgres://u:p@h/d",
        "UPSTREAM": "https://u:p@h/x",
        "MY_LLM": "some-opaque-value",
        "GITHUB_TOKEN": "ghp_" + "x" * 36,
        "OPENAI_API_KEY": "sk-x",
    }
    out = scrub_env(env, allow={"GITHUB_TOKEN"}, extra_secrets={"MY_LLM"})
    assert out == {"PATH": "/bin", "GITHUB_TOKEN": env["GITHUB_TOKEN"]}


def test_scrub_drops_the_variables_naming_credential_files() -> None:
    env = {"PATH": "/bin", "KUBECONFIG": "/home/u/.kube/prod", "NETRC": "/home/u/.netrc"}
    assert scrub_env(env) == {"PATH": "/bin"}
    assert scrub_env(env, allow={"KUBECONFIG"}) == {"PATH": "/bin", "KUBECONFIG": env["KUBECONFIG"]}
