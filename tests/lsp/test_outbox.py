"""The outbox never blocks the caller when the reader stalls, and delivers everything in order."""

from __future__ import annotations

import os
import threading

from pi_lsp.lsp.connection.outbox import Outbox
from pi_lsp.lsp.connection.transport import encode_body, frame


def test_write_does_not_block_on_a_full_pipe_and_keeps_order() -> None:
    r, w = os.pipe()
    wf = os.fdopen(w, "wb")
    out = Outbox(wf)
    chunks = [(b"%06d" % i) * 300 for i in range(2000)]  # ~3.6 MB, far above a pipe buffer
    for chunk in chunks:
        out.write(chunk)  # would hang here if writes were synchronous
    assert out.queued_bytes > 0
    received = bytearray()

    def reader() -> None:
        with os.fdopen(r, "rb") as fh:
            while data := fh.read(65536):
                received.extend(data)

    t = threading.Thread(target=reader)
    t.start()
    assert out.flush(timeout=30)
    out.close()
    wf.close()
    t.join(timeout=30)
    assert bytes(received) == b"".join(chunks)


def test_broken_stream_is_reported_and_later_writes_are_dropped() -> None:
    r, w = os.pipe()
    os.close(r)
    broken = threading.Event()
    out = Outbox(os.fdopen(w, "wb"), on_broken=lambda exc: broken.set())
    out.write(b"x" * 10)
    assert broken.wait(10)
    assert out.broken
    out.write(b"more")  # ignored, never raises
    out.close()


def test_frame_is_byte_exact_for_non_ascii() -> None:
    body = encode_body({"text": "héllo 😀 中文"})
    framed = frame(body)
    header, _, rest = framed.partition(b"\r\n\r\n")
    assert header == b"Content-Length: %d" % len(rest)
    assert rest.decode("utf-8") == '{"text":"héllo 😀 中文"}'


def test_lone_surrogates_become_replacement_characters() -> None:
    """Strict JSON readers reject an escaped lone surrogate too (issue 10 item 1's class)."""
    body = encode_body({"t": "a\udc80b", "pair": "\ud83d\ude00"})
    assert body.decode("utf-8") == '{"t":"a\ufffdb","pair":"😀"}'
