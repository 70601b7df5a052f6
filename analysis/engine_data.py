"""The engine's results (lsmbench records) reduced to what its figures and
tables show: medians over repeats, on/off ratios, MultiGet speedups, range
estimate distributions and per-level filter FP rates. engine_plots.py and
engine_tables.py both draw from here, so a figure and its table agree.

The records (one per benchmark, see experiments/README.md "lsmbench records"):
engine, benchmark, num, reads, micros_per_op, ops_per_sec, batch_size, stride,
filter, hash_index, memtable_filter, ...; optional sst_bytes; optional
levels = [{level, files, bytes, filter, filter_checked, filter_useful,
filter_positive, filter_true_positive, fp_rate}] (the table holds one row per
level, columns levels_*);
approximatememtablestats adds expected, count, mean, stddev, min, p50, p99,
max, optionally zero_fraction and histogram = [[bucket_low, count], ...] (JSON
text here)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .load import wilson, with_labels

# Parameters that can tell two engine configurations apart (run columns or record fields).
# approx_algorithm is left out: it matters to approximatememtablestats only (range_summary
# groups by it), and lsmbench reports "old" for every RocksDB record.
CONTEXT_COLS = ("engine", "label", "num", "key_size", "value_size", "cache_mb", "write_buffer_mb", "util_ratio",
                "hash_index", "memtable_filter", "batch_size", "stride", "multiread_batched", "compression",
                "threads", "direct_reads")


def benchmark_rows(df: pd.DataFrame, names=None) -> pd.DataFrame:
    """One row per lsmbench record (a record's per-level rows collapsed), optionally only `names`."""
    if "benchmark" not in df:
        return df.iloc[0:0]
    df = df if "label" in df else with_labels(df)
    rows = df[df["benchmark"].notna()]
    if "worker" in rows:
        rows = rows[rows["worker"] == "lsmbench"]
    if names is not None:
        rows = rows[rows["benchmark"].isin(list(names))]
    rows = rows.drop(columns=[c for c in rows if c.startswith("levels_")])
    key = ["run_key", "record_index"] if "record_index" in rows else ["run_key", "benchmark"]
    rows = rows.drop_duplicates(key).copy()
    if "engine" not in rows:
        rows["engine"] = "filterlab"
    rows["engine"] = rows["engine"].fillna("filterlab")
    return rows


def sweeps_where(rows: pd.DataFrame, test) -> pd.DataFrame:
    """The rows of the sweeps (each taken whole) for which test(rows of the sweep) holds,
    so that a figure about one question ignores a config's other sweeps."""
    if rows.empty:
        return rows
    if "sweep" not in rows:
        return rows if test(rows) else rows.iloc[0:0]
    keep = [name for name, g in rows.groupby("sweep", sort=False, dropna=False) if test(g)]
    return rows[rows["sweep"].isin(keep)]


def varying(rows: pd.DataFrame, exclude=()) -> list[str]:
    """The context columns that take more than one value in `rows`."""
    return [c for c in CONTEXT_COLS if c in rows and c not in exclude
            and rows[c].astype(str).nunique(dropna=False) > 1]


def context_label(row, cols, sep: str = " ", short: bool = False) -> str:
    """'rocksdb value_size=4' from a row and the varying context columns (engine shown
    bare); short: filter specs by their variant name only (for axis labels)."""
    parts = []
    for c in cols:
        v = row[c]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if short and isinstance(v, str):
            v = v.partition(":")[0]
        parts.append(str(v) if c in ("engine", "label") else f"{c}={v}")
    return sep.join(parts)


def medians(rows: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    """Median, min, max and count of `value` over the repeats of each `by` group."""
    rows = rows[rows[value].notna()]
    return rows.groupby(by, sort=True, dropna=False)[value].agg(
        median="median", min="min", max="max", repeats="count").reset_index()


def _off_on(med: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Medians with the feature off and on side by side (suffixes _off, _on), and the change."""
    off = med[~med["on"].astype(bool)].drop(columns="on")
    on = med[med["on"].astype(bool)].drop(columns="on")
    out = off.merge(on, on=keys, suffixes=("_off", "_on"))
    out["change"] = out["median_on"] / out["median_off"] - 1
    return out


def toggle_summary(df: pd.DataFrame, toggle: str, names, value: str = "ops_per_sec") -> pd.DataFrame | None:
    """Medians of `value` with the feature off and on, per context and benchmark, and
    the change on/off - 1. `toggle` is hash_index (bool) or memtable_filter (a spec or
    "none"). None unless both states were measured."""
    rows = _toggled(benchmark_rows(df, names), toggle)
    if rows is None:
        return None
    ctx = ["engine", *varying(rows, exclude=(toggle, "engine"))]
    out = _off_on(medians(rows, [*ctx, "benchmark", "on"], value), [*ctx, "benchmark"])
    out.attrs["context"] = ctx
    return out


def _toggled(rows: pd.DataFrame, toggle: str) -> pd.DataFrame | None:
    """Rows of the sweeps that measure `toggle` both off and on, with an `on` column."""
    if rows.empty or toggle not in rows:
        return None
    rows = rows[rows[toggle].notna()]
    rows = sweeps_where(rows, lambda g: feature_on(g[toggle]).nunique() > 1).copy()
    if rows.empty:
        return None
    rows["on"] = feature_on(rows[toggle])
    return rows


def feature_on(values: pd.Series) -> pd.Series:
    """True where a toggle column means 'on': a true boolean, or a spec other than 'none'."""
    def on(v):
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        return str(v).strip().lower() not in ("none", "", "false", "0", "off")

    return values.map(on).astype(bool)


def space_summary(df: pd.DataFrame, toggle: str) -> pd.DataFrame | None:
    """SST bytes per stored key with the feature off and on: each run's last record with a size
    (sst_bytes, else the sum of its per-level bytes) over the entries its tables hold (the sum of
    its per-level entries; --num where the records have none: fillrandom draws --num keys with
    repeats, so after compaction the tables hold about 63% of --num), median over repeats."""
    rows = benchmark_rows(df)
    if rows.empty or toggle not in rows or "num" not in rows:
        return None
    per_record = None
    if "sst_bytes" in rows and rows["sst_bytes"].notna().any():
        per_record = rows[rows["sst_bytes"].notna()][["run_key", "record_index" if "record_index" in rows
                                                     else "benchmark", "sst_bytes"]]
    elif "levels_bytes" in df:
        lv = df[df["levels_bytes"].notna() & df["run_key"].isin(rows["run_key"])]
        if not lv.empty:
            key = "record_index" if "record_index" in lv else "benchmark"
            per_record = lv.groupby(["run_key", key], sort=False)["levels_bytes"].sum()
            per_record = per_record.rename("sst_bytes").reset_index()
    if per_record is None or per_record.empty:
        return None
    key = "record_index" if "record_index" in per_record else "benchmark"
    if "levels_entries" in df and key in df:
        entries = df[df["levels_entries"].notna()].groupby(["run_key", key], sort=False)["levels_entries"].sum()
        per_record = per_record.merge(entries.rename("entries").reset_index(), on=["run_key", key], how="left")
    else:
        per_record = per_record.assign(entries=float("nan"))
    last = per_record.groupby("run_key", sort=False).tail(1)[["run_key", "sst_bytes", "entries"]]
    runs = rows.drop_duplicates("run_key").drop(columns=["sst_bytes", "entries"], errors="ignore").merge(last, on="run_key")
    runs = _toggled(runs, toggle)
    if runs is None:
        return None
    stored = runs["entries"].where(runs["entries"] > 0, runs["num"])
    runs["bytes_per_key"] = runs["sst_bytes"] / stored
    ctx = ["engine", *varying(runs, exclude=(toggle, "engine"))]
    out = _off_on(medians(runs, [*ctx, "on"], "bytes_per_key"), ctx)
    if out.empty:
        return None
    out.attrs["context"] = ctx
    return out


def multiget_summary(df: pd.DataFrame) -> pd.DataFrame | None:
    """Per engine, batch size and stride: median µs per key of batched MultiGet, of the
    baseline, and the speedup baseline/MultiGet. The baseline is a loop of Get over the
    same keys (multireadrandom with multiread_batched=false) where measured, else the
    engine's readrandom (random keys, one Get each); column `baseline` says which."""
    mg = benchmark_rows(df, ["multireadrandom"])
    if mg.empty:
        return None
    mg = mg.copy()
    if "stride" not in mg:
        mg["stride"] = mg.get("multiread_stride", 0)
    batched = feature_on(mg["multiread_batched"].fillna(True)) if "multiread_batched" in mg else \
        pd.Series(True, index=mg.index)
    keys = ["engine", "batch_size", "stride"]
    multi = medians(mg[batched], keys, "micros_per_op").rename(columns={"median": "multiget_us", "repeats": "repeats"})
    if multi.empty:
        return None
    multi = multi[[*keys, "multiget_us", "repeats"]]
    if (~batched).any():
        base = medians(mg[~batched], keys, "micros_per_op").rename(columns={"median": "get_us"})
        out = multi.merge(base[[*keys, "get_us"]], on=keys, how="left")
        out["baseline"] = "Get loop"
    else:
        rr = benchmark_rows(df, ["readrandom"])
        rr = medians(rr[rr["run_key"].isin(mg["run_key"])], ["engine"], "micros_per_op").rename(
            columns={"median": "get_us"})
        if rr.empty:
            out = multi.assign(get_us=np.nan)
        else:
            out = multi.merge(rr[["engine", "get_us"]], on="engine", how="left")
        out["baseline"] = "readrandom"
    out["speedup"] = out["get_us"] / out["multiget_us"]
    for c in ("batch_size", "stride"):
        out[c] = out[c].astype(int)
    return out.sort_values(keys).reset_index(drop=True)


def parse_histogram(text) -> list[tuple[float, int]]:
    """[[bucket_low, count], ...] (JSON text or a list) as sorted (low, count) pairs; [] if absent."""
    if text is None or (isinstance(text, float) and np.isnan(text)) or text == "":
        return []
    pairs = json.loads(text) if isinstance(text, str) else text
    return sorted((float(lo), int(n)) for lo, n in pairs)


def range_summary(df: pd.DataFrame) -> pd.DataFrame | None:
    """approximatememtablestats pooled over repeats, per engine, algorithm and range width:
    estimates, pooled mean and standard deviation, min, median of the repeats' p50 and p99,
    max, the share of zero estimates (zero_fraction, else the histogram's bucket 0, which
    holds exactly the zeros; 0 when min > 0), µs per estimate and its cost in readrandom lookups of the
    same runs, and the merged histogram (column `histogram`, (bucket_low, count) pairs or [])."""
    rows = benchmark_rows(df, ["approximatememtablestats"])
    if rows.empty:
        return None
    rows = rows.copy()
    rows["width"] = rows["expected"] if "expected" in rows else rows["batch_size"]
    if "approx_algorithm" not in rows:
        rows["approx_algorithm"] = "new"
    rows["approx_algorithm"] = rows["approx_algorithm"].fillna("new")
    lookups = benchmark_rows(df, ["readrandom"])
    lookups = lookups[lookups["run_key"].isin(rows["run_key"])]
    out = []
    for (engine, algo, width), g in rows.groupby(["engine", "approx_algorithm", "width"], sort=True):
        n = g["count"].astype(float)
        total = n.sum()
        mean = (n * g["mean"]).sum() / total
        var = (n * (g["stddev"] ** 2 + g["mean"] ** 2)).sum() / total - mean ** 2
        merged: dict[float, int] = {}
        for h in g["histogram"] if "histogram" in g else []:
            for lo, c in parse_histogram(h):
                merged[lo] = merged.get(lo, 0) + c
        hist = sorted(merged.items())
        if "zero_fraction" in g and g["zero_fraction"].notna().all():
            zeros = (n * g["zero_fraction"]).sum() / total
        elif g["min"].min() > 0:
            zeros = 0.0
        elif hist:
            zeros = merged.get(0.0, 0) / sum(merged.values())
        else:
            zeros = np.nan
        us = g["micros_per_op"].median() if "micros_per_op" in g else np.nan
        lookup_us = lookups.loc[lookups["run_key"].isin(g["run_key"]), "micros_per_op"].median() \
            if "micros_per_op" in lookups else np.nan
        out.append({"engine": engine, "approx_algorithm": algo, "width": int(width), "estimates": int(total),
                    "mean": mean, "stddev": float(np.sqrt(max(var, 0.0))), "min": g["min"].min(),
                    "p50": g["p50"].median(), "p99": g["p99"].median(), "max": g["max"].max(),
                    "zeros": zeros, "micros_per_op": us, "lookups": us / lookup_us if lookup_us else np.nan,
                    "repeats": int(g["seed"].nunique()) if "seed" in g else len(g), "histogram": hist})
    return pd.DataFrame(out)


def filter_label(rows: pd.DataFrame) -> pd.Series:
    """The filter as the config named it ("none": "no filter"), prefixed with the engine
    when RocksDB ran it, and marked "(adapter)" where RocksDB ran a spec it has natively
    through filterlab's FilterPolicy adapter (--rocksdb_filter_adapter)."""
    label = rows["label"].astype(str).replace({"": "default filter", "none": "no filter"})
    if "rocksdb_filter_adapter" in rows:
        forced = rows["rocksdb_filter_adapter"].astype("boolean").fillna(False).astype(bool)
        label = label.where(~forced, label + " (adapter)")
    return label.where(rows["engine"] != "rocksdb", "rocksdb " + label)


def filter_rows(df: pd.DataFrame, names=("readrandom", "readmissing")) -> pd.DataFrame:
    """Records of the sweeps that compare filters: each names its filters and varies
    nothing else but the filter and the engine. Adds `filter_label`."""
    rows = benchmark_rows(df, names)
    if rows.empty:
        return rows
    rows = sweeps_where(rows, lambda g: (g["label"].astype(str) != "").all()
                        and not varying(g, exclude=("label", "engine")))
    return rows.assign(filter_label=filter_label(rows))


def level_fp(df: pd.DataFrame, per_level: bool = True) -> pd.DataFrame | None:
    """Measured FP rate per engine, filter and level (per_level=False: over all levels
    together), pooled over repeats and read benchmarks, with a 95% Wilson interval. Each record's fp_rate (lsmbench computes it:
    the share of lookups for keys not in the level's tables that the filter let through)
    is weighted by those lookups, checked - true positive; rate x lookups gives back the
    false-positive count the interval needs."""
    need = ("levels_level", "levels_filter_checked", "levels_filter_true_positive", "levels_fp_rate")
    if not all(c in df for c in need) or "benchmark" not in df:
        return None
    runs = filter_rows(df)  # the read records pick the runs (a waitforcompaction record lacks threads)
    lv = df[df["levels_level"].notna() & df["run_key"].isin(runs["run_key"])].copy() if not runs.empty else runs
    if lv.empty:
        return None
    lv = lv.merge(runs.drop_duplicates("run_key")[["run_key", "filter_label"]], on="run_key")
    if "engine" not in lv:
        lv["engine"] = "filterlab"
    lv["engine"] = lv["engine"].fillna("filterlab")
    lv["negatives"] = lv["levels_filter_checked"] - lv["levels_filter_true_positive"]
    lv["false_positive"] = (lv["levels_fp_rate"].astype(float).fillna(0.0) * lv["negatives"]).round()
    keys = ["engine", "filter_label", *(["levels_level"] if per_level else [])]
    agg = lv.groupby(keys, sort=True).agg(
        false_positive=("false_positive", "sum"), negatives=("negatives", "sum")).reset_index()
    agg = agg[agg["negatives"] > 0].rename(columns={"levels_level": "level"})
    if agg.empty:
        return None
    if per_level:
        agg["level"] = agg["level"].astype(int)
    agg["fp"] = agg["false_positive"] / agg["negatives"]
    agg["ci_low"], agg["ci_high"] = wilson(agg["false_positive"], agg["negatives"])
    return agg


def filter_summary(df: pd.DataFrame) -> pd.DataFrame | None:
    """One row per engine and filter of the sweeps that compare filters: median µs per
    lookup of readrandom and readmissing (and their min..max over repeats), the filter
    bits per stored key the tables hold, the FP rate over all levels (pooled, Wilson
    interval), and for readmissing the data-block reads per lookup that false positives
    caused beside what the filters' models expect (pooled over repeats: reads summed,
    binomial variances added) and the filters each such lookup consulted (median over
    repeats). Memory and the FP-read counts come from our engine only."""
    rows = filter_rows(df)
    if rows.empty or rows["filter_label"].nunique() < 2:
        return None
    keys = ["engine", "filter_label"]
    out = rows[keys].drop_duplicates().reset_index(drop=True)
    for bench in ("readrandom", "readmissing"):
        med = medians(rows[rows["benchmark"] == bench], keys, "micros_per_op")
        med = med.rename(columns={"median": f"{bench}_us", "min": f"{bench}_us_min", "max": f"{bench}_us_max"})
        out = out.merge(med.drop(columns="repeats"), on=keys, how="left")
    missing = rows[rows["benchmark"] == "readmissing"]
    if "filter_bits_per_key" in missing:
        out = out.merge(missing.groupby(keys)["filter_bits_per_key"].median().rename("bits_per_key").reset_index(),
                        on=keys, how="left")
    if "fp_reads_per_op" in missing:
        m = missing[missing["fp_reads_per_op"].notna()]
        ops = m["ops"].astype(float)
        pooled = m.assign(reads=m["fp_reads_per_op"] * ops, model=m["fp_reads_model_per_op"] * ops,
                          var=(m["fp_reads_model_sigma_per_op"] * ops) ** 2, n=ops).groupby(keys)[
            ["reads", "model", "var", "n"]].sum().reset_index()
        pooled["fp_reads"] = pooled["reads"] / pooled["n"]
        pooled["fp_reads_model"] = pooled["model"] / pooled["n"]
        pooled["fp_reads_sigma"] = np.sqrt(pooled["var"]) / pooled["n"]
        out = out.merge(pooled[[*keys, "fp_reads", "fp_reads_model", "fp_reads_sigma"]], on=keys, how="left")
    if "levels_filter_checked" in df and "record_index" in df and len(missing):
        # Filters consulted per missing-key lookup: the tree's shape (levels, level-0 files,
        # how the files of each level split the key space), which background compaction
        # timing varies from run to run; the spread of readmissing follows it.
        lv = df[df["levels_level"].notna() & (df["benchmark"] == "readmissing")]
        checked = lv.groupby(["run_key", "record_index"])["levels_filter_checked"].sum().rename("checked")
        per_run = missing.merge(checked.reset_index(), on=["run_key", "record_index"])
        per_run = per_run.assign(checks=per_run["checked"] / per_run["ops"].astype(float))
        out = out.merge(per_run.groupby(keys)["checks"].median().rename("checks_per_lookup").reset_index(),
                        on=keys, how="left")
    fp = level_fp(df, per_level=False)
    if fp is not None:
        out = out.merge(fp[[*keys, "fp", "ci_low", "ci_high", "negatives"]], on=keys, how="left")
    return out


def block_seek_summary(df: pd.DataFrame) -> pd.DataFrame | None:
    """engine_bench's BM_DataBlockSeekForGet (experiment engine_block_seek, gbench worker): one
    row per block (records) and index (hash, util_pct): CPU ns per seek as median, min and max
    over the repetitions, the change against binary search in the same block (medians), and the
    benchmark's counters (block bytes, index bytes per key, share of lookups falling back)."""
    need = ("command", "family", "args_records", "args_hash", "args_util_pct", "cpu_ns")
    if any(c not in df for c in need):
        return None
    rows = df[(df["command"] == "gbench") & (df["family"] == "BM_DataBlockSeekForGet")]
    if rows.empty:
        return None
    keys = ["args_records", "args_hash", "args_util_pct"]
    agg = {"median": ("cpu_ns", "median"), "lo": ("cpu_ns", "min"), "hi": ("cpu_ns", "max"),
           "n": ("cpu_ns", "count")}
    for c in ("counters_block_bytes", "counters_index_bytes_per_key", "counters_fallback_ratio"):
        if c in rows:
            agg[c.removeprefix("counters_")] = (c, "median")
    out = rows.groupby(keys).agg(**agg).reset_index()
    out = out.rename(columns={"args_records": "records", "args_hash": "hash", "args_util_pct": "util_pct"})
    binary = out[out["hash"] == 0].set_index("records")["median"]
    out["change"] = [m / binary[r] - 1 if h and r in binary.index else float("nan")
                     for r, h, m in zip(out["records"], out["hash"], out["median"])]
    return out.sort_values(["records", "hash", "util_pct"]).reset_index(drop=True)



def benchmark_records(df: pd.DataFrame) -> pd.DataFrame:
    """One row per benchmark record (the results hold one row per level of each record)."""
    return df.drop_duplicates(["run_key", "benchmark"])


def seek_fp(r) -> float:
    """Seek FP rate of an empty-range record as RocksDB's seek tickers define it: table seeks a
    filter passed over those it was asked about (every seek's range is empty, so no pass was
    useful); NaN where no filter was asked."""
    filtered = r.get("seek_stats_total_filtered")
    match = r.get("seek_stats_total_filter_match")
    if filtered is None or match is None or pd.isna(filtered) or pd.isna(match) or filtered + match == 0:
        return float("nan")
    return float(match) / float(filtered + match)


RANGE_SEEK_KEYS = ["sweep", "engine", "range_filter", "prefix_extractor", "range_size", "range_correlation"]


def range_seek_summary(df: pd.DataFrame) -> pd.DataFrame | None:
    """seekempty records (experiment engine_range) per sweep, engine, range filter, prefix
    extractor, range length and correlation: runs, median and extremes of us per seek, median
    data blocks read per seek, and the seek FP rate pooled over runs (sum of passes over sum of
    filter checks)."""
    if "benchmark" not in df:
        return None
    rec = benchmark_records(df)
    rec = rec[rec["benchmark"] == "seekempty"].copy()
    if rec.empty:
        return None
    for col in RANGE_SEEK_KEYS:
        rec[col] = rec[col].fillna("") if col in rec else ""
    rows = []
    for key, g in rec.groupby(RANGE_SEEK_KEYS, sort=False):
        checked = (g["seek_stats_total_filtered"] + g["seek_stats_total_filter_match"]).sum()
        rows.append({**dict(zip(RANGE_SEEK_KEYS, key)), "runs": len(g), "us": float(g["micros_per_op"].median()),
                     "us_min": float(g["micros_per_op"].min()), "us_max": float(g["micros_per_op"].max()),
                     "data_per_seek": float((g["seek_stats_total_data"] / g["ops"]).median()),
                     "seek_fp": float(g["seek_stats_total_filter_match"].sum() / checked) if checked else float("nan")})
    return pd.DataFrame(rows)
