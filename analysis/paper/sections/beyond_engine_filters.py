"""Section beyond (paper/sections/beyond.tex), its every-filter-in-the-engine part: experiment
engine_filters (engine_filters.tex and the values the text names)."""

from __future__ import annotations

import math

import pandas as pd

from ...engine_data import filter_summary
from ...tex import escape
from ..numbers import fmt
from ..section import Inputs, Section, not_measured


def section(inputs: Inputs) -> Section:
    text, values = engine_filters_table_tex(inputs)
    return Section(values=values, files={"engine_filters.tex": text})


def engine_filters_table_tex(inputs: Inputs) -> tuple[str, dict[str, str]]:
    """Section beyond: every filter of engine_filters in the engine's tables, one row each
    (our engine, then RocksDB's runs): filter bits per stored key, FP rate over all levels
    with its 95% interval, data-block reads per missing-key lookup caused by false
    positives (measured; the models' expectation +- one binomial sigma), and median µs per
    lookup of readrandom and readmissing; with the values the text names."""
    vals = {k: "--" for k in ("efSpecs", "efFastMissing", "efNoneMissing", "efRocksMissing", "efRocksNoneMissing",
                              "efFastRandom", "efRocksRandom", "efWithinModel", "efModelled",
                              "efFastestMissing", "efSlowestMissing", "efSlowestMissingUs", "efFastestMissingUs",
                              "efMissingVsRocks", "efRandomVsRocks", "efOutsideModel")}
    df = inputs.results("engine_filters")
    s = filter_summary(df) if df is not None else None
    if s is None or s.empty:
        return not_measured("engine_filters"), vals

    def num(v, f="{:.3g}"):
        return "--" if v is None or pd.isna(v) else "$" + f.format(v) + "$"

    out = [r"\begin{tabular}{@{}lrrrrrr@{}}", r"\toprule",
           r"filter & bits/key & FP (\%) over levels & FP reads / lookup, model & checks & "
           r"readmissing \textmu{}s & readrandom \textmu{}s \\", r"\midrule"]
    order = s.assign(rocks=s["engine"] == "rocksdb", none=s["filter_label"].str.endswith("no filter"))
    order = order.sort_values(["rocks", "none", "filter_label"])
    for _, r in order.iterrows():
        fp = "--" if pd.isna(r.get("fp")) else (f"${fmt(100 * r['fp'], 'percent')}$ "
                                                f"[{fmt(100 * r['ci_low'], 'percent')}, {fmt(100 * r['ci_high'], 'percent')}]")
        reads = "--" if pd.isna(r.get("fp_reads")) else (
            f"{num(r['fp_reads'], '{:.2e}')}, {num(r['fp_reads_model'], '{:.2e}')}")
        out.append(f"{escape(r['filter_label'])} & {num(r.get('bits_per_key'), '{:.2f}')} & {fp} & {reads} & "
                   f"{num(r.get('checks_per_lookup'), '{:.2f}')} & {num(r['readmissing_us'])} & "
                   f"{num(r['readrandom_us'])} \\\\")
    out += [r"\bottomrule", r"\end{tabular}"]

    ours = s[(s["engine"] == "filterlab") & ~s["filter_label"].str.endswith("no filter")]
    vals["efSpecs"] = str(len(ours))

    def us(engine, label, col):
        g = s[(s["engine"] == engine) & (s["filter_label"] == label)]
        return float(g[col].iloc[0]) if len(g) and pd.notna(g[col].iloc[0]) else float("nan")

    fast = next((l for l in ours["filter_label"] if str(l) in ("fastlocal", "fastlocal:bpk=10")), None)
    pairs = {"efFastMissing": ("filterlab", fast, "readmissing_us"), "efFastRandom": ("filterlab", fast, "readrandom_us"),
             "efNoneMissing": ("filterlab", "no filter", "readmissing_us"),
             "efRocksMissing": ("rocksdb", "rocksdb fastlocal", "readmissing_us"),
             "efRocksRandom": ("rocksdb", "rocksdb fastlocal", "readrandom_us"),
             "efRocksNoneMissing": ("rocksdb", "rocksdb no filter", "readmissing_us")}
    got = {k: us(*v) for k, v in pairs.items()}
    for k, v in got.items():
        if not math.isnan(v):
            vals[k] = f"{v:.3g}"
    if not math.isnan(got["efFastMissing"] / got["efRocksMissing"]):
        vals["efMissingVsRocks"] = f"{got['efFastMissing'] / got['efRocksMissing']:.2f}"
    if not math.isnan(got["efFastRandom"] / got["efRocksRandom"]):
        vals["efRandomVsRocks"] = f"{got['efFastRandom'] / got['efRocksRandom']:.2f}"
    modelled = ours[ours["fp_reads_sigma"].notna() & (ours["fp_reads_sigma"] > 0)] if "fp_reads_sigma" in ours else ours.iloc[0:0]
    if len(modelled):
        z = (modelled["fp_reads"] - modelled["fp_reads_model"]).abs() / modelled["fp_reads_sigma"]
        vals["efModelled"] = str(len(modelled))
        vals["efWithinModel"] = str(int((z <= 3).sum()))
        vals["efOutsideModel"] = ", ".join(escape(v) for v in modelled.loc[z > 3, "filter_label"]) or "none"
    by_missing = ours.sort_values("readmissing_us")
    if len(by_missing):
        vals["efFastestMissing"] = escape(by_missing["filter_label"].iloc[0])
        vals["efFastestMissingUs"] = f"{by_missing['readmissing_us'].iloc[0]:.3g}"
        vals["efSlowestMissing"] = escape(by_missing["filter_label"].iloc[-1])
        vals["efSlowestMissingUs"] = f"{by_missing['readmissing_us'].iloc[-1]:.3g}"
    return "\n".join(out) + "\n", vals
