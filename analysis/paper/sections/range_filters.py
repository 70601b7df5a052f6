"""Section range_filters (paper/sections/range_filters.tex; experiment range_filters, issue 29):
the best range filter's FP over prefix Bloom's and over bucketing's on correlated queries, and the
side-by-side run against the papers' code when its results are committed. (Moved here from
generate.py when the report took one module per section; the computation is h-range's.)"""

from __future__ import annotations

import pandas as pd

from ...tex import escape
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(values=range_filter_values(inputs))


def range_filter_values(inputs: Inputs) -> dict[str, str]:
    """The range-filter section's comparisons (experiment range_filters): at 16 bits/key, ranges of
    2^10 and correlation 0.8, the best range filter's FP over prefix Bloom's and over bucketing's;
    and the side-by-side run against the papers' code (range_filters_peers/peers.csv, when committed)."""
    out = {"rangeBestCorr": "--", "rangeBestCorrBucketing": "--",
           "rangePeerNote": "Not measured: no committed results for the side-by-side run."}
    df = inputs.results("range_filters")
    if df is not None and "range_length" in df:
        rows = df[(df["command"] == "rangefp") & (df["sweep"] == "fp_vs_bits_10") & (df["bpk"] == 16)
                  & (df["range_length"] == 1024) & (df["correlation"] == 0.8)]
        if not rows.empty:
            fp = rows.groupby("base_filter").apply(lambda g: g["positives"].sum() / g["queries"].sum())
            best_name = fp.drop(labels=[n for n in ("prefix_bloom:prefix=6", "bucketing") if n in fp.index]).idxmin()
            best = fp[best_name]
            for key, other in (("rangeBestCorr", "prefix_bloom:prefix=6"), ("rangeBestCorrBucketing", "bucketing")):
                if other in fp.index and fp[other] > 0:
                    out[key] = (f"{best / fp[other]:.3f} ({escape(best_name)} {100 * best:.2f}\\% against "
                                f"{100 * fp[other]:.1f}\\%)")
    peers = inputs.results_root / "range_filters_peers" / "peers.csv"
    if peers.exists():
        p = pd.read_csv(peers)
        lines = []
        for (variant, bpk, workload), g in p.groupby(["variant", "bpk", "workload"]):
            o, t = g[g["code"] == "ours"], g[g["code"] == "paper"]
            if o.empty or t.empty:
                continue
            lines.append((variant, bpk, workload, o["fpr"].median(), t["fpr"].median(),
                          o["build_ns_per_key"].median() / t["build_ns_per_key"].median(),
                          o["query_ns"].median() / t["query_ns"].median()))
        if lines:
            worst_build = max(lines, key=lambda r: r[5])
            worst_query = max(lines, key=lambda r: r[6])
            out["rangePeerNote"] = (
                f"Ours over the papers' code on the same keys and queries ({len(lines)} cells, medians of "
                f"{int(p['round'].nunique())} interleaved rounds): build time at most {worst_build[5]:.2f}x "
                f"({escape(str(worst_build[0]))} at {worst_build[1]} bits/key, {escape(str(worst_build[2]))}), "
                f"query time at most {worst_query[6]:.2f}x ({escape(str(worst_query[0]))} at {worst_query[1]} "
                f"bits/key, {escape(str(worst_query[2]))}).")
    return out
