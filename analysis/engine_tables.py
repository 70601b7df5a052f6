"""The engine's summary tables (lsmbench results) as DataFrames of display
strings; tables.py writes them as Markdown and LaTeX. Same numbers as the
figures (engine_data.py): medians over repeats."""

from __future__ import annotations

import pandas as pd

from .engine_data import (block_seek_summary, context_label, filter_summary, level_fp, multiget_summary,
                          range_seek_summary, range_summary, space_summary, toggle_summary)


def multiget_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """The published MultiGet table's shape: per engine and stride, the baseline's and
    batched MultiGet's µs per key and the speedup, one column per batch size."""
    s = multiget_summary(df)
    if s is None:
        return None
    rows = []
    for (engine, stride), g in s.groupby(["engine", "stride"], sort=True):
        g = g.set_index("batch_size")
        base = "Get loop" if (g["baseline"] == "Get loop").all() else "readrandom"
        for op, col, fmt in ((f"{base} µs/key", "get_us", "{:.3f}"), ("MultiGet µs/key", "multiget_us", "{:.3f}"),
                             ("speedup", "speedup", "{:.2f}x")):
            row = {"engine": engine, "stride": int(stride), "op": op}
            for b, v in g[col].items():
                row[f"batch {int(b)}"] = "" if pd.isna(v) else fmt.format(v)
            rows.append(row)
    return pd.DataFrame(rows)


def _toggle_table(df, toggle: str, benches: tuple, space: bool) -> pd.DataFrame | None:
    t = toggle_summary(df, toggle, benches)
    if t is None:
        return None
    ctx = t.attrs["context"]
    rows = []
    for _, r in t.iterrows():
        rows.append({"config": context_label(r, ctx), "measure": f"{r['benchmark']} ops/s",
                     "off": f"{r['median_off']:.0f}", "on": f"{r['median_on']:.0f}",
                     "change": f"{r['change']:+.1%}", "repeats": f"{int(r['repeats_off'])}/{int(r['repeats_on'])}"})
    sp = space_summary(df, toggle) if space else None
    if sp is not None:
        for _, r in sp.iterrows():
            rows.append({"config": context_label(r, sp.attrs["context"]), "measure": "SST bytes/key",
                         "off": f"{r['median_off']:.2f}", "on": f"{r['median_on']:.2f}",
                         "change": f"{r['change']:+.1%}",
                         "repeats": f"{int(r['repeats_off'])}/{int(r['repeats_on'])}"})
    return pd.DataFrame(rows)


def hash_index_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Throughput (ops/s, median) and SST bytes per key with the data-block hash index off and on."""
    return _toggle_table(df, "hash_index", ("readrandom", "readmissing", "seekrandom"), space=True)


def block_seek_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """One data block's SeekForGet (engine_bench): per block size, CPU ns per seek with binary
    search and with the hash index at each util ratio (median, min-max), the change, the
    share of lookups falling back to binary search and the index's bytes per key."""
    s = block_seek_summary(df)
    if s is None:
        return None
    rows = []
    for records, g in s.groupby("records", sort=True):
        row = {"entries": int(records)}
        if "block_bytes" in g:
            row["block KiB"] = f"{g['block_bytes'].iloc[0] / 1024:.1f}"
        for _, r in g.iterrows():
            name = "binary" if not r["hash"] else f"hash {r['util_pct'] / 100:g}"
            row[f"{name} ns"] = f"{r['median']:.1f} ({r['lo']:.1f}-{r['hi']:.1f})"
            if r["hash"]:
                row[f"{name} change"] = f"{r['change']:+.1%}"
                if "fallback_ratio" in r:
                    row[f"{name} fallbacks"] = f"{r['fallback_ratio']:.1%}"
                if "index_bytes_per_key" in r:
                    row[f"{name} B/key"] = f"{r['index_bytes_per_key']:.2f}"
        rows.append(row)
    t = pd.DataFrame(rows)
    t.attrs["notes"] = [f"CPU ns per SeekForGet of an existing key in one cached block, median (min-max) over "
                        f"{int(s['n'].min())} repetitions; change: hash over binary search (medians)."]
    return t


def memtable_filter_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Throughput (ops/s, median) with the memtable filter off and on."""
    return _toggle_table(df, "memtable_filter", ("readmissing", "fillrandom", "readrandom"), space=False)


def range_estimates_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Range-estimate statistics per true width and algorithm, pooled over repeats."""
    r = range_summary(df)
    if r is None:
        return None
    out = pd.DataFrame({
        "engine": r["engine"], "algorithm": r["approx_algorithm"], "true count": r["width"],
        "estimates": r["estimates"], "mean": r["mean"].map(lambda v: f"{v:.5g}"),
        "sd % of true": (100 * r["stddev"] / r["width"]).map(lambda v: f"{v:.1f}"),
        "min": r["min"].map(lambda v: f"{v:.0f}"), "p50": r["p50"].map(lambda v: f"{v:.5g}"),
        "p99": r["p99"].map(lambda v: f"{v:.5g}"), "max": r["max"].map(lambda v: f"{v:.0f}"),
        "zeros %": r["zeros"].map(lambda v: "" if pd.isna(v) else f"{100 * v:.2f}"),
        "µs/op": r["micros_per_op"].map(lambda v: "" if pd.isna(v) else f"{v:.3f}"),
        "cost in readrandom lookups": r["lookups"].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")})
    if out["engine"].nunique() == 1:
        out = out.drop(columns="engine")
    return out


def engine_filters_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Per filter (and engine): median µs per lookup of readrandom and readmissing (as
    filter_summary gives them), and the measured FP rate per level (percent, pooled over
    repeats and read benchmarks)."""
    s = filter_summary(df)
    if s is None:
        return None
    table: dict[str, dict] = {}
    for _, r in s.iterrows():
        row = table.setdefault(r["filter_label"], {"filter": r["filter_label"]})
        for bench in ("readrandom", "readmissing"):
            if pd.notna(r[f"{bench}_us"]):
                row[f"{bench} µs/op"] = f"{r[f'{bench}_us']:.3f}"
    lv = level_fp(df)
    if lv is not None:
        for _, r in lv.iterrows():
            if r["filter_label"] in table:
                table[r["filter_label"]][f"L{r['level']} FP %"] = f"{100 * r['fp']:.3f}"
    return pd.DataFrame(list(table.values()))


def range_seeks_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Bounded seeks into empty ranges (lsmbench seekempty): per sweep, engine, range filter or
    prefix extractor, range length and correlation, us per seek (median, min-max over runs), data
    blocks read per seek and the seek FP rate."""
    s = range_seek_summary(df)
    if s is None:
        return None
    return pd.DataFrame({
        "sweep": s["sweep"], "engine": s["engine"], "range filter": s["range_filter"],
        "prefix extractor": s["prefix_extractor"], "range length": s["range_size"].map(lambda v: f"{v:.0f}"),
        "correlation": s["range_correlation"].map(lambda v: "none" if v < 0 else f"{v:g}"), "runs": s["runs"],
        "µs/seek": [f"{m:.2f} ({lo:.2f}–{hi:.2f})" for m, lo, hi in zip(s["us"], s["us_min"], s["us_max"])],
        "data blocks/seek": s["data_per_seek"].map(lambda v: f"{v:.3f}"),
        "seek FP": s["seek_fp"].map(lambda v: "" if pd.isna(v) else f"{v:.4f}")})


KINDS = {"block_seek": block_seek_table, "multiget": multiget_table, "hash_index": hash_index_table, "memtable_filter": memtable_filter_table,
         "range_estimates": range_estimates_table, "engine_filters": engine_filters_table,
         "range_seeks": range_seeks_table}
