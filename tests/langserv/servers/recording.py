"""A language server behind a recorder: ``recording.py LOG COMMAND [ARGS…]`` runs COMMAND
with its stdout and stderr passed through, and forwards every message pi-lsp sends it,
appending ``method uri`` (the ``textDocument.uri`` when there is one) to LOG first — so a
test sees what the server was told (``didOpen`` / ``didClose``). Same process group as its
server: killing the group ends both."""

import json
import subprocess
import sys


def main() -> None:
    log, command = sys.argv[1], sys.argv[2:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE)
    assert child.stdin is not None
    source = sys.stdin.buffer
    while True:
        header = b""
        length = 0
        while True:
            line = source.readline()
            if not line:
                child.stdin.close()
                sys.exit(child.wait())
            header += line
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        body = source.read(length)
        message = json.loads(body)
        uri = ((message.get("params") or {}).get("textDocument") or {}).get("uri", "")
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{message.get('method', '(response)')} {uri}\n")
        child.stdin.write(header + body)
        child.stdin.flush()


if __name__ == "__main__":
    main()
