"""Section range_engine, "Range queries end to end" (paper/sections/range_engine.tex; experiment
engine_range, issue 30): bounded seeks into empty
ranges through the engine with each range filter, none and the prefix Bloom, beside RocksDB's prefix
Bloom (the table: us per seek and the seek FP rate as RocksDB's seek tickers define it, by range length
and correlation), and the issue's targets: the runner's interleaved target sweeps (empty-range seeks with
and without a range filter, prefix seeks beside RocksDB) and the hand-run interleaved rounds in
paper/results/engine_range/targets.jsonl (seekrandom beside LevelDB, point lookups before and after)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from ...engine_data import benchmark_records, range_seek_summary, seek_fp
from ...load import wilson
from ..section import Inputs, Section, not_measured

EXPERIMENT = "engine_range"
SIM_EXPERIMENT = "range_filters"  # the simulator's rangefp records: each range filter's model or bound
TARGETS = "targets.jsonl"
# The table's columns; the figure (engine_plots.range_seeks) draws every length of the sweep, 2^0..2^16.
LENGTHS = (1, 16, 1024, 65536)
# Table rows: (label, sweep, range_filter or None for the prefix-Bloom sweeps).
ROWS = (("none", "range_filters", "none"), ("Grafite", "range_filters", "grafite:bpk=16"),
        ("Rosetta ($2^{10}$)", "range_filters", "rosetta:bpk=16,range=1024"),
        ("Rosetta ($2^{16}$)", "range_filters", "rosetta:bpk=16,range=65536"),
        ("bucketing", "range_filters", "bucketing:bpk=16"), ("SuRF (real, 8)", "range_filters", "surf:suffix=real,bits=8"),
        ("Memento", "range_filters", "memento:bpk=16,range=1024"),
        ("prefix Bloom (range filter)", "range_filters", "prefix_bloom:prefix=6,bpk=16"),
        ("prefix Bloom (engine)", "prefix_bloom_engine", None), ("RocksDB prefix Bloom", "prefix_bloom_rocksdb", None))


def _num(v: float, f: str = "{:.2f}") -> str:
    return "--" if v is None or (isinstance(v, float) and math.isnan(v)) else f.format(v)


def _fp_text(v: float) -> str:
    if v is None or math.isnan(v):
        return "--"
    return "0" if v == 0 else f"{v:.2g}"


def _names_spec(specs: pd.Series, spec: str) -> pd.Series:
    """Which of `specs` are `spec` as written or with parameters the engine's canonical spec appends
    (prefix_bloom's whole_key=0)."""
    return specs.fillna("").map(lambda v: v == spec or v.startswith(spec + ","))


def _rf_label(spec: str) -> str:
    return spec.split(":")[0]


def grid_table_tex(df: pd.DataFrame | None) -> str:
    """us per seek and seek FP rate per filter and range length, uncorrelated and d = 0.8."""
    if df is None:
        return not_measured(EXPERIMENT)
    rec = benchmark_records(df)
    rec = rec[rec["benchmark"] == "seekempty"]
    head = " & ".join(f"$2^{{{int(math.log2(n))}}}$" for n in LENGTHS)
    lines = ["\\begin{tabular}{l" + "r" * len(LENGTHS) + "}", "\\toprule",
             f"filter & \\multicolumn{{{len(LENGTHS)}}}{{c}}{{range length $l$: \\textmu s per seek (seek FP rate)}}\\\\",
             f" & {head}\\\\", "\\midrule"]
    for corr, title in ((-1.0, "uncorrelated"), (0.8, "correlated, $d = 0.8$")):
        lines.append(f"\\multicolumn{{{len(LENGTHS) + 1}}}{{l}}{{\\textit{{{title}}}}}\\\\")
        for label, sweep, rf in ROWS:
            g = rec[(rec["sweep"] == sweep) & (rec["range_correlation"] == corr)]
            if rf is not None:
                g = g[_names_spec(g["range_filter"], rf)]
            cells = []
            for n in LENGTHS:
                h = g[g["range_size"] == n]
                if h.empty:
                    cells.append("--")
                    continue
                us = float(h["micros_per_op"].median())
                fp = float(pd.Series([seek_fp(r) for _, r in h.iterrows()]).median())
                cells.append(f"{_num(us)} ({_fp_text(fp)})" if label != "none" else _num(us))
            lines.append(f"{label} & " + " & ".join(cells) + "\\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def level_fp_table_tex(df: pd.DataFrame | None, sim: pd.DataFrame | None) -> str:
    """The seek FP rate per level (the target_empty_ranges sweep: l = 2^10, uncorrelated, 10^6
    keys, the repeats' tickers summed) with its 95% Wilson interval, beside the filter's model or
    bound at the level's mean keys per table (lsmbench's range_model_fp; records without it: the
    simulator's for the same spec and length at 10^6 keys, experiment range_filters). Within: an
    exact model within 4 binomial sigma of the level's table seeks, a bound not exceeded by more."""
    if df is None:
        return not_measured(EXPERIMENT)
    rec = df[(df["sweep"] == "target_empty_ranges") & (df["benchmark"] == "seekempty")]
    rec = rec[rec["range_filter"].fillna("none") != "none"].dropna(subset=["levels_level"])
    if rec.empty:
        return not_measured(EXPERIMENT)
    lines = ["\\begin{tabular}{lrrlrl}", "\\toprule",
             "range filter & level & table seeks & seek FP rate [95\\%] & model (kind) & within\\\\", "\\midrule"]
    for spec, g in rec.groupby("range_filter", sort=True):
        model, kind = math.nan, ""
        if sim is not None:
            m = sim[(sim["filter"] == spec) & (sim["range_length"] == 1024) & sim["correlation"].isna()]
            if not m.empty:
                model, kind = float(m["model_fp"].iloc[0]), str(m["fp_model_kind"].iloc[0])
        per = g.groupby("levels_level")[["levels_seek_range_filtered", "levels_seek_range_filter_match"]].sum()
        # The engine's own model at the level's mean keys per table (lsmbench's range_model_fp), where
        # the records have it; else the simulator's at 10^6 keys.
        own = (g.groupby("levels_level")["levels_range_model_fp"].median() if "levels_range_model_fp" in g
               else pd.Series(dtype=float))
        for level, row in per.iterrows():
            level_model = float(own.get(level, math.nan))
            model_here = level_model if not math.isnan(level_model) else model
            asked = float(row["levels_seek_range_filtered"] + row["levels_seek_range_filter_match"])
            if asked == 0:
                continue
            matches = float(row["levels_seek_range_filter_match"])
            fp = matches / asked
            low, high = (float(x[0]) for x in wilson(pd.Series([matches]), pd.Series([asked])))
            within = "--"
            if not math.isnan(model_here):
                allowed = 4 * math.sqrt(model_here * (1 - model_here) / asked)
                within = "yes" if (fp - model_here <= allowed and (kind == "upper_bound" or model_here - fp <= allowed)) \
                    else "no"
            model_text = "--" if math.isnan(model_here) else f"{model_here:.4f} ({kind.replace('_', ' ') or 'model'})"
            lines.append(f"{_rf_label(spec)} & {int(level)} & {int(asked)} & {fp:.4f} [{low:.4f}, {high:.4f}] & "
                         f"{model_text} & {within}\\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _paired_ratio(g: pd.DataFrame, col: str, a, b, key: str) -> tuple[float, float, float]:
    """median(b)/median(a) of `col` where column `key` is a or b, and the lowest and highest of
    the per-seed ratios (the runs of one seed ran in one round)."""
    ga, gb = g[g[key] == a], g[g[key] == b]
    if ga.empty or gb.empty:
        return math.nan, math.nan, math.nan
    per = pd.merge(ga[["seed", col]], gb[["seed", col]], on="seed", suffixes=("_a", "_b"))
    r = per[f"{col}_b"] / per[f"{col}_a"]
    return float(gb[col].median() / ga[col].median()), float(r.min()), float(r.max())


def _targets(path: Path) -> pd.DataFrame | None:
    if not path.exists():
        return None
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return pd.DataFrame(rows) if rows else None


def _round_ratio(t: pd.DataFrame, bench: str, a: str, b: str, batched=None,
                 col: str = "micros_per_op") -> tuple[float, float, float, float, float]:
    """Hand-run rounds: medians of `col` for runs tagged a and b (benchmark `bench`), their
    ratio b/a, and the lowest and highest per-round ratio."""
    g = t[t["benchmark"] == bench]
    if batched is not None and "multiread_batched" in g:
        g = g[g["multiread_batched"] == batched]
    ga, gb = g[g["target_run"] == a], g[g["target_run"] == b]
    if ga.empty or gb.empty:
        return (math.nan,) * 5
    per = pd.merge(ga[["round", col]], gb[["round", col]], on="round", suffixes=("_a", "_b"))
    r = per[f"{col}_b"] / per[f"{col}_a"]
    ma, mb = float(ga[col].median()), float(gb[col].median())
    return ma, mb, mb / ma, float(r.min()), float(r.max())


def range_engine_values(results_root: Path, df: pd.DataFrame | None) -> dict[str, str]:
    """The numbers the section cites (\\val{rangeEngine...}); "--" where not measured."""
    names = ("TOneNoneUs", "TOneGrafiteUs", "TOneRosettaUs", "TOneGrafiteRatio", "TOneGrafiteLow", "TOneGrafiteHigh",
             "TOneRosettaRatio", "TOneRosettaLow", "TOneRosettaHigh", "TOneNoneData", "TOneGrafiteData",
             "TOneRosettaData", "TOneGrafiteFp", "TOneRosettaFp", "GrafiteBound", "TTwoOursUs", "TTwoRocksUs",
             "TTwoRatio", "TTwoLow", "TTwoHigh", "TThreeOursUs", "TThreeLevelUs", "TThreeRatio", "TThreeLow",
             "TThreeHigh", "TFourReadRatio", "TFourReadLow", "TFourReadHigh", "TFourMissingRatio",
             "TFourMissingLow", "TFourMissingHigh", "TFourMultiRatio", "TFourMultiLow", "TFourMultiHigh",
             "TFourLoopRatio", "TFourLoopLow", "TFourLoopHigh", "Load", "TOneGrafiteCpuRatio",
             "TOneRosettaCpuRatio", "TTwoCpuRatio", "TTwoCpuLow", "TTwoCpuHigh", "TThreeCpuRatio", "TThreeCpuLow",
             "TThreeCpuHigh", "TThreeOursCpu", "TThreeLevelCpu", "TFourReadCpuRatio", "TFourMissingCpuRatio",
             "TFourMultiCpuRatio", "TFourLoopCpuRatio", "TOneNoneCpu", "TOneGrafiteCpu", "TTwoOursCpu",
             "TTwoRocksCpu", "RunLoad", "TThreeMainRatio", "TThreeMainLow", "TThreeMainHigh",
             "TFourMissingMainRatio", "TFourMissingMainLow", "TFourMissingMainHigh")
    vals = {f"rangeEngine{n}": "--" for n in names}

    def put(n: str, v: float, f: str = "{:.2f}") -> None:
        vals[f"rangeEngine{n}"] = _num(v, f)

    put("GrafiteBound", 1024 / 2 ** (16 - 2), "{:.3f}")
    # The targets (ratios), cited by the text.
    vals.update(rangeEngineTOneTarget="0.3", rangeEngineTTwoTarget="0.9", rangeEngineTThreeTarget="0.9",
                rangeEngineTFourTarget="3\\%")
    if df is not None:
        rec = benchmark_records(df)
        t1 = rec[(rec["sweep"] == "target_empty_ranges") & (rec["benchmark"] == "seekempty")].copy()
        if not t1.empty:
            t1["data_per_seek"] = t1["seek_stats_total_data"] / t1["ops"]
            t1["fp"] = [seek_fp(r) for _, r in t1.iterrows()]
            for spec, n in (("none", "None"), ("grafite:bpk=16", "Grafite"), ("rosetta:bpk=16,range=1024", "Rosetta")):
                g = t1[t1["range_filter"] == spec]
                if g.empty:
                    continue
                put(f"TOne{n}Us", float(g["micros_per_op"].median()))
                put(f"TOne{n}Data", float(g["data_per_seek"].median()), "{:.3f}")
                put(f"TOne{n}Cpu", float(g["cpu_micros_per_op"].median()))
                if n != "None":
                    put(f"TOne{n}Fp", float(g["fp"].median()), "{:.4f}")
                    ratio, lo, hi = _paired_ratio(t1, "micros_per_op", "none", spec, "range_filter")
                    put(f"TOne{n}Ratio", ratio)
                    put(f"TOne{n}Low", lo)
                    put(f"TOne{n}High", hi)
                    put(f"TOne{n}CpuRatio", _paired_ratio(t1, "cpu_micros_per_op", "none", spec, "range_filter")[0])
        t2 = rec[(rec["sweep"] == "target_prefix_seeks") & (rec["benchmark"] == "seekrandom")]
        if not t2.empty:
            put("TTwoOursUs", float(t2[t2["engine"] == "filterlab"]["micros_per_op"].median()))
            put("TTwoRocksUs", float(t2[t2["engine"] == "rocksdb"]["micros_per_op"].median()))
            ratio, lo, hi = _paired_ratio(t2, "micros_per_op", "rocksdb", "filterlab", "engine")
            put("TTwoRatio", ratio)
            put("TTwoLow", lo)
            put("TTwoHigh", hi)
            put("TTwoOursCpu", float(t2[t2["engine"] == "filterlab"]["cpu_micros_per_op"].median()))
            put("TTwoRocksCpu", float(t2[t2["engine"] == "rocksdb"]["cpu_micros_per_op"].median()))
            ratio, lo, hi = _paired_ratio(t2, "cpu_micros_per_op", "rocksdb", "filterlab", "engine")
            put("TTwoCpuRatio", ratio)
            put("TTwoCpuLow", lo)
            put("TTwoCpuHigh", hi)
    meta = results_root / EXPERIMENT / "meta.json"
    if meta.exists():
        m = json.loads(meta.read_text())
        start = (m.get("machine") or m).get("load_average") or m.get("load_average")
        end = (m.get("machine") or m).get("load_average_end") or m.get("load_average_end")
        if start and end:
            vals["rangeEngineRunLoad"] = f"{start[0]:.1f} at its start and {end[0]:.1f} at its end"
    t = _targets(results_root / EXPERIMENT / TARGETS)
    if t is not None:
        ma, mb, ratio, lo, hi = _round_ratio(t, "seekrandom", "t3_leveldb", "t3_filterlab")
        put("TThreeOursUs", mb)
        put("TThreeLevelUs", ma)
        put("TThreeRatio", ratio)
        put("TThreeLow", lo)
        put("TThreeHigh", hi)
        ma, mb, ratio, lo, hi = _round_ratio(t, "seekrandom", "t3_leveldb", "t3_filterlab", col="cpu_micros_per_op")
        put("TThreeOursCpu", mb)
        put("TThreeLevelCpu", ma)
        put("TThreeCpuRatio", ratio)
        put("TThreeCpuLow", lo)
        put("TThreeCpuHigh", hi)
        # main before the engine-speed work (t3_main, t4_main), a third side in the same rounds.
        _, _, ratio, lo, hi = _round_ratio(t, "seekrandom", "t3_leveldb", "t3_main")
        put("TThreeMainRatio", ratio)
        put("TThreeMainLow", lo)
        put("TThreeMainHigh", hi)
        _, _, ratio, lo, hi = _round_ratio(t, "readmissing", "t4_base", "t4_main")
        put("TFourMissingMainRatio", ratio)
        put("TFourMissingMainLow", lo)
        put("TFourMissingMainHigh", hi)
        for bench, n, batched in (("readrandom", "Read", None), ("readmissing", "Missing", None),
                                  ("multireadrandom", "Multi", True), ("multireadrandom", "Loop", False)):
            _, _, ratio, lo, hi = _round_ratio(t, bench, "t4_base", "t4_new", batched)
            put(f"TFour{n}Ratio", ratio, "{:.3f}")
            put(f"TFour{n}Low", lo, "{:.3f}")
            put(f"TFour{n}High", hi, "{:.3f}")
            put(f"TFour{n}CpuRatio", _round_ratio(t, bench, "t4_base", "t4_new", batched, "cpu_micros_per_op")[2], "{:.3f}")
        if "load" in t:
            vals["rangeEngineLoad"] = f"{t['load'].min():.1f}--{t['load'].max():.1f}"
    return vals


def _pow2(n: float) -> str:
    return f"$2^{{{int(round(math.log2(n)))}}}$"


def length_sweep_values(df: pd.DataFrame | None) -> dict[str, str]:
    """What the text says of the sweep over range lengths (sweep range_filters, uncorrelated unless
    named): the shortest length at which a filter's seeks are no faster than no filter's, the spread
    of SuRF's and bucketing's us per seek over every length, and the correlated seek FP rates of the
    filters that keep one key's neighbourhood (bucketing, SuRF, the prefix Bloom)."""
    vals = {f"rangeEngineL{n}": "--" for n in ("GrafiteSlower", "MementoSlower", "RosettaSlower", "SurfLow",
                                                   "SurfHigh", "BucketingLow", "BucketingHigh", "NoneLow", "NoneHigh",
                                                   "CorrBucketingFp", "CorrSurfFp", "CorrPrefixFp", "Lengths")}
    s = range_seek_summary(df) if df is not None else None
    if s is None:
        return vals
    s = s[s["sweep"] == "range_filters"]
    if s.empty:
        return vals
    lengths = sorted(s["range_size"].unique())
    vals["rangeEngineLLengths"] = f"{_pow2(lengths[0])}--{_pow2(lengths[-1])}"

    def series(spec: str, corr: float = -1.0) -> pd.DataFrame:
        return s[(s["range_filter"] == spec) & (s["range_correlation"] == corr)].set_index("range_size")

    none = series("none")["us"]
    for spec, n in (("grafite:bpk=16", "Grafite"), ("memento:bpk=16,range=1024", "Memento"),
                    ("rosetta:bpk=16,range=1024", "Rosetta")):
        us = series(spec)["us"]
        slower = [n_ for n_ in lengths if n_ in us.index and n_ in none.index and us[n_] >= none[n_]]
        vals[f"rangeEngineL{n}Slower"] = _pow2(slower[0]) if slower else "none of the lengths"
    for spec, n in (("surf:suffix=real,bits=8", "Surf"), ("bucketing:bpk=16", "Bucketing"), ("none", "None")):
        us = series(spec)["us"]
        if not us.empty:
            vals[f"rangeEngineL{n}Low"] = _num(float(us.min()))
            vals[f"rangeEngineL{n}High"] = _num(float(us.max()))
    for spec, n in (("bucketing:bpk=16", "Bucketing"), ("surf:suffix=real,bits=8", "Surf"),
                    ("prefix_bloom:prefix=6,bpk=16", "Prefix")):
        g = s[_names_spec(s["range_filter"], spec) & (s["range_correlation"] == 0.8)]
        if not g.empty:
            vals[f"rangeEngineLCorr{n}Fp"] = _num(float(g["seek_fp"].median()))
    return vals


def section(inputs: Inputs) -> Section:
    df = inputs.results(EXPERIMENT)
    return Section(values={**range_engine_values(inputs.results_root, df), **length_sweep_values(df)},
                   files={"engine_range.tex": grid_table_tex(df),
                          "engine_range_levels.tex": level_fp_table_tex(df, inputs.results(SIM_EXPERIMENT))})
