"""Long fuzz run of the log path: >= 1M mutated real logs, 0 crashes, 0 superlinear inputs.

The CI-sized version is tests/test_fuzz_inputs.py and tests/test_logs_scan_equals_parse.py;
this script runs the same targets for a long time and records the figures:

- every input: the full parse (``LogParser`` fed line by line, then ``finish``) must not raise;
  the characters handed to the log path's patterns are counted (tests/linear_work.py's
  :class:`WorkCounter`, not a clock) and divided by the input's length;
- every ``--scan-every``-th input: written to a file and read by the streaming scan with a
  random chunk size; its rows must equal the full parse's;
- an input whose work per character is above ``--ratio-limit`` times the highest ratio of
  the unmutated seeds is a superlinear *candidate*; it is confirmed by growing it (its
  longest line repeated on one line 16x/64x/256x) and comparing the work *per character* at
  each scale (:func:`confirmed_superlinear`): a linear path keeps it bounded, a quadratic one
  multiplies it by 16 from 16x to 256x. Confirmed ones are saved as hex in the results. (Runs
  before 2026-12-01 17:45 UTC used the counter's second differences, which a middle scale
  cheaper per character than the smallest fooled: benchmarks/results/
  fuzz_long_run_20261201_summary.md.)

Inputs: windows (128 B to 2 KiB) of the corpus logs (``../shared/corpus/build-logs``) with 1-6
edits each: byte flips, cuts, inserted real fragments, a spliced piece, a fragment repeated on
one line (up to 100 times, 2% of the time up to 2,000 times), a CR/NUL/invalid-UTF-8 byte or a
run of spaces, and 1% of the time the whole input in UTF-16 LE with a byte-order mark.

    nice -n 19 python benchmarks/fuzz_long_run.py --inputs 1000000 --minutes 40
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from linear_work import WorkCounter  # noqa: E402
from test_logs_robust import FRAGMENTS  # noqa: E402

from trtsafe_lab.logs.parser import LogParser  # noqa: E402
from trtsafe_lab.logs.scan import scan_failures  # noqa: E402
from trtsafe_lab.logs.source import iter_lines  # noqa: E402


def corpus_logs() -> list[bytes]:
    root = Path(os.environ.get("TRTSAFE_CORPUS", REPO.parent / "shared" / "corpus"))
    logs = sorted((root / "build-logs" / "cases").glob("*.log"))
    verbose = sorted((root / "build-logs" / "verbose").glob("*.log"))
    if not logs:
        raise SystemExit(f"no corpus logs under {root}; set TRTSAFE_CORPUS")
    seeds = [path.read_bytes() for path in logs]
    for path in verbose:
        data = path.read_bytes()
        seeds.extend(data[start : start + 65536] for start in range(0, len(data), 65536))
    return seeds


def mutate(rng: random.Random, seeds: list[bytes]) -> bytes:
    seed = rng.choice(seeds)
    start = rng.randrange(len(seed)) if rng.random() < 0.7 else 0
    data = bytearray(seed[start : start + rng.choice((128, 512, 2048))])
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(data) + 1)
        edit = rng.randrange(8)
        if edit == 0 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif edit == 1:
            del data[at : at + rng.randint(1, 200)]
        elif edit == 2:
            data[at:at] = rng.choice(FRAGMENTS)
        elif edit == 3 and data:
            other = rng.choice(seeds)
            piece = rng.randrange(len(other))
            data[at:at] = other[piece : piece + rng.randint(1, 512)]
        elif edit == 4:
            most = 2000 if rng.random() < 0.02 else 100
            data[at:at] = rng.choice(FRAGMENTS).rstrip(b"\n") * rng.randint(2, most)
        elif edit == 5:
            data[at:at] = rng.choice((b"\r", b"\x00", b"\xff", b"\xc3", b"\n", b" " * 300))
        elif edit == 6:
            del data[at:]
        else:
            data[at:at] = data[max(0, at - 64) : at] * rng.randint(1, 20)
    if rng.random() < 0.01:
        return b"\xff\xfe" + bytes(data).decode("utf-8", "replace").encode("utf-16-le")
    return bytes(data)


def full_parse(data: bytes, *, cache: bool | None = None) -> list[dict[str, object]]:
    parser = LogParser(keep_events=False, cache=cache)
    parser.feed_lines(iter_lines(data))
    parser.finish()
    return parser.failures


def work(counter: WorkCounter, data: bytes) -> int:
    before = counter.chars
    # Every record read afresh: the parser's record cache only removes work, by an amount that
    # depends on which repeats hit (so on the scale), which would blur the growth measured here.
    full_parse(data, cache=False)
    return counter.chars - before


SCALES = (16, 64, 256)  # the longest line repeated this many times on one line
# Work per character at the largest scale over the lowest at the smaller ones, above which the
# input is superlinear: linear work keeps it near 1 (its bounded windows and per-line limits
# can make a middle scale cheaper, never the largest dearer by much); quadratic work gives 16.
GROWTH_LIMIT = 3.0


def work_per_char(measure: Callable[[bytes], int], data: bytes) -> list[float]:
    """``measure`` (work for an input) per character of the longest line of ``data`` repeated
    :data:`SCALES` times on one line."""
    line = max(data.split(b"\n"), key=len) or b" "
    return [measure(line * k) / (len(line) * k) for k in SCALES]


def confirmed_superlinear(measure: Callable[[bytes], int], data: bytes) -> bool:
    """True when the work per character at the largest scale is over :data:`GROWTH_LIMIT`
    times the lowest at the smaller scales."""
    per_char = work_per_char(measure, data)
    return per_char[-1] > GROWTH_LIMIT * min(per_char[:-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--minutes", type=float, default=40.0, help="stop earlier after this")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--scan-every", type=int, default=25)
    parser.add_argument("--ratio-limit", type=float, default=4.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or REPO / "benchmarks" / "results" / f"fuzz_long_run_{stamp}.json"
    rng = random.Random(args.seed)
    seeds = corpus_logs()
    counter = WorkCounter()
    result: dict[str, object] = {
        "benchmark": "long fuzz run of the log path (issue 15)",
        "command": " ".join(["python", *sys.argv]),
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip(),
        "machine": {
            "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count(),
            "python": platform.python_version(),
            "note": "2 cores shared with other sessions; run under nice -n 19 on one core",
        },
        "seed": args.seed,
        "corpus_seeds": len(seeds),
    }
    crashes: list[dict[str, str]] = []
    disagreements: list[str] = []
    superlinear: list[str] = []
    candidates = 0
    scans = 0
    total_bytes = 0
    with counter.installed(), tempfile.TemporaryDirectory() as tmp:
        baseline = max(work(counter, seed) / max(len(seed), 1) for seed in seeds)
        limit = baseline * args.ratio_limit
        log = Path(tmp) / "fuzz.log"
        started = time.perf_counter()
        deadline = started + args.minutes * 60
        count = 0
        max_ratio = 0.0
        while count < args.inputs and time.perf_counter() < deadline:
            data = mutate(rng, seeds)
            count += 1
            total_bytes += len(data)
            try:
                chars = work(counter, data)
                ratio = chars / max(len(data), 64)
                max_ratio = max(max_ratio, ratio)
                if ratio > limit:
                    candidates += 1
                    if confirmed_superlinear(lambda d: work(counter, d), data):
                        superlinear.append(data.hex())
                if count % args.scan_every == 0:
                    scans += 1
                    log.write_bytes(data)
                    chunk = rng.choice((1, 7, 64, 509, 4096, 1 << 22))
                    if scan_failures(log, chunk_bytes=chunk) != full_parse(data):
                        disagreements.append(f"chunk={chunk} {data.hex()}")
            except Exception:
                crashes.append({"input": data.hex(), "traceback": traceback.format_exc()})
            if count % 20000 == 0:
                elapsed = time.perf_counter() - started
                print(f"{count} inputs, {count / elapsed:.0f}/s, crashes {len(crashes)}, "
                      f"disagreements {len(disagreements)}, superlinear {len(superlinear)}",
                      flush=True)
                _write(out, result, count, elapsed, scans, total_bytes, baseline, limit,
                       max_ratio, candidates, crashes, disagreements, superlinear)
        elapsed = time.perf_counter() - started
    _write(out, result, count, elapsed, scans, total_bytes, baseline, limit, max_ratio,
           candidates, crashes, disagreements, superlinear, done=True)
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=2))
    return 1 if crashes or disagreements or superlinear else 0


def _write(out: Path, result: dict[str, object], count: int, elapsed: float, scans: int,
           total_bytes: int, baseline: float, limit: float, max_ratio: float, candidates: int,
           crashes: list[dict[str, str]], disagreements: list[str], superlinear: list[str],
           done: bool = False) -> None:
    result.update({
        "finished": done,
        "inputs": count,
        "input_mb": round(total_bytes / 1e6, 1),
        "seconds": round(elapsed, 1),
        "inputs_per_s": round(count / elapsed, 1) if elapsed else None,
        "scan_vs_parse_checks": scans,
        "crashes": len(crashes),
        "disagreements": len(disagreements),
        "work_ratio_of_seeds_max": round(baseline, 1),
        "work_ratio_limit": round(limit, 1),
        "work_ratio_max": round(max_ratio, 1),
        "superlinear_candidates": candidates,
        "superlinear_confirmed": len(superlinear),
        "examples": {"crashes": crashes[:5], "disagreements": disagreements[:5],
                     "superlinear": superlinear[:5]},
    })
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(out)


if __name__ == "__main__":
    raise SystemExit(main())
