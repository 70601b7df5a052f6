"""Every filter's speed beside RocksDB's own filter_bench (experiment speed_rocksdb):
one row per filter, our build ns/key, hot-filter and random-filter query ns (one at a
time) with RocksDB's figures and their ratio where RocksDB has the filter, and the
pipelined random-filter query against the memory floor, per query and per cache line
the query reads.

Records: `sim speed` (command "speed") and `sim filter_bench` (command "filter_bench",
the same canonical filter spec and modes build / single / random). The runner measures
both sweeps in interleaved rounds (experiments/grid.py, interleave_repeats), so repeat i
of ours and repeat i of RocksDB's ran back to back: a ratio is the median over repeats
of ours_i / rocksdb_i, robust to the host's speed changing between rounds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .load import with_labels

FIGURES = (("build", "ns_per_key", "build ns/key"), ("single", "net_ns_per_op", "hot ns"),
           ("random", "net_ns_per_op", "random ns"))


def _fmt(v: float) -> str:
    if not np.isfinite(v):
        return ""
    return f"{v:.0f}" if abs(v) >= 99.5 else f"{v:.2f}" if abs(v) < 9.995 else f"{v:.1f}"


def _by_seed(d: pd.DataFrame, command: str, filt: str, mode: str, column: str) -> pd.Series:
    sel = d[(d["command"] == command) & (d["filter"] == filt) & (d["mode"] == mode)]
    if column not in sel:
        return pd.Series(dtype=float)
    return pd.to_numeric(sel.set_index("seed")[column], errors="coerce").dropna()


def beside_rocksdb_rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per filter (in the order the results list them) with numeric columns:
    <figure> (our median), rocksdb <figure> (RocksDB's median), <figure> ratio (median of
    the per-repeat ratios) for build / hot / random; pipelined group (queries per
    prefetched group), ns, x floor, lines/query and x floor per line (medians); load (the runs' largest 1-minute load average, where
    recorded)."""
    if "command" not in df:  # no sim records (an engine experiment's results)
        return pd.DataFrame()
    d = df if "label" in df else with_labels(df)
    d = d[d["command"].isin(["speed", "filter_bench"])]
    if "mix" in d:
        d = d[d["mix"].isna() | (d["mix"] == "mixed")]
    rows = []
    for filt in dict.fromkeys(d.loc[d["command"] == "speed", "filter"]):
        ours_rows = d[(d["command"] == "speed") & (d["filter"] == filt)]
        row = {"filter": ours_rows["label"].iloc[0] if "label" in ours_rows else filt, "spec": filt}
        for mode, column, name in FIGURES:
            ours = _by_seed(d, "speed", filt, mode, column)
            peer = _by_seed(d, "filter_bench", filt, mode, column)
            row[name] = ours.median() if not ours.empty else np.nan
            row[f"rocksdb {name}"] = peer.median() if not peer.empty else np.nan
            both = ours.index.intersection(peer.index)
            row[f"{name} ratio"] = (ours[both] / peer[both]).median() if len(both) else np.nan
        piped = ours_rows[ours_rows["mode"] == "random_pipelined"]
        for name, column in (("pipelined group", "pipeline_depth"), ("pipelined ns", "net_ns_per_op"),
                             ("pipelined x floor", "x_floor"),
                             ("lines/query", "lines_per_query"), ("x floor per line", "x_floor_per_line")):
            values = pd.to_numeric(piped[column], errors="coerce") if column in piped else pd.Series(dtype=float)
            row[name] = values.median() if values.notna().any() else np.nan
        rand = ours_rows[ours_rows["mode"] == "random"]
        xf = pd.to_numeric(rand["x_floor"], errors="coerce") if "x_floor" in rand else pd.Series(dtype=float)
        row["random x floor"] = xf.median() if xf.notna().any() else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def beside_rocksdb_table(df: pd.DataFrame) -> pd.DataFrame | None:
    rows = beside_rocksdb_rows(df)
    if rows.empty:
        return None
    out = pd.DataFrame({"filter": rows["filter"]})
    for _, _, name in FIGURES:
        out[name] = rows[name].map(_fmt)
        out[f"RocksDB {name}"] = rows[f"rocksdb {name}"].map(_fmt)
        out[f"{name} ratio"] = rows[f"{name} ratio"].map(lambda v: f"{v:.2f}" if np.isfinite(v) else "")
    out["random × floor"] = rows["random x floor"].map(_fmt)
    out["pipelined group"] = rows["pipelined group"].map(lambda v: f"{v:.0f}" if np.isfinite(v) else "")
    out["pipelined ns"] = rows["pipelined ns"].map(_fmt)
    out["pipelined × floor"] = rows["pipelined x floor"].map(_fmt)
    out["lines/query"] = rows["lines/query"].map(lambda v: f"{v:.2f}" if np.isfinite(v) else "")
    out["× floor per line"] = rows["x floor per line"].map(_fmt)
    out.attrs["notes"] = [
        "ns: net ns per key (build: key making + hashing + building) or per query (gross minus a dry run over the "
        "same queries without the filter), mixed keys (half added), medians over the repeats; RocksDB's from its "
        "own util/filter_bench -quick with the same parameters (fastlocal -impl=1, legacy -impl=0, ribbon -impl=2, "
        "legacy_block as PlainTableBloomV1 without locality), measured in rounds interleaved with ours.",
        "ratio: ours / RocksDB's, the median of the per-round ratios. hot: every query to one filter; random: each "
        "query to a random filter of the working set, one at a time (filter_bench's Random filter); pipelined: the "
        "same queries in groups, each group's lines prefetched while the group before it is answered; a group holds "
        "16 / lines per query queries rounded to a power of two in 2..16 (sim speed --pipeline_depth auto: about "
        "16 lines in flight, what the core's miss buffers take), or as many as its records' pipeline_depth says.",
        "× floor: net ns / one independent random cache-line read of the same working set, measured beside each "
        "round; lines/query: the cache lines one query reads (sim/lines_read.h), and × floor per line = × floor / "
        "lines/query, the figure a filter reading several lines per query is held to.",
    ]
    return out


KINDS = {"beside_rocksdb": beside_rocksdb_table}
