"""The space-time comparison of every filter (experiments/filters_pareto.toml): one row
per filter spec joining its three workers' records on the canonical spec (`filter`):

- sim fp: measured FP rate pooled over seeds with its 95% Wilson interval, the built
  filters' bits/key, and the space overhead over the information-theoretic bound,
  bits/key / log2(1/FP) - 1 (Bloom's ideal is +44%, XOR's +23%, binary fuse 8-13%);
- sim speed: build ns/key (keys + hash + build), hot single-filter and random-filter
  net ns/query (mixed queries; random one at a time and pipelined in groups of 16),
  medians over the repeats;
- sim model: Build's temporary bytes/key (FilterPolicy::BuildTemporaryBytes).

The family of a row is its variant (the spec's name before ':'); the plot gives each
family one colour."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .load import pooled_fp
from .speed_data import speed_rows

# Speed cells a row shows: (column, mode, pipeline depth of random_pipelined), mixed queries.
SPEED_COLUMNS = (("build_ns_per_key", "build", 0), ("hot_ns", "single", 0), ("random_ns", "random", 0),
                 ("pipelined_ns", "random_pipelined", 16))


def curve_key(spec: str) -> str:
    """The spec without its size: bpk and the probe count chosen for it removed, so the
    sizes of one layout share a key (one curve on the plots)."""
    return re.sub(r"(bpk|probes)=[^,]*,?", "", str(spec)).rstrip(",:")


def family_of(spec: str) -> str:
    return str(spec).split(":", 1)[0]


def pareto_rows(df: pd.DataFrame) -> pd.DataFrame | None:
    """One row per filter spec that has FP records: family, filter, bits_per_key, fp, ci_low,
    ci_high, overhead (bits over the bound, a fraction), the speed medians of SPEED_COLUMNS,
    working_set_mib of the random-filter runs, temp_bytes_per_key. Missing measurements are NaN."""
    if "command" not in df or not (df["command"] == "fp").any():
        return None
    fp = pooled_fp(df, ["filter"])
    fp = fp[fp["queries"] > 0].copy()
    if fp.empty:
        return None
    fp["family"] = fp["filter"].map(family_of)
    # A measured FP of 0 has no finite bound; the interval's top end gives a conservative one.
    fp_for_bound = fp["fp"].where(fp["fp"] > 0, fp["ci_high"])
    fp["overhead"] = fp["bits_per_key"] / np.log2(1 / fp_for_bound) - 1
    out = fp[["family", "filter", "bits_per_key", "fp", "ci_low", "ci_high", "overhead", "model_fp"]].copy()

    sp = speed_rows(df, modes=[m for _, m, _ in SPEED_COLUMNS])
    for column, mode, depth in SPEED_COLUMNS:
        out[column] = np.nan
        if sp.empty:
            continue
        sel = sp[sp["mode"] == mode]
        if mode == "random_pipelined":
            sel = sel[sel["pipeline_depth"] == depth]
        if mode != "build":
            sel = sel[sel["mix"] == "mixed"]
        med = sel.groupby("filter")["value"].median()
        out[column] = out["filter"].map(med)
    out["working_set_mib"] = np.nan
    if not sp.empty and "working_set_bytes" in sp:
        ws = sp[sp["mode"] == "random"].groupby("filter")["working_set_bytes"].median() / 2**20
        out["working_set_mib"] = out["filter"].map(ws)

    out["temp_bytes_per_key"] = np.nan
    if "build_temporary_bytes_per_key" in df:
        model = df[df["command"] == "model"]
        temp = model.groupby("filter")["build_temporary_bytes_per_key"].median()
        out["temp_bytes_per_key"] = out["filter"].map(temp)
    return out.sort_values(["family", "bits_per_key"]).reset_index(drop=True)


def _fmt(v, digits=3) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}g}"


def pareto_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """pareto_rows formatted: the columns of fastfilter_cpp's table (bits/key, FP, over the
    bound, build and query ns) and filter_bench's (hot and random-filter ns)."""
    rows = pareto_rows(df)
    if rows is None or rows.empty:
        return None
    ws = rows["working_set_mib"].dropna()
    ws_text = f" ({ws.median():.0f} MiB)" if not ws.empty else ""
    return pd.DataFrame({
        "family": rows["family"],
        "filter": rows["filter"],
        "bits/key": rows["bits_per_key"].map(lambda v: f"{v:.2f}"),
        "FP %": (100 * rows["fp"]).map(lambda v: f"{v:.4g}"),
        "95% CI %": [f"{100 * a:.3g}..{100 * b:.3g}" for a, b in zip(rows["ci_low"], rows["ci_high"])],
        "over log2(1/FP)": rows["overhead"].map(lambda v: f"{100 * v:+.1f}%"),
        "build ns/key": rows["build_ns_per_key"].map(_fmt),
        "temp bytes/key": rows["temp_bytes_per_key"].map(lambda v: _fmt(v, 3)),
        "hot ns": rows["hot_ns"].map(_fmt),
        f"random ns{ws_text}": rows["random_ns"].map(_fmt),
        f"pipelined ns{ws_text}": rows["pipelined_ns"].map(_fmt),
    })
