"""The claims table: every published figure (paper/published.toml) beside ours,
with the ratio, the agreement in binomial sigma where the figure is a rate, and
a verdict. One Claim per published figure; MEASURES says how each kind of
figure is read off the committed results.

Verdicts:
- reproduced: within the claim's tolerance ("sigma": within 4 binomial sigma of
  both samples; "upper": ours at or below the published bound, counting our 95%
  interval; "lower": ours at or above the published bound, counting our interval; a number:
  |ours / published - 1| <= that fraction; {absolute = x}:
  |ours - published| <= x, for changes near zero).
- diverges, explained / diverges, unexplained: outside it; "explained" is set in
  published.toml (explained = true) only where the note gives the cause with evidence.
- not measured: the experiment's results are not committed; the note says why."""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..dynamic_data import dynamic_ratios, dynamic_rows
from ..engine_data import benchmark_rows, multiget_summary, range_summary, space_summary, toggle_summary
from ..load import load_experiment, pooled_fp, wilson
from ..speed_data import speed_cells
from .paths import ROOT

SIGMA_LIMIT = 4.0
UNITS = ("percent", "ratio", "ns", "us", "entries", "share", "bytes", "bits")
# A verdict as the report's tables and macros print it.
VERDICT_SHORT = {"reproduced": "reproduced", "diverges, explained": "diverges (explained)",
                 "diverges, unexplained": "diverges (unexplained)", "not measured": "not measured"}


class ClaimsError(Exception):
    """A malformed published.toml: names the claim and what is wrong."""


@dataclass
class Measured:
    value: float
    low: float | None = None    # 95% interval, same unit as value
    high: float | None = None
    sigma: float | None = None  # one binomial sigma of (ours - published), for rates
    detail: str = ""            # what was measured: counts, repeats


@dataclass
class Claim:
    id: str
    section: str
    claim: str
    source: str
    published: float
    unit: str
    ours: dict
    tolerance: str | float | dict
    queries: int | None = None
    note: str = ""
    explained: bool = False
    measured: Measured | None = None
    missing: str = ""  # why there is no measurement
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.measured is None or not self.published:
            return None
        return self.measured.value / self.published

    @property
    def z(self) -> float | None:
        if self.measured is None or not self.measured.sigma:
            return None
        return (self.measured.value - self.published) / self.measured.sigma

    @property
    def verdict(self) -> str:
        m = self.measured
        if m is None:
            return "not measured"
        if self.tolerance == "sigma":
            ok = self.z is not None and abs(self.z) <= SIGMA_LIMIT
        elif self.tolerance == "upper":
            ok = (m.low if m.low is not None else m.value) <= self.published
        elif self.tolerance == "lower":
            ok = (m.high if m.high is not None else m.value) >= self.published
        elif isinstance(self.tolerance, dict):
            ok = abs(m.value - self.published) <= float(self.tolerance["absolute"])
        else:
            ok = self.ratio is not None and abs(self.ratio - 1) <= float(self.tolerance)
        if ok:
            return "reproduced"
        return "diverges, explained" if self.explained else "diverges, unexplained"


def _bits_per_key(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """The bits per key of the built filter (the fp records' bits_per_key: data bytes x 8 / keys),
    mean over the key sets, with their lowest and highest."""
    rows = _select(df[df["command"] == "fp"], ours)
    if rows.empty or "bits_per_key" not in rows:
        return None
    b = rows["bits_per_key"].astype(float)
    return Measured(float(b.mean()), float(b.min()), float(b.max()), None,
                    f"{int(rows['keys'].iloc[0])} keys, {rows['seed'].nunique()} key sets")


def _bits_ratio(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """One filter's bits per key over another's (e.g. Ribbon over FastLocalBloom at the same
    Bloom-equivalent setting), means over the key sets."""
    a = _bits_per_key(df, ours, published, published_queries)
    b = _bits_per_key(df, {**ours, "filter": ours["over"]}, published, published_queries)
    if a is None or b is None:
        return None
    return Measured(a.value / b.value, a.low / b.high, a.high / b.low, None,
                    f"{a.value:.3g} over {b.value:.3g} bits per key")


def read_published(path: str | Path) -> list[Claim]:
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ClaimsError(f"{path}: not valid TOML: {e}") from None
    claims, seen = [], set()
    for i, c in enumerate(raw.get("claim", [])):
        where = f"{path}: claim[{i}] ({c.get('id', '?')})"
        for key in ("id", "section", "claim", "source", "published", "unit", "ours", "tolerance"):
            if key not in c:
                raise ClaimsError(f"{where}: missing '{key}'")
        if c["id"] in seen:
            raise ClaimsError(f"{where}: id '{c['id']}' is used twice")
        if not c["id"].isalpha():
            raise ClaimsError(f"{where}: id must be letters only (it names LaTeX macros); got '{c['id']}'")
        seen.add(c["id"])
        if c["unit"] not in UNITS:
            raise ClaimsError(f"{where}: unit '{c['unit']}'; allowed: {', '.join(UNITS)}")
        tol = c["tolerance"]
        absolute = isinstance(tol, dict) and set(tol) == {"absolute"} and isinstance(tol["absolute"], (int, float)) \
            and tol["absolute"] > 0
        if not (tol in ("sigma", "upper", "lower") or absolute or (isinstance(tol, (int, float)) and 0 < tol < 1)):
            raise ClaimsError(f"{where}: tolerance {tol!r}; allowed: \"sigma\", \"upper\", \"lower\", a fraction in "
                              "(0, 1) or { absolute = x }")
        kind = c["ours"].get("kind")
        if kind not in MEASURES:
            raise ClaimsError(f"{where}: ours.kind {kind!r}; allowed: {', '.join(MEASURES)}")
        claims.append(Claim(c["id"], c["section"], c["claim"], c["source"], float(c["published"]), c["unit"],
                            dict(c["ours"]), tol, c.get("queries"), c.get("note", ""),
                            bool(c.get("explained", False))))
    if not claims:
        raise ClaimsError(f"{path}: no [[claim]] tables")
    return claims


def _select(df: pd.DataFrame, ours: dict) -> pd.DataFrame:
    rows = df
    if "sweep" in ours:
        rows = rows[rows["sweep"] == ours["sweep"]]
    f = ours.get("filter")
    if f is not None:
        match = pd.Series(False, index=rows.index)
        for col in ("filter_arg", "base_filter", "base_label"):
            if col in rows:
                match |= rows[col] == f
        rows = rows[match]
    if "bpk" in ours:
        rows = rows[rows["bpk"] == ours["bpk"]]
    return rows


def _fp(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """Our pooled rate, and one sigma of (ours - published). A rate depends on the keys as
    well as on the queries: where the experiment ran several seeds (key sets), their spread
    is the sd of one run's rate: the published run, one key set, carries it on top of the
    binomial sd of its own query count (where that is given); our pooled mean's part is the
    larger of its binomial sd and the seeds' standard error."""
    rows = _select(df[df["command"] == "fp"], ours)
    if rows.empty:
        return None
    agg = pooled_fp(rows, ["command"]).iloc[0]
    p, n = float(agg["fp"]), float(agg["queries"])
    ref = published / 100
    ours_var = ref * (1 - ref) / n
    theirs_var = ref * (1 - ref) / published_queries if published_queries else 0.0
    per_seed = rows.groupby("seed").apply(lambda g: g["positives"].sum() / g["queries"].sum())
    detail = f"{int(agg['positives'])} of {int(n)} queries"
    if len(per_seed) > 1:
        seed_var = float(per_seed.var(ddof=1))
        ours_var = max(ours_var, seed_var / len(per_seed))
        theirs_var += seed_var
        detail += f", {len(per_seed)} key sets (sd {100 * per_seed.std(ddof=1):.2g} points)"
    return Measured(100 * p, 100 * float(agg["ci_low"]), 100 * float(agg["ci_high"]),
                    100 * math.sqrt(ours_var + theirs_var), detail)


def _fp_ratio(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    a = _select(df[df["command"] == "fp"], ours)
    b = _select(df[df["command"] == "fp"], {**ours, "filter": ours["over"]})
    if a.empty or b.empty:
        return None
    pa, pb = (pooled_fp(x, ["command"]).iloc[0] for x in (a, b))
    ra, rb = float(pa["fp"]), float(pb["fp"])
    r = ra / rb
    # Delta method: the relative variances of two independent binomial rates add.
    rel = math.sqrt((1 - ra) / (ra * float(pa["queries"])) + (1 - rb) / (rb * float(pb["queries"])))
    return Measured(r, r * (1 - 1.96 * rel), r * (1 + 1.96 * rel), None,
                    f"{100 * ra:.4g}% over {100 * rb:.4g}%")


def _speed_ratio(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """`sim speed`: the median time of `filter` over that of `over` in one mode and query mix
    (`mix`, default mixed); with `over_mix`, `over` is taken in that mix instead (one filter's
    outside queries over its inside ones: filter = over, mix = "outside", over_mix = "inside").
    The interval from the repeats' extremes."""
    mode = ours["mode"]
    cells = speed_cells(df, modes=(mode,))
    if cells is None or cells.empty:
        return None
    mix, over_mix = ours.get("mix", "mixed"), ours.get("over_mix", ours.get("mix", "mixed"))
    if mode != "build":
        cells = cells[cells["batch"] == 1]

    def median_of(name, in_mix):
        g = cells[cells["label"] == name]
        if mode != "build":
            g = g[g["mix"] == in_mix]
        return None if g.empty else g.iloc[0]

    a, b = median_of(ours["filter"], mix), median_of(ours["over"], over_mix)
    if a is None or b is None:
        return None
    r = float(a["median"]) / float(b["median"])
    return Measured(r, float(a["lo"]) / float(b["hi"]), float(a["hi"]) / float(b["lo"]), None,
                    f"medians {float(a['median']):.3g} / {float(b['median']):.3g} ns")


def _range_stat(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """A statistic of the memtable range estimates (engine_data.range_summary) of one engine,
    algorithm and true width: mean, stddev, relative_sd (sd / true count), min, max, zeros
    (share) or lookups (µs per estimate over µs per point lookup). For a mean, sigma is
    the standard error of the difference of the two means: each mean's sd / sqrt(estimates),
    and, where the experiment ran several seeds (skip lists), the spread of the seeds' means,
    which overlapping ranges of one skip list do not average out: it bounds our mean's error
    from below (var / seeds) and stands for the published run's own (one skip list)."""
    t = range_summary(df)
    if t is None:
        return None
    engine, algo = ours.get("engine", "filterlab"), ours.get("algorithm", "new")
    t = t[(t["engine"] == engine) & (t["approx_algorithm"] == algo) & (t["width"] == ours["width"])]
    if t.empty:
        return None
    r = t.iloc[0]
    stat = ours["stat"]
    value = float(r["stddev"]) / float(ours["width"]) if stat == "relative_sd" else float(r[stat])
    sigma = None
    detail = f"{int(r['estimates'])} estimates, {int(r['repeats'])} skip lists"
    if stat in ("mean", "stddev"):
        # Sampling sd of a mean, or of an sd (about sd / sqrt(2 n)), over independent estimates.
        n = float(r["estimates"])
        ours_var = float(r["stddev"]) ** 2 / (n if stat == "mean" else 2 * n)
        spread = float(ours.get("published_sd", published if stat == "stddev" else 0.0))
        theirs_var = spread ** 2 / (published_queries if stat == "mean" else 2 * published_queries) \
            if published_queries and spread else 0.0
        rows = benchmark_rows(df, ["approximatememtablestats"])
        width_col = rows["expected"] if "expected" in rows else rows["batch_size"]
        algos = rows["approx_algorithm"].fillna("new") if "approx_algorithm" in rows else "new"
        sel = rows[(rows["engine"] == engine) & (algos == algo) & (width_col == ours["width"])]
        seed_means = sel.groupby("seed")[stat].mean() if "seed" in sel else pd.Series(dtype=float)
        if len(seed_means) > 1:
            seed_var = float(seed_means.var(ddof=1))
            ours_var = max(ours_var, seed_var / len(seed_means))
            theirs_var = max(theirs_var, seed_var)
            detail += f", sd over the skip lists {seed_means.std(ddof=1):.3g}"
        sigma = math.sqrt(ours_var + theirs_var) if ours_var + theirs_var > 0 else None
    return Measured(value, None, None, sigma, detail)


def _one_context(t: pd.DataFrame, ours: dict) -> pd.Series | None:
    """The one row of an off/on summary for ours' engine (default filterlab) and its `where`
    context (e.g. value_size), or None where that is not exactly one row."""
    t = t[t["engine"] == ours.get("engine", "filterlab")]
    for key, value in ours.get("where", {}).items():
        if key in t:
            t = t[t[key] == value]
    return t.iloc[0] if len(t) == 1 else None


def _toggle_change(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """The relative change of a benchmark's throughput (or of SST bytes per key, with
    benchmark = "space") when an engine feature is switched on: engine_data's toggle and
    space summaries, medians over the repeats, in the context ours names (e.g. value_size)."""
    toggle, bench = ours["toggle"], ours["benchmark"]
    t = space_summary(df, toggle) if bench == "space" else toggle_summary(df, toggle, [bench])
    if t is None:
        return None
    if bench != "space":
        t = t[t["benchmark"] == bench]
    r = _one_context(t, ours)
    if r is None:
        return None
    lo = r["min_on"] / r["max_off"] - 1
    hi = r["max_on"] / r["min_off"] - 1
    return Measured(float(r["change"]), float(lo), float(hi), None,
                    f"medians {r['median_off']:.4g} off, {r['median_on']:.4g} on, {int(r['repeats_on'])} repeats")


def _multiget_ratio(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """Batched MultiGet's µs per key over the Get loop's at one batch size and stride
    (engine_data.multiget_summary: medians over the repeats)."""
    t = multiget_summary(df)
    if t is None:
        return None
    t = t[(t["engine"] == ours.get("engine", "filterlab")) & (t["batch_size"] == ours["batch"])
          & (t["stride"] == ours["stride"])]
    if t.empty or not (t.iloc[0]["get_us"] > 0):
        return None
    r = t.iloc[0]
    return Measured(float(r["multiget_us"] / r["get_us"]), None, None, None,
                    f"{r['multiget_us']:.3g} / {r['get_us']:.3g} us per key ({r['baseline']})")


def _toggle_bytes(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """The SST bytes per key an engine feature adds (on minus off, medians over the repeats;
    engine_data.space_summary), in the context ours names."""
    t = space_summary(df, ours["toggle"])
    r = None if t is None else _one_context(t, ours)
    if r is None:
        return None
    return Measured(float(r["median_on"] - r["median_off"]), float(r["min_on"] - r["max_off"]),
                    float(r["max_on"] - r["min_off"]), None,
                    f"{r['median_off']:.4g} -> {r['median_on']:.4g} bytes per key, {int(r['repeats_on'])} repeats")


def _hash_fallback(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """The share of data-block hash-index lookups that fell back to binary search (a collision
    bucket): collisions / lookups of lsmbench's filter_stats.hash_index in one benchmark's records,
    pooled over the repeats, with the lowest and highest repeat as the range."""
    need = ("filter_stats_hash_index_lookups", "filter_stats_hash_index_collisions", "benchmark")
    if any(c not in df for c in need):
        return None
    rows = _select(df, ours)
    rows = rows[(rows["benchmark"] == ours["benchmark"]) & (rows["filter_stats_hash_index_lookups"] > 0)]
    for key, value in ours.get("where", {}).items():
        if key in rows:
            rows = rows[rows[key] == value]
    if rows.empty:
        return None
    lookups, collisions = rows["filter_stats_hash_index_lookups"], rows["filter_stats_hash_index_collisions"]
    per_run = collisions / lookups
    return Measured(float(collisions.sum() / lookups.sum()), float(per_run.min()), float(per_run.max()), None,
                    f"{int(collisions.sum())} of {int(lookups.sum())} lookups over {len(rows)} runs")


def _where(rows: pd.DataFrame, ours: dict) -> pd.DataFrame | None:
    """rows in the context ours' `where` names (column = value for each entry), or None where
    the results lack one of its columns (the claim is then not measured)."""
    for key, value in ours.get("where", {}).items():
        if key not in rows:
            return None
        rows = rows[rows[key] == value]
    return rows


def _dynamic_ratio(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """`sim dynamic` (experiment dynamic_bloom_latency): the median over repeats of ns per key
    of `filter` over that of `over`, in one mode, at the one key count `where` selects (e.g.
    where = { keys = 8388608 }; required when the results hold several); the interval from
    the repeats' extremes."""
    rows = dynamic_rows(df)
    if rows is None:
        return None
    rows = _where(rows, ours)
    if rows is None:
        return None
    counts = sorted({int(k) for k in rows["keys"]})
    if len(counts) > 1:
        raise ClaimsError(f"ours = {ours}: the results hold {len(counts)} key counts "
                          f"({', '.join(map(str, counts))}); select one with where = {{ keys = N }}")
    r = dynamic_ratios(rows, ours["filter"], ours["over"])
    r = r[r["mode"] == ours["mode"]]
    if r.empty:
        return None
    r = r.iloc[0]
    return Measured(float(r["ratio"]), float(r["low"]), float(r["high"]), None,
                    f"medians {r['median_a']:.3g} / {r['median_b']:.3g} ns per key, {int(r['n'])} repeats, "
                    f"{int(r['keys'])} keys")


def _allocation_ratio(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """experiment engine_allocation: the data-block reads caused by false positives per
    missing-key lookup (readmissing's fp_reads_per_op) under one filter-memory policy over
    those under another (`over`, e.g. uniform) on the same tree at the same budget, in the
    context `where` names (filter_budget_bpk, level_multiplier, num_levels). The interval: the
    reads are counts (Poisson), so ln(ratio) has variance 1/a + 1/b; 95% = 1.96 sigma."""
    need = ("benchmark", "filter_policy", "fp_reads_per_op", "ops")
    if any(c not in df for c in need):
        return None
    rows = df[(df["benchmark"] == "readmissing") & df["filter_policy"].notna()]
    rows = rows.drop_duplicates([c for c in ("run_key", "record_index") if c in rows])
    rows = _where(rows, ours)
    if rows is None:
        return None

    def reads(policy):
        r = rows[rows["filter_policy"] == policy]
        if len(r) != 1:
            return None
        r = r.iloc[0]
        return float(r["fp_reads_per_op"]), float(r["fp_reads_per_op"]) * float(r["ops"]), float(r["ops"])

    a, b = reads(ours["policy"]), reads(ours["over"])
    if a is None or b is None or not (a[1] > 0 and b[1] > 0):
        return None
    ratio = a[0] / b[0]
    spread = 1.96 * math.sqrt(1 / a[1] + 1 / b[1])
    return Measured(ratio, ratio * math.exp(-spread), ratio * math.exp(spread), None,
                    f"{a[0]:.3g} / {b[0]:.3g} reads per lookup over {int(a[2])} lookups each")


def _gbench_change(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """A Google Benchmark (the gbench workers): the relative change of `measure` (cpu_ns or
    real_ns per iteration, default cpu_ns) of one benchmark instance over another of the same
    family, instances named by their arguments (`args` and `over`, e.g. {records = 32, hash = 1,
    util_pct = 75} over {records = 32, hash = 0, util_pct = 100}): median over the repetitions
    of each, minus one; the interval from the repetitions' extremes."""
    if "command" not in df or "family" not in df:
        return None
    rows = df[(df["command"] == "gbench") & (df["family"] == ours["family"])]
    measure = ours.get("measure", "cpu_ns")

    def times(args: dict):
        sel = rows
        for key, value in args.items():
            col = f"args_{key}"
            if col not in sel:
                return pd.Series(dtype=float)
            sel = sel[sel[col] == value]
        return sel[measure].astype(float)

    a, b = times(ours["args"]), times(ours["over"])
    if a.empty or b.empty:
        return None
    return Measured(float(a.median() / b.median() - 1), float(a.min() / b.max() - 1), float(a.max() / b.min() - 1),
                    None, f"medians {float(a.median()):.3g} / {float(b.median()):.3g} ns, {len(a)} repetitions")


def _range_rows(df: pd.DataFrame, ours: dict) -> pd.DataFrame:
    """`sim rangefp` rows of one filter (its --filter text or base spec), bits/key, range length
    and correlation (absent or "none": uncorrelated), in one sweep when ours names it."""
    rows = df[df["command"] == "rangefp"] if "command" in df else df.iloc[0:0]
    if "sweep" in ours:
        rows = rows[rows["sweep"] == ours["sweep"]]
    f = ours.get("filter")
    if f is not None:
        match = pd.Series(False, index=rows.index)
        for col in ("filter", "filter_arg", "base_filter"):
            if col in rows:
                match |= rows[col] == f
        rows = rows[match]
    if "bpk" in ours:
        rows = rows[rows["bpk"] == ours["bpk"]]
    rows = rows[rows["range_length"] == int(ours["range_length"])]
    corr = ours.get("correlation", "none")
    return rows[rows["correlation"].isna()] if corr == "none" else rows[rows["correlation"] == float(corr)]


def _range_fp(df: pd.DataFrame, ours: dict, published: float, published_queries: int | None) -> Measured | None:
    """A range filter's FP rate on empty ranges (percent) with its 95% Wilson interval, pooled over
    the rows ours selects (_range_rows); sigma of (ours - published) from both query counts."""
    rows = _range_rows(df, ours)
    if rows.empty:
        return None
    positives, n = float(rows["positives"].sum()), float(rows["queries"].sum())
    p = positives / n
    low, high = wilson([positives], [n])
    ref = published / 100
    var = ref * (1 - ref) / n + (ref * (1 - ref) / published_queries if published_queries else 0.0)
    return Measured(100 * p, 100 * float(low[0]), 100 * float(high[0]), 100 * math.sqrt(var),
                    f"{int(positives)} of {int(n)} empty ranges")


def _range_bits_over_bound(df: pd.DataFrame, ours: dict, published: float,
                           published_queries: int | None) -> Measured | None:
    """Bits per key a range filter spends over the lower bound log2(L / eps) at its measured
    rate (the rangefp records' bits_over_lower_bound), for the rows ours selects."""
    rows = _range_rows(df, ours)
    rows = rows[rows["bits_over_lower_bound"].notna()]
    if rows.empty:
        return None
    positives, n = float(rows["positives"].sum()), float(rows["queries"].sum())
    bpk = float(rows["bits_per_key"].mean())
    length = float(ours["range_length"])
    over = bpk - math.log2(length * n / positives)
    low, high = wilson([positives], [n])
    # The interval of the rate bounds the interval of the excess (log2 L/eps falls as eps grows).
    return Measured(over, bpk - math.log2(length / float(low[0])), bpk - math.log2(length / float(high[0])), None,
                    f"{bpk:.3g} bits/key, {int(positives)} of {int(n)} empty ranges")


def _trie_bits_per_node(df: pd.DataFrame, ours: dict, published: float,
                        published_queries: int | None) -> Measured | None:
    """A trie filter's whole size in bits (rank and select samples included) over its trie
    nodes, read from the rangefp records' layout: every node but the root hangs below one edge,
    so nodes = edges + dense_edges + 1 (LOUDS numbers a node by the edge above it)."""
    rows = _range_rows(df, ours)
    if rows.empty:
        return None
    values = []
    for layout, size in zip(rows["layout"], rows["bytes"]):
        fields = dict(f.split("=", 1) for f in str(layout).split(":", 1)[-1].split(",") if "=" in f)
        if "edges" not in fields:
            raise ClaimsError(f"trie_bits_per_node: the layout '{layout}' names no edge count")
        nodes = int(fields["edges"]) + int(fields.get("dense_edges", 0)) + 1
        values.append(8 * float(size) / nodes)
    return Measured(float(sum(values) / len(values)), float(min(values)), float(max(values)), None,
                    f"{int(rows['keys'].iloc[0])} keys, {len(values)} records")


def _pending(df, ours, published, published_queries) -> None:
    """A claim whose reading is not written yet: always not measured; its note says why."""
    return None


MEASURES = {"fp": _fp, "fp_ratio": _fp_ratio, "speed_ratio": _speed_ratio, "range_stat": _range_stat,
            "toggle_change": _toggle_change, "multiget_ratio": _multiget_ratio, "toggle_bytes": _toggle_bytes,
            "hash_fallback": _hash_fallback, "bits_per_key": _bits_per_key, "bits_ratio": _bits_ratio,
            "dynamic_ratio": _dynamic_ratio, "allocation_ratio": _allocation_ratio, "gbench_change": _gbench_change,
            "range_fp": _range_fp, "range_bits_over_bound": _range_bits_over_bound,
            "trie_bits_per_node": _trie_bits_per_node, "pending": _pending}


def measure_all(claims: list[Claim], results_root: str | Path,
                results: Callable[[str], pd.DataFrame | None] | None = None) -> list[Claim]:
    """Fills each claim's measurement from results_root/<experiment>/, or says why it has none.
    results: an experiment's frame by name (default: each loaded once with load_experiment;
    the report passes the loader its sections share)."""
    results_root = Path(results_root)
    results = results or functools.cache(lambda experiment: load_experiment(results_root, experiment))
    for c in claims:
        exp = c.ours.get("experiment")
        df = results(exp)
        if c.ours["kind"] == "pending":
            c.missing = c.note
            continue
        if df is None:
            c.missing = f"No committed results for experiment '{exp}' under {_shown(results_root)}."
            continue
        c.measured = MEASURES[c.ours["kind"]](df, c.ours, c.published, c.queries)
        if c.measured is None:
            c.missing = f"experiment '{exp}' has no rows for {c.ours}"
    return claims


def _shown(path: Path) -> str:
    """A results root as a reader of the report should see it: relative to the repository."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    """One row per claim: the columns of the report's summary table, numbers unformatted."""
    return pd.DataFrame([{
        "id": c.id, "section": c.section, "claim": c.claim, "source": c.source, "unit": c.unit,
        "published": c.published, "ours": c.measured.value if c.measured else None,
        "low": c.measured.low if c.measured else None, "high": c.measured.high if c.measured else None,
        "ratio": c.ratio, "z": c.z, "verdict": c.verdict, "note": c.note or c.missing} for c in claims])
