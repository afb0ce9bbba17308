"""Cost of parsing streamed tool-call arguments on every delta (pi's parseStreamingJson).

Streams a ~55 KB ``write`` argument in 8-character deltas, once as valid JSON and once with
raw newlines (invalid JSON some local models emit), through ``StreamingJsonParser`` (what
the providers use) and through the stateless ``parse_streaming_json``. Prints JSON.
Run: ``python -m bench.bench_streaming_json``.
"""

from __future__ import annotations

import json
import time

from pi_lsp.ai.json_parse import StreamingJsonParser, parse_streaming_json


def _payloads() -> dict[str, str]:
    content = "\n".join(f'line {i}: code = value({i})  # comment "q" \\d' for i in range(1000))
    valid = json.dumps({"path": "src/big.py", "content": content})
    raw = '{"path": "src/big.py", "content": "' + content.replace('"', "'") + '"}'
    return {"valid": valid, "raw_newlines": raw}


def _run(text: str, stateless: bool, delta: int = 8) -> float:
    start = time.perf_counter()
    parser = StreamingJsonParser()
    for i in range(0, len(text), delta):
        if stateless:
            parse_streaming_json(text[: i + delta])
        else:
            parser.feed(text[i : i + delta])
    return time.perf_counter() - start


def main() -> None:
    results = {}
    for name, text in _payloads().items():
        results[name] = {
            "bytes": len(text),
            "deltas": -(-len(text) // 8),
            "incremental_s": round(_run(text, stateless=False), 3),
            "stateless_s": round(_run(text, stateless=True), 3),
        }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
