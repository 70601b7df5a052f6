"""A stand-in for build/lsmbench in the runner's tests, so they do not depend on
the engine: it takes the db_bench-style flags the runner sends (--key=value,
anything else is an error as with gflags), needs a fresh --db directory, and
prints for each of --benchmarks a db_bench line and a JSON record of the shape
experiments/README.md ("lsmbench records") asks of the real tool. Like the real
tool, --multiread_stride and --multiread_batched take comma-separated lists and
multireadrandom then prints one line and record per (stride, batched) pair,
stride-major, each record's stride and multiread_batched being its pair's
(other records carry the first of each list). Numbers are synthetic, a
deterministic function of the flags and --seed.

Environment: FAKE_LSMBENCH_LOG (append one JSON line per call: argv, and
"OVERLAP" if another speed-like run held the lock), FAKE_LSMBENCH_LOCK (a
directory created for the duration of the run; finding it already there means
two speed-like runs overlap), FAKE_LSMBENCH_SLEEP (seconds to hold it),
FAKE_LSMBENCH_NO_ROCKSDB=1 (behave like a build without RocksDB)."""

import json
import os
import random
import sys
import time

FLAGS = {"benchmarks", "engine", "num", "reads", "key_size", "value_size", "filter", "memtable_filter",
         "memtable_bloom_ratio", "hash_index", "util_ratio", "batch_size", "multiread_stride", "multiread_batched",
         "approx_algorithm", "seek_nexts", "histogram", "block_size", "cache_mb", "write_buffer_mb", "target_file_mb",
         "level1_mb", "disable_auto_compactions", "statistics", "seed", "db"}
BUCKETS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100]
while BUCKETS[-1] < 10**7:
    BUCKETS += [BUCKETS[-1] * 6 // 5]


def main() -> int:
    args = {}
    for a in sys.argv[1:]:
        key, eq, value = a[2:].partition("=")
        if not a.startswith("--") or not eq or key not in FLAGS:
            print(f"lsmbench: unknown or malformed flag '{a}'", file=sys.stderr)
            return 1
        args[key] = value
    log = os.environ.get("FAKE_LSMBENCH_LOG")
    lock = os.environ.get("FAKE_LSMBENCH_LOCK")
    overlap = False
    if lock:
        try:
            os.mkdir(lock)
        except FileExistsError:
            overlap = True
    if log:
        with open(log, "a") as f:
            f.write(json.dumps({"argv": sys.argv[1:], "overlap": overlap}) + "\n")
    try:
        return run(args)
    finally:
        time.sleep(float(os.environ.get("FAKE_LSMBENCH_SLEEP", "0")))
        if lock and not overlap:
            os.rmdir(lock)


def run(args: dict) -> int:
    engine = args.get("engine", "filterlab")
    if engine == "rocksdb" and os.environ.get("FAKE_LSMBENCH_NO_ROCKSDB") == "1":
        print("lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB (CMake found "
              "no pkg-config 'rocksdb'; install librocksdb-dev and reconfigure)", file=sys.stderr)
        return 2
    db = args.get("db")
    if not db or os.path.exists(db):
        print(f"lsmbench: --db must name a new directory; got {db!r}", file=sys.stderr)
        return 1
    os.makedirs(db)
    with open(os.path.join(db, "CURRENT"), "w") as f:
        f.write("MANIFEST-000001\n")
    seed = int(args.get("seed", 0))
    rng = random.Random(seed)
    num, reads = int(args.get("num", 1000000)), int(args.get("reads", args.get("num", 1000000)))
    batch = int(args.get("batch_size", 1))
    strides = [int(v) for v in args.get("multiread_stride", "0").split(",")]
    batched_values = args.get("multiread_batched", "true").split(",")
    if any(v not in ("true", "false") for v in batched_values):
        print(f"lsmbench: --multiread_batched={args['multiread_batched']}: not a boolean; allowed: true or false",
              file=sys.stderr)
        return 2
    hash_index = args.get("hash_index", "false") == "true"
    memtable = args.get("memtable_filter", "none")
    spec = args.get("filter", "fastlocal:bpk=10")
    print(f"Keys:       {args.get('key_size', 16)} bytes each\nEntries:    {num}\n" + "-" * 48)  # (stdout: the
    # real tool prints its text to stderr; the runner must cope with either)
    passes = []  # (benchmark, stride, batched) in the order the real tool runs them
    for bench in args.get("benchmarks", "fillrandom,readrandom").split(","):
        if bench == "multireadrandom":
            passes += [(bench, stride, batched == "true") for stride in strides for batched in batched_values]
        else:
            passes.append((bench, strides[0], batched_values[0] == "true"))
    for bench, stride, batched in passes:
        us = 3.0 * (1 + 0.01 * seed)
        if bench.startswith("fill"):
            us = 5.0 * (1.015 if memtable != "none" else 1.0)
        elif bench == "readrandom":
            us *= 0.9 if hash_index else 1.0
        elif bench == "readmissing":
            us *= 0.75 if memtable != "none" else 1.0
        elif bench == "multireadrandom" and batched:
            us *= 1 - 0.2 * (stride > 0) * min(batch, 32) / 32
        record = {"engine": engine, "benchmark": bench, "num": num, "reads": reads, "micros_per_op": us,
                  "ops_per_sec": 1e6 / us, "found": reads if bench != "readmissing" else 0, "batch_size": batch,
                  "stride": stride, "multiread_batched": batched, "filter": spec, "hash_index": hash_index,
                  "memtable_filter": memtable, "sst_bytes": int(num * (120 + (1.33 if hash_index else 0)))}
        if bench.startswith("read") or bench == "multireadrandom":
            record["levels"] = [{"level": lv, "files": 2 ** lv, "bytes": num * 12 * 10 ** lv // 111, "filter": spec,
                                 "filter_checked": 1000 * 10 ** lv + 50 * lv, "filter_useful": 990 * 10 ** lv,
                                 "filter_positive": 10 ** (lv + 1) + 50 * lv, "filter_true_positive": 50 * lv,
                                 "fp_rate": 0.01} for lv in range(3)]
        if bench == "approximatememtablestats":
            record.update(approximate_stats(rng, batch, args.get("approx_algorithm", "new")))
        print(f"{bench:<12} : {us:10.3f} micros/op {int(1e6 / us)} ops/sec;")
        print(json.dumps(record))
    return 0


def approximate_stats(rng, width: int, algorithm: str) -> dict:
    if algorithm == "new":
        floor = 40 if width >= 40 else width  # exact up to 10; never under 40 once the truth is 40 or more
        sample = [width if width <= 10 else max(floor, round(rng.gauss(width * 1.05, width * 0.2))) for _ in range(2000)]
    else:
        sample = [0 if rng.random() < 0.13 else max(0, round(rng.lognormvariate(0, 1.5) * width)) for _ in range(2000)]
    sample.sort()
    n = len(sample)
    mean = sum(sample) / n
    counts = {}
    for v in sample:
        low = max(b for b in BUCKETS if b <= v)
        counts[low] = counts.get(low, 0) + 1
    return {"expected": width, "count": n, "mean": mean,
            "stddev": (sum((v - mean) ** 2 for v in sample) / n) ** 0.5, "min": sample[0],
            "p50": sample[n // 2], "p99": sample[int(n * 0.99)], "max": sample[-1],
            "histogram": [[low, c] for low, c in sorted(counts.items())]}


if __name__ == "__main__":
    sys.exit(main())
