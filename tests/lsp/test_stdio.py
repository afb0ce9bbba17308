"""The start-up path answers ``initialize`` exactly as pygls would for this server."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities

from pi_lsp.lsp.connection.framing import BlockingFrameReader
from pi_lsp.lsp.serve.stdio import initialize_result, read_frame
from pi_lsp.lsp.server import create_server

CLIENTS = ["visual-studio-code@v1.65.2", "neovim@v0.7.0", "neovim@v0.11.0", "emacs@v29.1"]


def pygls_result(params: dict[str, Any]) -> dict[str, Any]:
    converter = get_converter()
    server = create_server()
    gen = server.protocol.lsp_initialize(converter.structure(params, types.InitializeParams))
    handler, args, _ = next(gen)
    handler(*args)
    with pytest.raises(StopIteration) as done:
        gen.send(None)
    result: dict[str, Any] = converter.unstructure(done.value.value)
    return result


@pytest.mark.parametrize("client", CLIENTS)
def test_fast_initialize_matches_pygls(
    client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_LSP_DATA_DIR", str(tmp_path / "data"))
    params = {
        "processId": None,
        "rootUri": (tmp_path).as_uri(),
        "capabilities": get_converter().unstructure(client_capabilities(client)),
    }
    expected = pygls_result(params)
    assert json.loads(json.dumps(initialize_result(params))) == expected


def test_position_encoding_follows_the_client_preference() -> None:
    params = {"capabilities": {"general": {"positionEncodings": ["utf-32", "utf-8"]}}}
    assert initialize_result(params)["capabilities"]["positionEncoding"] == "utf-32"
    assert initialize_result({})["capabilities"]["positionEncoding"] == "utf-16"


def test_read_frame_skips_a_frame_without_length_and_ends_with_none() -> None:
    data = b"Content-Length: 2\r\nContent-Type: x\r\n\r\n{}junk\r\n\r\nContent-Length: 1\r\n\r\n1"
    stream = io.BytesIO(data)
    reader = BlockingFrameReader(stream)
    assert read_frame(reader) == b"{}"
    assert read_frame(reader) == b"1"  # the frame without a length is skipped
    assert read_frame(reader) is None
    assert read_frame(io.BytesIO(b"Content-Length: 5\r\n\r\nab")) is None  # cut short
