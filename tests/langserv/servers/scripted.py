"""A scripted language server for the failure tests: answers ``initialize`` with a
definition provider, then, by mode (argv[1]):

- ``silent``: never answers anything else (not even ``shutdown``), writes each
  ``$/cancelRequest`` it gets to argv[2];
- ``exit``: exits with status 3 on the first ``textDocument/definition``, after one line on
  stderr;
- ``eof``: answers ``textDocument/definition`` (no result) and ``shutdown``, ignores ``exit``
  and ends only when its input ends, writing ``input ended`` to argv[2] then (as pygls'
  servers do: their stdin reader thread holds the process until then);
- ``stuck``: answers ``textDocument/definition`` (no result); on ``shutdown`` it connects to
  127.0.0.1:argv[2], sends ``shutdown``, and answers nothing more (its stop hangs until
  ``shutdownTimeout`` kills its group).
"""

import json
import socket
import sys


def read() -> dict:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            if sys.argv[1] == "eof":
                with open(sys.argv[2], "a") as out:
                    out.write("input ended\n")
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message: dict) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def main() -> None:
    mode = sys.argv[1]
    while True:
        msg = read()
        method = msg.get("method")
        if method == "initialize":
            caps = {"definitionProvider": True, "textDocumentSync": 1}
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": caps}})
        elif method == "$/cancelRequest" and mode == "silent":
            with open(sys.argv[2], "a") as out:
                out.write(f"cancel {msg['params']['id']}\n")
        elif method == "textDocument/definition" and mode == "stuck":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif method == "shutdown" and mode == "stuck":
            with socket.create_connection(("127.0.0.1", int(sys.argv[2]))) as told:
                told.sendall(b"shutdown\n")
        elif method in ("textDocument/definition", "shutdown") and mode == "eof":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif method == "textDocument/definition" and mode == "exit":
            print("scripted server: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)


if __name__ == "__main__":
    main()
