"""What counts as a secret environment variable, by name or by value, and the scrub.

``is_secret_name`` matches credential-looking names (``*_KEY``, ``*_TOKEN``, ``*_SECRET``,
``*PASSWORD*``, ``*_PWD``, ``*_DSN``, ``*_CREDENTIALS*``, ``*_PAT`` (personal access tokens:
``GH_PAT``), ``*_AUTH_HEADER`` / ``*AUTHORIZATION`` / ``*_AUTH_CONFIG``, ``DATABASE_URL``,
webhook URLs …); ``is_secret_value`` matches credential-looking values whatever the name
(``scheme://user:password@``, PEM private keys, well-known token prefixes such as ``sk-``,
``ghp_``, ``github_pat_``, ``xoxb-``, ``AKIA``, ``glpat-``, an HTTP ``Authorization`` value
such as ``Bearer …`` / ``Basic …``, a Docker ``"auth"`` entry). ``scrub_env`` drops both, and
the variables that point a tool at a credential file (``credential_files.FILE_VARIABLES``:
``KUBECONFIG``, ``NETRC`` …), keeping names the user allowed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from .credential_files import FILE_VARIABLES

_NAME_PATTERNS = (
    r"(^|_)(API_?)?KEY(_ID)?$",  # *_KEY, *_API_KEY, *_KEY_ID, KEY
    r"(^|_)(ACCESS_|PRIVATE_|SECRET_|SIGNING_|ENCRYPTION_|MASTER_)KEY",
    r"(^|_)(AUTH_|ACCESS_|REFRESH_|ID_|BEARER_|SESSION_|API_)?TOKEN(S)?($|_)",
    r"SECRET",
    r"PASSW(OR)?D",
    r"(^|_)PASS$",
    r"(^|_)PWD$",
    r"(^|_)DSN$",
    r"CREDENTIAL",
    r"(^|_)COOKIE",
    r"(^|_)SESSION_ID$",
    r"(^|_)OAUTH",
    r"(^|_)AUTH(ORIZATION)?(_(HEADERS?|CONFIG|JSON|STRING|VALUE))?$",  # AUTH_HEADER …
    r"(^|_)PAT$",  # a personal access token: GH_PAT, GITHUB_PAT, PAT
    r"PRIVATE",
    r"WEBHOOK",
    r"(^|_)(DATABASE|DB|REDIS|MONGO(DB)?|POSTGRES(QL)?|MYSQL|AMQP|RABBITMQ|BROKER)_URL$",
    r"(^|_)CONNECTION_STRING$",
    r"^AWS_ACCESS_KEY_ID$",
    r"^NPM_CONFIG__AUTH",
    r"_AUTH_?TOKEN$",
    r"^(SSH_AUTH_SOCK|GPG_AGENT_INFO)$",
)
_SECRET_NAME = re.compile("|".join(_NAME_PATTERNS), re.IGNORECASE)

_SAFE_NAMES = frozenset(
    {
        # look like credentials to the patterns above but never are
        "PWD",
        "OLDPWD",
        "KEYTIMEOUT",
        "TOKENIZERS_PARALLELISM",
        "PI_LSP_DATA_DIR",
    }
)

URL_CREDENTIALS = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)([^/\s@]+)@")
"""``scheme://user:password@``: group 2 is the password."""
PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
    re.DOTALL,
)
TOKEN = re.compile(
    r"(?<![A-Za-z0-9])("
    r"sk-[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic (sk-ant-…, sk-proj-…)
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|(?:AKIA|ASIA)[A-Z0-9]{16}"  # AWS access key id
    r"|glpat-[A-Za-z0-9_-]{16,}"  # GitLab
    r"|AIza[0-9A-Za-z_-]{30,}"  # Google API key
    r"|(?:sk|rk|pk)_live_[A-Za-z0-9]{16,}"  # Stripe
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|npm_[A-Za-z0-9]{30,}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*"  # a JWT
    r")"
)
"""Well-known token formats, whole."""
WEBHOOK_URL = re.compile(
    r"https://(?:hooks\.slack\.com/|discord(?:app)?\.com/api/webhooks/"
    r"|[A-Za-z0-9.-]+\.webhook\.office\.com/)\S*"
)
AUTH_HEADER = re.compile(
    r"(?i:authorization)\s*:\s*[A-Za-z-]+\s+\S{8,}"  # the whole header
    r"|(?<![A-Za-z0-9])(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}=*"
    r"|(?<![A-Za-z0-9])(?:Basic|BASIC)\s+(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{12,}={0,2}"
    r"(?![A-Za-z0-9])"  # base64 of user:password (plain words are not)
)
"""An HTTP ``Authorization`` value (``Bearer <token>``, ``Basic <base64>``) or header."""
DOCKER_AUTH = re.compile(r'"(?:auth|identitytoken|registrytoken)"\s*:\s*"[^"\s]{8,}"', re.I)
"""A Docker registry credential in a ``config.json`` / ``DOCKER_AUTH_CONFIG`` value."""
_VALUE_PATTERNS = (URL_CREDENTIALS, PRIVATE_KEY_BLOCK, TOKEN, WEBHOOK_URL, AUTH_HEADER, DOCKER_AUTH)
_MAX_VALUE_SCAN = 16_384


def is_secret_name(name: str) -> bool:
    """True for variables whose name says they hold a credential."""
    return name not in _SAFE_NAMES and _SECRET_NAME.search(name) is not None


def is_secret_value(value: str) -> bool:
    """True for values that look like a credential whatever the variable is called."""
    head = value[:_MAX_VALUE_SCAN]
    return any(p.search(head) is not None for p in _VALUE_PATTERNS)


def is_secret(name: str, value: str) -> bool:
    return is_secret_name(name) or is_secret_value(value)


def scrub_env(
    env: Mapping[str, str],
    *,
    allow: Collection[str] = frozenset(),
    extra_secrets: Collection[str] = frozenset(),
) -> dict[str, str]:
    """A copy of ``env`` without secrets: credential-looking names or values, the variables
    naming a credential file, and the names in ``extra_secrets`` (e.g. the configured
    ``apiKeyEnv``). Names in ``allow`` pass through."""
    return {
        k: v
        for k, v in env.items()
        if k in allow
        or (k not in extra_secrets and k not in FILE_VARIABLES and not is_secret(k, v))
    }
