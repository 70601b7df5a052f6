"""sim speed records reduced to what the speed figures and table show: one
*cell* per filter and kind of measurement (mode, mix, batch size, prepared,
pick, pipeline depth, skew), aggregated over the repeats (seeds) of that cell:
median, min, max and n. tables.speed_table and plots.speed_bars/speed_vs_fp
both draw from here, so a figure and its table agree.

Why medians: on a shared or throttled machine a burst of other load slows
single measurements. The runner measures speed sweeps repeat-major
(experiments/grid.py), so such a burst tends to hit one repeat of many cells
rather than every repeat of one; the median of 3 then drops it. Cells whose
repeats still disagree by more than SPREAD_FLAG (max/min) are flagged.

The records (sim/speed.cc): command = "speed", mode (build | single | random |
random_pipelined | batched | skewed | huge), mix (inside | outside | mixed),
pick (single | random | skewed), batch, prepared (batch > 1), pipeline_depth
(random_pipelined; 0 otherwise), skew ("50% in N filters"), ns_per_key
(build), gross/dry/net_ns_per_op, net_cpu_ns_per_op, fp and outside_queries,
floor_ns_per_line and x_floor (random-filter modes unless --no_floor)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .load import with_labels

# Repeats of one cell whose max/min exceeds this are flagged (table: a trailing "*").
SPREAD_FLAG = 1.5
MODE_ORDER = ("build", "single", "random", "random_pipelined", "batched", "skewed", "huge")
MIX_ORDER = ("inside", "outside", "mixed")
# What tells two measurements of one filter apart; the repeats of a cell differ only in seed.
CELL = ("label", "mode", "mix", "batch", "prepared", "pick", "pipeline_depth", "skew")
# Modes whose queries go to a random filter of the working set (x_floor applies).
RANDOM_MODES = ("random", "random_pipelined")


def speed_rows(df: pd.DataFrame, modes=None) -> pd.DataFrame:
    """The speed records with the cell columns filled in (no NaN: batch 1, pipeline_depth 0,
    prepared/skew "" where they do not apply, pick from the mode for old records) and
    `value` = build ns/key or net ns/op. `label` gets " bpk=X" when the rows hold
    several bits/key settings, and likewise the sweep, query_path, working_set_mb and
    net_includes_hashing, so that only repeats share a cell."""
    df = df if "label" in df else with_labels(df)
    if "command" not in df or "mode" not in df:
        return df.iloc[0:0].assign(value=pd.Series(dtype=float))
    sp = df[df["command"] == "speed"].copy()
    if modes is not None:
        sp = sp[sp["mode"].isin(list(modes))]
    if sp.empty:
        return sp.assign(value=pd.Series(dtype=float))
    n = len(sp)

    def col(name, default):
        return sp[name] if name in sp else pd.Series([default] * n, index=sp.index, dtype=object)

    for name in ("x_floor", "floor_ns_per_line", "dry_ns_per_op", "net_cpu_ns_per_op", "fp", "outside_queries",
                 "working_set_bytes"):
        if name in sp:
            sp[name] = pd.to_numeric(sp[name], errors="coerce")
    sp["mix"] = col("mix", "").fillna("").astype(str)
    sp["batch"] = pd.to_numeric(col("batch", 1), errors="coerce").fillna(1).astype(int)
    sp["pipeline_depth"] = pd.to_numeric(col("pipeline_depth", 0), errors="coerce").fillna(0).astype(int)
    prepared = col("prepared", None)
    sp["prepared"] = [("prepared" if _truthy(p) else "unprepared") if b > 1 and p is not None and p == p else ""
                      for p, b in zip(prepared, sp["batch"])]
    default_pick = sp["mode"].map({"single": "single", "huge": "single", "skewed": "skewed"}).fillna("random")
    sp["pick"] = col("pick", None).where(col("pick", None).notna(), default_pick).astype(str)
    sp.loc[sp["mode"] == "build", "pick"] = ""
    sp["skew"] = [_skew_key(s, f) for s, f in zip(col("skew", None), col("filters", None))]
    for extra in ("sweep", "bpk", "query_path", "working_set_mb", "net_includes_hashing"):
        if extra in sp and sp[extra].astype(str).nunique() > 1:
            shown = sp[extra].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
            sp["label"] = sp["label"] + f" {extra}=" + shown
    build = sp["mode"] == "build"
    value = pd.Series(np.nan, index=sp.index)
    if "ns_per_key" in sp:
        value[build] = pd.to_numeric(sp.loc[build, "ns_per_key"], errors="coerce")
    if "net_ns_per_op" in sp:
        value[~build] = pd.to_numeric(sp.loc[~build, "net_ns_per_op"], errors="coerce")
    sp["value"] = value
    return sp[sp["value"].notna()]


def _truthy(v) -> bool:
    """True, numpy's True, 1 or "true"/"True" (a run column joined to text)."""
    if isinstance(v, str):
        return v.strip().lower() == "true"
    try:
        return bool(v)
    except (TypeError, ValueError):
        return False


def _skew_key(skew, filters) -> str:
    """'50% in 86 filters' with 8650 filters -> '50% of queries to 1% of the filters' (the
    count of filters differs between seeds; the configured share does not). sim speed takes
    floor(share x filters) primary filters, so the share lies in [primary, primary + 1) / filters:
    the shortest decimal in that range is the configured one (0.994% -> 1%)."""
    if skew is None or skew != skew or not str(skew):
        return ""
    m = re.match(r"\s*(\d+)% in (\d+) filters", str(skew))
    if not m:
        return str(skew)
    share, primary = m.groups()
    try:
        lo = 100 * int(primary) / float(filters)
        hi = 100 * (int(primary) + 1) / float(filters)
    except (TypeError, ValueError, ZeroDivisionError):
        return f"{share}% of queries to {primary} filters"
    for digits in range(4):
        part = math.ceil(lo * 10**digits - 1e-9) / 10**digits
        if part < hi:
            return f"{share}% of queries to {part:.{digits}f}% of the filters"
    return f"{share}% of queries to {lo:.2g}% of the filters"


def speed_cells(df: pd.DataFrame, modes=None) -> pd.DataFrame | None:
    """One row per cell: median, lo (min), hi (max), n (repeats), spread (hi/lo; inf when
    lo <= 0 < hi), flagged (spread > SPREAD_FLAG), x_floor (median, NaN where not
    measured), fp (pooled over the repeats' outside queries), dry_spread (max/min of the
    dry run's ns/op: a host-phase change shows there too), working_set_mib (median). Ordered by filter (first
    appearance), mode, pipeline depth, batch, prepared, pick, skew, mix."""
    sp = speed_rows(df, modes)
    if sp.empty:
        return None
    cell = list(CELL)
    g = sp.groupby(cell, sort=False, dropna=False)
    out = g["value"].agg(median="median", lo="min", hi="max", n="count").reset_index()
    out["spread"] = [hi / lo if lo > 0 else (np.inf if hi > lo else 1.0) for lo, hi in zip(out["lo"], out["hi"])]
    out["flagged"] = (out["n"] > 1) & (out["spread"] > SPREAD_FLAG)
    extra = {}
    if "x_floor" in sp:
        extra["x_floor"] = g["x_floor"].median()
    if "floor_ns_per_line" in sp:
        extra["floor_ns"] = g["floor_ns_per_line"].median()
    if "dry_ns_per_op" in sp:
        dry = g["dry_ns_per_op"]
        extra["dry_spread"] = dry.max() / dry.min()
    if "working_set_bytes" in sp:
        extra["working_set_mib"] = g["working_set_bytes"].median() / 2**20
    if "net_cpu_ns_per_op" in sp:
        extra["cpu_median"] = g["net_cpu_ns_per_op"].median()
    if "fp" in sp:
        outside = pd.to_numeric(sp["outside_queries"], errors="coerce") if "outside_queries" in sp else None
        if outside is not None and outside.notna().any():
            pos = (sp["fp"] * outside).groupby([sp[c] for c in cell], sort=False, dropna=False).sum(min_count=1)
            tot = outside.where(sp["fp"].notna()).groupby([sp[c] for c in cell], sort=False, dropna=False).sum()
            extra["fp"] = pos / tot.replace(0, np.nan)
        else:
            extra["fp"] = g["fp"].mean()
    for name, series in extra.items():
        out = out.merge(series.rename(name).reset_index(), on=cell, how="left")
    for name in ("x_floor", "floor_ns", "dry_spread", "cpu_median", "fp", "working_set_mib"):
        if name not in out:
            out[name] = np.nan
    labels = list(dict.fromkeys(sp["label"]))
    order = {
        "label": {v: i for i, v in enumerate(labels)},
        "mode": {m: i for i, m in enumerate(MODE_ORDER)},
        "prepared": {"": 0, "prepared": 1, "unprepared": 2},
        "pick": {"": 0, "single": 1, "random": 2, "skewed": 3},
        "mix": {"": 0, **{m: i + 1 for i, m in enumerate(MIX_ORDER)}},
    }
    keys = ["label", "mode", "pipeline_depth", "batch", "prepared", "pick", "skew", "mix"]
    sort_cols = []
    for k in keys:
        if k in order:
            out[f"_o_{k}"] = out[k].map(order[k]).fillna(len(order[k])).astype(float)
            sort_cols.append(f"_o_{k}")
        else:
            sort_cols.append(k)
    out = out.sort_values(sort_cols, kind="stable").drop(columns=[c for c in out if c.startswith("_o_")])
    return out.reset_index(drop=True)


def describe(mode: str, batch: int = 1, prepared: str = "", pick: str = "", depth: int = 0, skew: str = "") -> str:
    """What a cell measures, in words a reader understands, with the sim's mode name."""
    target = "hot filter" if pick == "single" else "random filter"
    if mode == "build":
        return "build (ns per key)"
    if mode == "single":
        return "hot filter (single)"
    if mode == "random":
        return "random filter, one at a time (random)"
    if mode == "random_pipelined":
        return f"random filter, pipelined in groups of {depth} (random_pipelined)"
    if mode == "batched":
        return f"{target}, batches of {batch}, {prepared or 'prepared'} (batched)"
    if mode == "skewed":
        return f"skewed: {skew} (skewed)" if skew else "skewed filter choice (skewed)"
    if mode == "huge":
        how = "one at a time" if batch <= 1 else f"batches of {batch}"
        return f"one huge filter, {how} (huge)"
    return mode


def panel_title(mode: str, depth: int = 0) -> str:
    """A speed_bars panel's title (tests check the single and random ones)."""
    if mode == "single":
        return "single-filter queries"
    if mode == "random":
        return "random-filter queries"
    if mode == "random_pipelined":
        return f"random-filter queries, pipelined (groups of {depth})"
    return f"{mode} queries"
