"""The Python module beside C++, in one process: `Filter.may_contain` on 10^6
uint64 keys beside the same filter's MayContainBatch called from C++ in batches
of 1024 (the simulator's fp batch), and `Filter(spec, keys)` on 10^7 keys beside
FilterPolicy::Build over the same array from C++ (filterlab._native._cpp_*,
python/src/baseline_timing.cc). Both forms of uint64 keys: hashes (hashed=True,
no hashing on either side) and integer keys (both sides hash lsmbench's key of
each number first). Rounds alternate which side goes first; medians over
rounds, and the ratio Python / C++ of the medians.

    .venv/bin/python python/bench_module.py [--spec SPEC]... [--rounds 7] [--out FILE]
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


def python_query_ns(f: filterlab.Filter, keys: np.ndarray) -> float:
    start = time.perf_counter()
    f.may_contain(keys)
    return (time.perf_counter() - start) * 1e9 / len(keys)


def python_build_ns(spec: str, keys: np.ndarray, hashed: bool) -> float:
    start = time.perf_counter()
    filterlab.Filter(spec, keys, hashed=hashed)
    return (time.perf_counter() - start) * 1e9 / len(keys)


def measure(spec: str, query_keys: int, build_keys: int, rounds: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for hashed in (True, False):
        form = "hashes" if hashed else "integer keys"
        # Hashes: well-mixed 64-bit values; integer keys: distinct random numbers.
        members = rng.integers(0, 2**63, size=query_keys, dtype=np.uint64)
        queries = rng.integers(0, 2**63, size=query_keys, dtype=np.uint64)
        big = rng.integers(0, 2**63, size=build_keys, dtype=np.uint64)
        f = filterlab.Filter(spec, members, hashed=hashed)
        q_py, q_cpp, b_py, b_cpp = [], [], [], []
        for r in range(rounds):
            pairs = [(q_py, lambda: python_query_ns(f, queries)),
                     (q_cpp, lambda: _native._cpp_query_ns_per_key(f._native, queries, 1024)),
                     (b_py, lambda: python_build_ns(spec, big, hashed)),
                     (b_cpp, lambda: _native._cpp_build_ns_per_key(spec, big, hashed))]
            order = pairs if r % 2 == 0 else [pairs[1], pairs[0], pairs[3], pairs[2]]
            for sink, run in order:
                sink.append(run())
        for what, n, py, cpp in (("may_contain", query_keys, q_py, q_cpp), ("build", build_keys, b_py, b_cpp)):
            out.append({"spec": f.spec, "keys": form, "measure": what, "n": n,
                        "python_ns_per_key": statistics.median(py), "cpp_ns_per_key": statistics.median(cpp),
                        "ratio": statistics.median(py) / statistics.median(cpp),
                        "python_rounds": py, "cpp_rounds": cpp})
    return out


def load() -> str:
    return open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "unknown"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spec", action="append", help=f"filter spec (repeatable; default {', '.join(DEFAULT_SPECS)})")
    p.add_argument("--query-keys", type=int, default=10**6)
    p.add_argument("--build-keys", type=int, default=10**7)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args()
    load_before = load()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    rows = []
    for spec in args.spec or DEFAULT_SPECS:
        for row in measure(spec, args.query_keys, args.build_keys, args.rounds, args.seed):
            rows.append(row)
            print(f"{row['spec']:40} {row['keys']:13} {row['measure']:12} n={row['n']:<9} "
                  f"python {row['python_ns_per_key']:7.2f} ns/key  C++ {row['cpp_ns_per_key']:7.2f} ns/key  "
                  f"ratio {row['ratio']:.3f}", flush=True)
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
