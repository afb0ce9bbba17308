"""``pi-lsp run``'s first provider request, sent while the rest of the program loads.

Importing what a run needs (asyncio, httpx, pydantic, the agent, the tools) takes ≈ 250 ms,
longer than a local model server needs for its first token. Yet the first request of a fresh
session depends on none of it: for the same arguments, directory, date and pi-lsp code it is
the same bytes every time, but for the prompt and the key. So:

1. after a run's first request was answered with success, ``Prefetch.record`` keeps it as a
   template in the cache directory (``requests/<key>.json``, mode 0600): method, URL, headers
   and body, with the prompt and the API key cut out — a template never holds a secret;
2. the next run with the same key (``start``, called by ``main`` before the heavy imports)
   fills in the prompt and the key and sends the request from a thread at once;
3. when the run builds its real first request, ``cli.prefetch_transport`` compares it byte
   for byte with what was sent. Equal: the response already under way is the answer. Not
   equal (a stale template): the early request is closed unread, the real one is sent, and
   the template is replaced. The model only ever answers the request the run built.

The key of a template hashes everything the request is made from that ``start`` can see
cheaply: the arguments, the resolved directory and provider, the date (the system prompt
has it), ``PI_CACHE_RETENTION``, pi-lsp's version and the size and time of its source files
(so an edited checkout never reuses an old template). Only a fresh session with a real
provider qualifies: not ``--resume``, ``--demo`` or a faux model, not behind a proxy (httpx
would route the real request through it). ``PI_LSP_NO_PREFETCH=1`` turns it all off.

Standard library only, and nothing is imported in the sending thread. The CLI layer.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn
from urllib.parse import urlsplit

from .. import __version__
from ..ai.endpoints import connect_timeout_for_host
from ..ai.env_keys import get_env_api_key
from ..ai.tls import ssl_context
from ..runtime.cache_dir import cache_dir
from ..runtime.providers import default_provider
from ..security import vault
from .args import build_parser

if TYPE_CHECKING:
    import ssl

log = logging.getLogger(__name__)

DISABLE_ENV = "PI_LSP_NO_PREFETCH"
TEMPLATE_FORMAT = 1
KEY_MARK = "\x00key\x00"
"""Stands for the API key in a template's header values (a header value has no NUL)."""
TEMPLATE_MAX_AGE_S = 3 * 24 * 3600
"""Templates are keyed by date: older ones are deleted when a new one is written."""
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")
_SENTINEL = "\x01pi-lsp prompt\x02"
_SECRET_HEADER_WORDS = frozenset(
    ("authorization", "auth", "key", "token", "secret", "cookie", "password", "session")
)
"""A header whose name has one of these words may only hold the key (cut out of templates)."""
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


class _QuietParser(argparse.ArgumentParser):
    """The run's own parser, raising instead of printing: the run reports bad arguments."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise ValueError(message or "exit")


# ----------------------------------------------------------------------------- the key


def _proxied() -> bool:
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in _PROXY_VARIABLES)


def code_fingerprint(package_dir: Path = _PACKAGE_DIR) -> list[int]:
    """``[files, total size, newest mtime]`` of pi-lsp's ``.py`` files (≈ 1 ms)."""
    count = size = newest = 0
    pending = [str(package_dir)]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append(entry.path)
                elif entry.name.endswith(".py"):
                    stat = entry.stat()
                    count += 1
                    size += stat.st_size
                    newest = max(newest, stat.st_mtime_ns)
    return [count, size, newest]


_CONTEXT_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


def context_signature(cwd: Path) -> list[Any]:
    """Sizes and times of what the system prompt's project context comes from (docs/
    context.md), cheaply: the context files of the agent dir and of every directory up from
    ``cwd``, and the times of the directories skills, templates and SYSTEM.md live in. A
    change there makes a new template instead of sending a stale one (which the run would
    not use, but the provider would answer)."""
    agent = os.environ.get("PI_CODING_AGENT_DIR") or str(Path.home() / ".pi" / "agent")
    dirs = [Path(agent), *([cwd, *cwd.parents])]
    out: list[Any] = []
    for d in dirs:
        names = [*_CONTEXT_NAMES, ".pi", ".agents", ".claude", "skills", "prompts", "SYSTEM.md"]
        names.append("APPEND_SYSTEM.md")
        for name in names:
            try:
                st = os.stat(d / name)
            except OSError:
                continue
            out.append([str(d / name), st.st_size, st.st_mtime_ns])
    return out


def template_key(args: argparse.Namespace, provider: str, cwd: Path) -> str:
    import hashlib

    facts: dict[str, Any] = {
        "format": TEMPLATE_FORMAT,
        "version": __version__,
        "code": code_fingerprint(),
        "provider": provider,
        "cwd": str(cwd),
        "date": time.strftime("%Y-%m-%d"),
        "PI_CACHE_RETENTION": os.environ.get("PI_CACHE_RETENTION"),
        "args": {
            name: getattr(args, name, None)
            for name in (
                "provider",
                "api",
                "model",
                "base_url",
                "api_key_env",
                "thinking",
                "context_window",
                "max_tokens",
                "no_context_files",
                "no_skills",
                "no_prompt_templates",
                "skill",
                "prompt_template",
                "system_prompt",
                "append_system_prompt",
                "no_claude_compat",
                "approve",
                "no_approve",
            )
        },
        "context": context_signature(cwd),
    }
    encoded = json.dumps(facts, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:32]


# ------------------------------------------------------------------------ the template


def _prompt_positions(text: str, prompt: str) -> list[tuple[str, str]]:
    """``(before, after)`` splits of ``text`` around each JSON string token equal to
    ``prompt`` (the quotes stay outside)."""
    token = json.dumps(prompt, ensure_ascii=False)
    splits: list[tuple[str, str]] = []
    start = text.find(token)
    while start >= 0:
        splits.append((text[: start + 1], text[start + len(token) - 1 :]))
        start = text.find(token, start + 1)
    return splits


def _count(value: Any, prompt: str) -> int:
    """How many string leaves of ``value`` are ``prompt``."""
    if isinstance(value, dict):
        return sum(_count(v, prompt) for v in value.values())
    if isinstance(value, list):
        return sum(_count(v, prompt) for v in value)
    return 1 if value == prompt else 0


def _differs_only_by_prompt(original: Any, marked: Any, prompt: str) -> int:
    """How many leaves are ``prompt`` in ``original`` and the sentinel in ``marked``; -1 if
    anything else differs."""
    if isinstance(original, dict) and isinstance(marked, dict):
        if list(original) != list(marked):
            return -1
        total = 0
        for key, value in original.items():
            found = _differs_only_by_prompt(value, marked[key], prompt)
            if found < 0:
                return -1
            total += found
        return total
    if isinstance(original, list) and isinstance(marked, list):
        if len(original) != len(marked):
            return -1
        total = 0
        for a, b in zip(original, marked, strict=True):
            found = _differs_only_by_prompt(a, b, prompt)
            if found < 0:
                return -1
            total += found
        return total
    if original == prompt and marked == _SENTINEL:
        return 1
    return 0 if original == marked and type(original) is type(marked) else -1


def derive_template(
    method: str,
    url: str,
    headers: list[tuple[str, str]],
    body: bytes,
    prompt: str,
    key: str | None,
) -> dict[str, Any] | None:
    """The template of a sent request, or None when it cannot be made safely (the prompt is
    not one whole string of the body, or a secret would be stored)."""
    try:
        text = body.decode("utf-8")
        original = json.loads(text)
    except ValueError:
        return None
    if _count(original, prompt) != 1:  # the prompt twice: which one is the prompt?
        return None
    if urlsplit(url).password is not None:
        return None
    kept: list[list[str]] = []
    for name, value in headers:
        if name.lower() == "content-length":
            continue
        value = value.replace(key, KEY_MARK) if key else value
        if _SECRET_HEADER_WORDS.intersection(name.lower().split("-")) and KEY_MARK not in value:
            return None  # a credential that is not the key (e.g. from a URL's user info)
        kept.append([name, value])
    secrets = vault.secret_values()
    if key and len(key) >= vault.MIN_SECRET_LENGTH:
        secrets.add(key)
    stored = "\n".join([url, text, *(value for _, value in kept)])
    if any(secret in stored for secret in secrets):
        return None
    marker = json.dumps(_SENTINEL, ensure_ascii=False)[1:-1]
    for before, after in _prompt_positions(text, prompt):
        try:
            marked = json.loads(before + marker + after)
        except ValueError:
            continue
        if _differs_only_by_prompt(original, marked, prompt) == 1:
            return {
                "format": TEMPLATE_FORMAT,
                "method": method,
                "url": url,
                "headers": kept,
                "body": [before, after],
            }
    return None


class Prepared(NamedTuple):
    """A request ready to send: what ``fill`` made of a template."""

    method: str
    url: str
    headers: list[tuple[str, str]]
    """In order, ``Content-Length`` last."""
    body: bytes

    def head(self, target: str) -> bytes:
        lines = [f"{self.method} {target} HTTP/1.1"]
        lines.extend(f"{name}: {value}" for name, value in self.headers)
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def fill(template: Any, prompt: str, key: str | None) -> Prepared | None:
    """The request a template makes for this prompt and key (None if it does not fit)."""
    try:
        if template["format"] != TEMPLATE_FORMAT:
            return None
        before, after = template["body"]
        body = (before + json.dumps(prompt, ensure_ascii=False)[1:-1] + after).encode("utf-8")
        headers: list[tuple[str, str]] = []
        for name, value in template["headers"]:
            if KEY_MARK in value:
                if not key:
                    return None
                value = value.replace(KEY_MARK, key)
            headers.append((str(name), str(value)))
        headers.append(("Content-Length", str(len(body))))
        method, url = str(template["method"]), str(template["url"])
    except (KeyError, TypeError, ValueError):  # UnicodeEncodeError: a lone surrogate
        return None
    if not url.startswith(("http://", "https://")):
        return None
    return Prepared(method, url, headers, body)


def load_template(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def save_template(path: Path, template: dict[str, Any]) -> None:
    """Written atomically, readable by the user alone; stale templates are pruned."""
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(template, out, ensure_ascii=False)
    os.replace(temporary, path)
    cutoff = time.time() - TEMPLATE_MAX_AGE_S
    with os.scandir(directory) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)


# --------------------------------------------------------------------------- the wire


class Channel:
    """The early request's connection: a socket, and TLS over memory buffers when the URL
    is https (so the event loop can go on reading it where the thread left off)."""

    def __init__(self, sock: socket.socket, tls: ssl.SSLObject | None = None) -> None:
        self.sock = sock
        self.tls = tls
        self._incoming: ssl.MemoryBIO | None = None
        self._outgoing: ssl.MemoryBIO | None = None

    @classmethod
    def open(cls, url: str) -> Channel:
        """Connect (and shake hands), blocking: the sending thread's part."""
        parts = urlsplit(url)
        https = parts.scheme == "https"
        host = parts.hostname or ""
        port = parts.port or (443 if https else 80)
        sock = socket.create_connection((host, port), timeout=connect_timeout_for_host(host))
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if not https:
                return cls(sock)
            context = ssl_context()  # waits for the warm-up thread ``main`` started
            context.set_alpn_protocols(["http/1.1"])  # as httpcore sets it on this context
            return cls._handshake(sock, context, host)
        except BaseException:
            sock.close()
            raise

    @classmethod
    def _handshake(cls, sock: socket.socket, context: ssl.SSLContext, host: str) -> Channel:
        import ssl  # imported by ``start`` (and the TLS warm-up) already: no import here

        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        tls = context.wrap_bio(incoming, outgoing, server_hostname=host)
        channel = cls(sock, tls)
        channel._incoming, channel._outgoing = incoming, outgoing
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                channel._flush_blocking()
                data = sock.recv(65536)
                if not data:
                    raise OSError("connection closed during the TLS handshake") from None
                incoming.write(data)
        channel._flush_blocking()
        return channel

    def _flush_blocking(self) -> None:
        if self._outgoing is not None and self._outgoing.pending:
            self.sock.sendall(self._outgoing.read())

    def send_blocking(self, data: bytes) -> None:
        if self.tls is None:
            self.sock.sendall(data)
            return
        self.tls.write(data)
        self._flush_blocking()

    def decrypt(self, data: bytes) -> tuple[bytes, bytes, bool]:
        """Feed bytes read from the socket: ``(plaintext, bytes to send back, at end)``.
        Plain connections pass ``data`` through (empty ``data`` is the end)."""
        if self.tls is None or self._incoming is None or self._outgoing is None:
            return data, b"", not data
        import ssl

        if data:
            self._incoming.write(data)
        else:
            self._incoming.write_eof()
        plain: list[bytes] = []
        ended = False
        while True:
            try:
                piece = self.tls.read(65536)
            except ssl.SSLWantReadError:
                break
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                ended = True
                break
            if not piece:
                ended = True
                break
            plain.append(piece)
        reply = self._outgoing.read() if self._outgoing.pending else b""
        return b"".join(plain), reply, ended or not data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


class Prefetch:
    """One run's early first request: sent (maybe) at spawn, then used, discarded or
    recorded by ``cli.prefetch_transport``."""

    def __init__(self, path: Path, prompt: str, key: str | None) -> None:
        self.path = path
        self.prompt = prompt
        self.key = key
        self.sent: Prepared | None = None
        self.channel: Channel | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._abandoned = False

    def send(self, prepared: Prepared) -> None:
        """Connect and send ``prepared`` from a daemon thread."""
        parts = urlsplit(prepared.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.sent = prepared
        payload = prepared.head(target) + prepared.body
        threading.Thread(
            target=self._send, args=(prepared.url, payload), name="pi-prefetch", daemon=True
        ).start()

    def _send(self, url: str, payload: bytes) -> None:
        channel: Channel | None = None
        try:
            channel = Channel.open(url)
            channel.send_blocking(payload)
        except Exception as exc:  # the run sends the request itself
            self.error = exc
            if channel is not None:
                channel.close()
            channel = None
        with self._lock:
            if self._abandoned and channel is not None:
                channel.close()
            else:
                self.channel = channel
        self.done.set()

    def take(self) -> Channel | None:
        """The connection the request went out on, once the thread is done (else None)."""
        with self._lock:
            if not self.done.is_set() or self._abandoned:
                return None
            self._abandoned = True
            channel, self.channel = self.channel, None
            return channel

    def discard(self) -> None:
        """Close the early request unread (now, or when its thread finishes)."""
        with self._lock:
            self._abandoned = True
            channel, self.channel = self.channel, None
        if channel is not None:
            channel.close()

    def record(self, method: str, url: str, headers: list[tuple[str, str]], body: bytes) -> None:
        """Keep the run's real first request as the template for the next run."""
        try:
            template = derive_template(method, url, headers, body, self.prompt, self.key)
            if template is not None:
                save_template(self.path, template)
        except Exception:  # a template is an optimisation: never let it break the run
            log.debug("no request template written", exc_info=True)


# ------------------------------------------------------------------------ the start


def start(argv: list[str]) -> Prefetch | None:
    """At spawn, before the heavy imports: the run's ``Prefetch`` (with its request sent
    when a template fits), or None when this run does not qualify."""
    if os.environ.get(DISABLE_ENV) or _proxied() or "-h" in argv or "--help" in argv:
        return None
    try:
        args = build_parser(_QuietParser).parse_args(argv)
    except ValueError:
        return None
    if not args.prompt or args.demo or args.faux_script or args.resume:
        return None
    if args.prompt.startswith("/") or args.show_context or args.list_commands:
        return None  # a slash command is expanded first: the request holds other text
    provider = args.provider or default_provider()
    if provider is None or provider == "faux":
        return None
    try:
        cwd = Path(args.cwd).expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    if not cwd.is_dir():
        return None
    key = get_env_api_key(provider, api_key_env=args.api_key_env)
    path = cache_dir() / "requests" / f"{template_key(args, provider, cwd)}.json"
    prefetch = Prefetch(path, args.prompt, key)
    prepared = fill(load_template(path), args.prompt, key)
    if prepared is None:
        return prefetch
    if prepared.url.startswith("https://"):
        import ssl  # noqa: F401 - imported here, never in the sending thread

    prefetch.send(prepared)
    return prefetch
