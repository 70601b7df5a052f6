"""The Python module beside C++, in one process: `Filter.may_contain` on 10^6
uint64 keys beside the same filter's MayContainBatch called from C++ in batches
of 1024 (the simulator's fp batch), and `Filter(spec, keys)` on 10^7 keys beside
FilterPolicy::Build over the same array from C++ (filterlab._native._cpp_*,
python/src/baseline_timing.cc). Both forms of uint64 keys: hashes (hashed=True,
no hashing on either side) and integer keys (both sides hash lsmbench's key of
each number first). Each side is timed by the wall clock and by the calling
thread's CPU time (the call runs on that thread, GIL released), which on a
shared machine leaves out the time the thread waited for a core. A query
measurement is the best of --query-reps calls; rounds alternate which side goes
first; medians over rounds, and the ratio Python / C++ of the medians.

Range filters the same way: `RangeFilter.may_contain_range` on 10^6 ranges of
--range-length values (uniform left ends) beside a C++ loop of MayContainRange
over the same arrays (RangeFilter has no batch call; the loop is rangefp's), and
`RangeFilter(spec, keys)` on --range-build-keys sorted keys beside
RangeFilterPolicy::Build over them.

    .venv/bin/python python/bench_module.py [--spec SPEC]... [--range-spec SPEC]... [--rounds 5] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time

import numpy as np

import filterlab
from filterlab import _native

DEFAULT_SPECS = ["fastlocal:bpk=10", "ribbon:bpk=10", "binary_fuse:arity=4"]
DEFAULT_RANGE_SPECS = ["grafite:bpk=16", "rosetta:bpk=16,range=64", "surf:suffix=real,bits=8"]


def timed(call) -> tuple[float, float]:
    """(wall, thread CPU) seconds of call()."""
    wall, cpu = time.perf_counter(), time.thread_time()
    call()
    return time.perf_counter() - wall, time.thread_time() - cpu


def python_query_ns(f: filterlab.Filter, keys: np.ndarray) -> tuple[float, float]:
    wall, cpu = timed(lambda: f.may_contain(keys))
    return wall * 1e9 / len(keys), cpu * 1e9 / len(keys)


def python_build_ns(spec: str, keys: np.ndarray, hashed: bool) -> tuple[float, float]:
    wall, cpu = timed(lambda: filterlab.Filter(spec, keys, hashed=hashed))
    return wall * 1e9 / len(keys), cpu * 1e9 / len(keys)


def best_of(reps: int, run) -> tuple[float, float]:
    """The least wall and the least CPU time of `reps` back-to-back calls."""
    results = [run() for _ in range(reps)]
    return min(r[0] for r in results), min(r[1] for r in results)


def measure(spec: str, query_keys: int, build_keys: int, rounds: int, query_reps: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for hashed in (True, False):
        form = "hashes" if hashed else "integer keys"
        # Hashes: well-mixed 64-bit values; integer keys: random numbers.
        members = rng.integers(0, 2**63, size=query_keys, dtype=np.uint64)
        queries = rng.integers(0, 2**63, size=query_keys, dtype=np.uint64)
        big = rng.integers(0, 2**63, size=build_keys, dtype=np.uint64)
        f = filterlab.Filter(spec, members, hashed=hashed)
        q_py, q_cpp, b_py, b_cpp = [], [], [], []
        for r in range(rounds):
            pairs = [(q_py, lambda: best_of(query_reps, lambda: python_query_ns(f, queries))),
                     (q_cpp, lambda: best_of(query_reps, lambda: _native._cpp_query_ns_per_key(f._native, queries))),
                     (b_py, lambda: python_build_ns(spec, big, hashed)),
                     (b_cpp, lambda: _native._cpp_build_ns_per_key(spec, big, hashed))]
            order = pairs if r % 2 == 0 else [pairs[1], pairs[0], pairs[3], pairs[2]]
            for sink, run in order:
                sink.append(run())
        for what, n, py, cpp in (("may_contain", query_keys, q_py, q_cpp), ("build", build_keys, b_py, b_cpp)):
            out.append(median_row({"spec": f.spec, "keys": form, "measure": what, "n": n}, py, cpp))
    return out


def median_row(row: dict, py: list, cpp: list) -> dict:
    """row with the medians, the ratio and every round of both sides, per clock."""
    for i, clock in enumerate(("wall", "cpu")):
        p, c = statistics.median(x[i] for x in py), statistics.median(x[i] for x in cpp)
        row.update({f"python_{clock}_ns_per_key": p, f"cpp_{clock}_ns_per_key": c, f"{clock}_ratio": p / c,
                    f"python_{clock}_rounds": [x[i] for x in py], f"cpp_{clock}_rounds": [x[i] for x in cpp]})
    return row


def measure_range(spec: str, queries: int, build_keys: int, range_length: int, rounds: int, query_reps: int,
                  seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    members = np.unique(rng.integers(0, 2**63, size=queries, dtype=np.uint64))
    lo = rng.integers(0, 2**63, size=queries, dtype=np.uint64)
    hi = lo + np.uint64(range_length - 1)
    big = np.unique(rng.integers(0, 2**63, size=build_keys, dtype=np.uint64))  # sorted: both sides build directly
    f = filterlab.RangeFilter(spec, members)

    def python_query():
        wall, cpu = timed(lambda: f.may_contain_range(lo, hi))
        return wall * 1e9 / queries, cpu * 1e9 / queries

    def python_build():
        wall, cpu = timed(lambda: filterlab.RangeFilter(spec, big))
        return wall * 1e9 / len(big), cpu * 1e9 / len(big)

    q_py, q_cpp, b_py, b_cpp = [], [], [], []
    for r in range(rounds):
        pairs = [(q_py, lambda: best_of(query_reps, python_query)),
                 (q_cpp, lambda: best_of(query_reps, lambda: _native._cpp_range_query_ns_per_range(f._native, lo, hi))),
                 (b_py, python_build),
                 (b_cpp, lambda: _native._cpp_range_build_ns_per_key(spec, big))]
        order = pairs if r % 2 == 0 else [pairs[1], pairs[0], pairs[3], pairs[2]]
        for sink, run in order:
            sink.append(run())
    keys = f"uint64, ranges of {range_length}"
    return [median_row({"spec": f.spec, "keys": keys, "measure": "may_contain_range", "n": queries}, q_py, q_cpp),
            median_row({"spec": f.spec, "keys": "uint64 sorted", "measure": "range build", "n": len(big)}, b_py, b_cpp)]


def load() -> str:
    return open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "unknown"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spec", action="append",
                   help=f"filter spec (repeatable; default {', '.join(DEFAULT_SPECS)}; 'none' for none)")
    p.add_argument("--query-keys", type=int, default=10**6)
    p.add_argument("--build-keys", type=int, default=10**7)
    p.add_argument("--range-spec", action="append",
                   help=f"range filter spec (repeatable; default {', '.join(DEFAULT_RANGE_SPECS)}; 'none' for none)")
    p.add_argument("--range-queries", type=int, default=10**6)
    p.add_argument("--range-build-keys", type=int, default=10**6)
    p.add_argument("--range-length", type=int, default=64, help="values per query range")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--query-reps", type=int, default=5, help="queries: the best of this many calls per round")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args()
    load_before = load()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    rows = []
    runs = [lambda spec=spec: measure(spec, args.query_keys, args.build_keys, args.rounds, args.query_reps, args.seed)
            for spec in args.spec or DEFAULT_SPECS if spec != "none"]
    runs += [lambda spec=spec: measure_range(spec, args.range_queries, args.range_build_keys, args.range_length,
                                             args.rounds, args.query_reps, args.seed)
             for spec in args.range_spec or DEFAULT_RANGE_SPECS if spec != "none"]
    for run in runs:
        for row in run():
            rows.append(row)
            print(f"{row['spec']:42} {row['keys']:13} {row['measure']:12} n={row['n']:<9} CPU: python "
                  f"{row['python_cpu_ns_per_key']:7.2f} C++ {row['cpp_cpu_ns_per_key']:7.2f} ns/key ratio "
                  f"{row['cpu_ratio']:.3f} | wall: python {row['python_wall_ns_per_key']:7.2f} C++ "
                  f"{row['cpp_wall_ns_per_key']:7.2f} ratio {row['wall_ratio']:.3f}", flush=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    meta = {"started": started, "load_before": load_before, "load_after": load(), "rounds": args.rounds,
            "commit": commit, "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()}
    print(f"load average before {' '.join(load_before)}, after {' '.join(meta['load_after'])}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"meta": meta, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
