"""Token estimation benchmark: incremental re-estimation and per-message overhead.

Run with ``uv run python benchmarks/bench_estimation.py``. Prints ratios measured in one run:

(a) a 2,000-message (~2 MB) conversation estimated from scratch, then re-estimated after one
    appended message (only the new message is encoded); target ratio < 2%.
(b) estimation from scratch versus raw ``tiktoken`` ``encode_ordinary`` over the same texts;
    target ratio <= 1.5x.
"""

from __future__ import annotations

import random
import string
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from steiner_tui.engine.jsonenc import go_json
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader

MESSAGES = 2_000
MODEL = "gpt-4o"
ENCODING = "o200k_base"


def _text(rng: random.Random, chars: int) -> str:
    words: list[str] = []
    size = 0
    while size < chars:
        word = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9)))
        if rng.random() < 0.1:
            word = f"{word}({rng.randint(0, 999)});\n"
        words.append(word)
        size += len(word) + 1
    return " ".join(words)[:chars]


def conversation(seed: int = 7) -> list[Message]:
    """A plausible coding session: user asks, assistant calls tools, tools answer."""
    rng = random.Random(seed)
    out: list[Message] = []
    for i in range(MESSAGES):
        kind = i % 4
        if kind == 0:
            out.append(Message("user", _text(rng, 400)))
        elif kind == 1:
            call = ToolCall(f"call_{i}", "read", {"path": f"src/mod_{i}.py", "limit": 200})
            out.append(Message("assistant", _text(rng, 300), tool_calls=(call,)))
        elif kind == 2:
            out.append(Message("tool", _text(rng, 2_600), tool_call_id=f"call_{i - 1}"))
        else:
            out.append(Message("assistant", _text(rng, 700), reasoning=_text(rng, 200)))
    return out


def best_of(runs: int, fn: Callable[[], object]) -> float:
    """Fastest wall time of ``runs`` calls, in seconds (the least disturbed by other load)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    loader = default_encoding_loader(Path(tempfile.mkdtemp(prefix="steiner-bench-")))
    encoder = loader.get(ENCODING)
    messages = conversation()
    size = sum(len(m.content) + len(m.reasoning) for m in messages)
    extra = Message("user", "and now run the tests please")

    def scratch() -> int:
        return RequestEstimator(loader).raw_tokens(MODEL, messages)

    warm = RequestEstimator(loader)
    warm.raw_tokens(MODEL, messages)
    grown = [*messages, extra]

    def append() -> int:
        return warm.raw_tokens(MODEL, grown)

    texts = [t for m in messages for t in (m.role, m.content, m.reasoning) if t]
    texts += [t for m in messages for c in m.tool_calls for t in (c.name, go_json(c.arguments))]

    def raw() -> int:
        return sum(len(encoder.encode_ordinary(t)) for t in texts)

    t_scratch = best_of(5, scratch)
    t_append = best_of(20, append)
    t_raw = best_of(5, raw)
    append_ratio = t_append / t_scratch
    overhead = t_scratch / t_raw
    rows = [
        (
            "(a) append one message / from scratch",
            f"{append_ratio:.2%}",
            "< 2%",
            append_ratio < 0.02,
        ),
        ("(b) estimate / raw encode_ordinary", f"{overhead:.2f}x", "<= 1.5x", overhead <= 1.5),
    ]
    print(f"conversation: {len(messages)} messages, {size / 1e6:.2f} MB of text, {ENCODING}")
    print(f"{'measurement (best run)':<44}{'time':>12}")
    print(f"{'estimate from scratch':<44}{t_scratch * 1e3:>10.2f}ms")
    print(f"{'append one message, re-estimate (cached)':<44}{t_append * 1e3:>10.2f}ms")
    print(f"{'raw tiktoken encode_ordinary, same texts':<44}{t_raw * 1e3:>10.2f}ms")
    print()
    print(f"{'ratio':<44}{'value':>12}{'target':>10}{'':>6}")
    for name, value, target, ok in rows:
        print(f"{name:<44}{value:>12}{target:>10}{'ok' if ok else 'MISS':>6}")


if __name__ == "__main__":
    main()
