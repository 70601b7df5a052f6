"""Section io (paper/sections/io.tex): experiment engine_io's cold and cached point lookups,
ours beside RocksDB, by compression and thread count."""

from __future__ import annotations

import math

from ...engine_data import benchmark_rows
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(values=io_values(inputs))


def io_values(inputs: Inputs) -> dict[str, str]:
    """Section io, from engine_io (medians over repeats unless said): cold readmissing's
    data-block reads from storage per lookup against the filters' model (pooled over
    compressions, thread counts and repeats: reads summed, binomial variances added);
    ours over RocksDB in µs per lookup, cached and cold; 2 threads over 1 in aggregate
    throughput; table bytes with LZ4 and ZSTD over none; cold p99 latencies."""
    names = ("ioColdMissReads", "ioColdMissModel", "ioColdMissSigma", "ioColdMissZ", "ioCachedRandomVsRocks",
             "ioCachedMissingVsRocks", "ioColdRandomVsRocks", "ioColdMissingVsRocks", "ioThreadsOurs",
             "ioThreadsRocks", "ioColdThreadsOurs", "ioLzFourOurs", "ioZstdOurs", "ioLzFourRocks", "ioZstdRocks",
             "ioColdRandomUs", "ioColdRandomPninetynine", "ioColdRandomRocksPninetynine", "ioCachedRandomUs",
             "ioColdRandomReads")
    vals = dict.fromkeys(names, "--")
    df = inputs.results("engine_io")
    if df is None:
        return vals
    rows = benchmark_rows(df, ("readrandom", "readmissing"))
    if rows.empty or "direct_reads" not in rows:
        return vals
    rows = rows.assign(cold=rows["direct_reads"].fillna(False).astype(bool))

    def med(engine, cold, bench, col, compression="none", threads=1):
        g = rows[(rows["engine"] == engine) & (rows["cold"] == cold) & (rows["benchmark"] == bench)
                 & (rows["compression"] == compression) & (rows["threads"] == threads)]
        g = g[g[col].notna()] if col in g else g.iloc[0:0]
        return float(g[col].median()) if len(g) else float("nan")

    def put(name, v, f="{:.2f}"):
        if not math.isnan(v):
            vals[name] = f.format(v)

    miss = rows[(rows["engine"] == "filterlab") & rows["cold"] & (rows["benchmark"] == "readmissing")]
    if "io_data_block_reads_per_op" in miss and "fp_reads_model_per_op" in miss:
        miss = miss[miss["io_data_block_reads_per_op"].notna() & miss["fp_reads_model_per_op"].notna()]
        n = miss["ops"].astype(float)
        if n.sum() > 0:
            reads = (miss["io_data_block_reads_per_op"] * n).sum() / n.sum()
            model = (miss["fp_reads_model_per_op"] * n).sum() / n.sum()
            sigma = math.sqrt(((miss["fp_reads_model_sigma_per_op"] * n) ** 2).sum()) / n.sum()
            put("ioColdMissReads", reads, "{:.4f}")
            put("ioColdMissModel", model, "{:.4f}")
            put("ioColdMissSigma", sigma, "{:.4f}")
            if sigma > 0:
                put("ioColdMissZ", (reads - model) / sigma, "{:+.1f}")
    for name, cold, bench in (("ioCachedRandomVsRocks", False, "readrandom"), ("ioCachedMissingVsRocks", False, "readmissing"),
                              ("ioColdRandomVsRocks", True, "readrandom"), ("ioColdMissingVsRocks", True, "readmissing")):
        put(name, med("filterlab", cold, bench, "micros_per_op") / med("rocksdb", cold, bench, "micros_per_op"))
    for name, engine, cold in (("ioThreadsOurs", "filterlab", False), ("ioThreadsRocks", "rocksdb", False),
                               ("ioColdThreadsOurs", "filterlab", True)):
        put(name, med(engine, cold, "readrandom", "ops_per_sec", threads=2) / med(engine, cold, "readrandom", "ops_per_sec"))
    for name, engine, comp in (("ioLzFourOurs", "filterlab", "lz4"), ("ioZstdOurs", "filterlab", "zstd"),
                               ("ioLzFourRocks", "rocksdb", "lz4"), ("ioZstdRocks", "rocksdb", "zstd")):
        put(name, med(engine, False, "readrandom", "sst_bytes", comp) / med(engine, False, "readrandom", "sst_bytes"))
    put("ioColdRandomUs", med("filterlab", True, "readrandom", "micros_per_op"), "{:.3g}")
    put("ioCachedRandomUs", med("filterlab", False, "readrandom", "micros_per_op"), "{:.3g}")
    put("ioColdRandomPninetynine", med("filterlab", True, "readrandom", "p99_micros"), "{:.3g}")
    put("ioColdRandomRocksPninetynine", med("rocksdb", True, "readrandom", "p99_micros"), "{:.3g}")
    put("ioColdRandomReads", med("filterlab", True, "readrandom", "io_data_block_reads_per_op"), "{:.2f}")
    return vals
