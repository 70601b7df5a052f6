"""The report's figures: our measurements with the published points drawn on
them (marked "published"), at column width, as vector PDF. One function per
figure, each taking the tidy results frame and the claims."""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd

from ..allocation_plot import engine_allocation
from ..engine_data import filter_summary, multiget_summary, range_summary
from ..engine_plots import engine_io as draw_engine_io
from ..engine_plots import heatmap
from ..load import pooled_fp, probe_grid_rows
from ..pareto_data import curve_key, pareto_rows
from ..style import COLUMN, PAGE, color, marker


def fp_filter_bench(df: pd.DataFrame, claims) -> plt.Figure | None:
    """FP (%) against bits/key for legacy and FastLocalBloom, filter_bench's setting: our
    pooled rate with its 95% interval, the model as a line, the published table as crosses;
    below it the residual panel: ours / published with the interval."""
    fp = df[(df["command"] == "fp") & (df["sweep"] == "filter_bench")]
    if fp.empty:
        return None
    agg = pooled_fp(fp, ["base_filter", "bpk"])
    pub = {(c.ours["filter"], c.ours["bpk"]): c.published for c in claims
           if c.ours.get("sweep") == "filter_bench" and c.ours["kind"] == "fp" and c.tolerance != "upper"}
    bounds = {(c.ours["filter"], c.ours["bpk"]): c.published for c in claims
              if c.ours.get("sweep") == "filter_bench" and c.ours["kind"] == "fp" and c.tolerance == "upper"}
    fig, (ax, res) = plt.subplots(2, 1, figsize=(COLUMN, 3.6), sharex=True,
                                  gridspec_kw={"height_ratios": [2.2, 1]})
    for name, g in agg.groupby("base_filter", sort=False):
        g = g.sort_values("bpk")
        c = color(name)
        y, lo, hi = 100 * g["fp"], 100 * g["ci_low"], 100 * g["ci_high"]
        ax.errorbar(g["bpk"], y, yerr=[y - lo, hi - y], fmt=marker(name), ms=3.5, color=c, lw=0.8, capsize=2,
                    label=f"{name} (ours)")
        ax.plot(g["bpk"], 100 * g["model_fp"], color=c, lw=0.8, ls=":")
        px = [b for b in g["bpk"] if (name, b) in pub]
        ax.plot(px, [pub[(name, b)] for b in px], ls="", marker="x", ms=5, mew=1.0, color=c,
                label=f"{name} (published)")
        bx = [b for b in g["bpk"] if (name, b) in bounds]
        if bx:  # a published bound ("under 1 in 10^6"): a downward triangle at the bound
            ax.plot(bx, [bounds[(name, b)] for b in bx], ls="", marker="v", ms=4, mfc="none", color=c,
                    label=f"{name} (published bound)")
        ratio = [(b, (100 * f) / pub[(name, b)], 100 * l / pub[(name, b)], 100 * h / pub[(name, b)])
                 for b, f, l, h in zip(g["bpk"], g["fp"], g["ci_low"], g["ci_high"]) if (name, b) in pub]
        if ratio:
            b, r, rl, rh = map(np.array, zip(*ratio))
            res.errorbar(b, r, yerr=[r - rl, rh - r], fmt=marker(name), ms=3, color=c, lw=0.8, capsize=2)
    ax.set_yscale("log")
    ax.set_ylabel("false-positive rate (%)")
    ax.legend(loc="lower left", ncol=1)
    res.axhline(1.0, color="0.3", lw=0.8)
    res.set_ylabel("ours / published")
    res.set_xlabel("bits per key")
    fig.tight_layout(h_pad=0.3)
    return fig


def range_estimates(df: pd.DataFrame, claims) -> plt.Figure | None:
    """The memtable range estimate relative to the true count, per true width: mean with
    +-1 sd bars for our new algorithm and the published one (crosses), offset sideways so
    both show. The old algorithm's mean and sd are tens of times the true count (the claims
    table has them); on this scale they would be vertical lines."""
    t = range_summary(df)
    if t is None:
        return None
    t = t[t["engine"] == "filterlab"]
    pub = {}
    for c in claims:
        o = c.ours
        if o["kind"] == "range_stat" and o.get("algorithm", "new") == "new" and o["stat"] in ("mean", "stddev"):
            pub.setdefault(o["width"], {})[o["stat"]] = c.published
    # Grey: an algorithm is not a filter, and must not borrow a filter's colour.
    colors = {"new": "0.15"}
    fig, ax = plt.subplots(figsize=(COLUMN, 2.4))
    for algo, shift in (("new", 0.8),):
        g = t[t["approx_algorithm"] == algo].sort_values("width")
        if g.empty:
            continue
        ax.errorbar(g["width"] * shift, g["mean"] / g["width"], yerr=g["stddev"] / g["width"],
                    fmt="o" if algo == "new" else "s", ms=3, capsize=2, lw=0.8, color=colors[algo],
                    label=f"{algo} (ours)")
    w = sorted(k for k, v in pub.items() if "mean" in v)
    if w:
        ax.errorbar([x * 1.0 for x in w], [pub[x]["mean"] / x for x in w],
                    yerr=[pub[x].get("stddev", 0) / x for x in w], fmt="x", ms=5, capsize=2, lw=0.8,
                    color="tab:red", label="new (published)")
    ax.axhline(1.0, color="0.3", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_ylim(0, 2.2)
    ax.set_xlabel("true count (entries in the range)")
    ax.set_ylabel("estimate / true count")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig


def model_accuracy(df: pd.DataFrame, claims) -> plt.Figure | None:
    """Measured / model per variant (rows) at each bits/key (markers shaded by bits/key),
    with the 95% interval; the variant's model kind in its row label. A ratio of 1 inside
    every interval is an exact model; a bound stays on one side."""
    fp = df[df["command"] == "fp"]
    if fp.empty:
        return None
    agg = pooled_fp(fp, ["base_label", "bpk"] if "base_label" in fp else ["base_filter", "bpk"])
    name = "base_label" if "base_label" in agg else "base_filter"
    agg = agg[(agg["positives"] > 0) & (agg["model_fp"] > 0)]
    agg = agg.assign(r=agg["fp"] / agg["model_fp"], lo=agg["ci_low"] / agg["model_fp"],
                     hi=agg["ci_high"] / agg["model_fp"])
    order = sorted(agg[name].unique(), key=lambda v: (agg.loc[agg[name] == v, "r"].sub(1).abs().max(), v))
    kinds = fp.groupby(name)["model_kind"].first().to_dict() if "model_kind" in fp else {}
    fig, ax = plt.subplots(figsize=(COLUMN, 0.6 + 0.16 * len(order)))
    bpks = sorted(agg["bpk"].dropna().unique())
    greys = {b: str(0.75 - 0.6 * i / max(1, len(bpks) - 1)) for i, b in enumerate(bpks)}
    for y, v in enumerate(order):
        g = agg[agg[name] == v]
        for _, r in g.iterrows():
            shade = greys.get(r["bpk"], "0.2") if pd.notna(r["bpk"]) else "0.2"
            ax.errorbar([r["r"]], [y], xerr=[[r["r"] - r["lo"]], [r["hi"] - r["r"]]], fmt=marker(v), ms=3,
                        color=color(v), mec=shade, lw=0.7, capsize=1.5)
    ax.axvline(1.0, color="0.3", lw=0.8)
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels([f"{v} ({kinds.get(v, '?')})" for v in order], fontsize=6)
    ax.set_xscale("log")
    # Plain ratios (0.8, 1, 1.5, 2) where a log axis would print 10^0 and 2x10^0.
    lo, hi = ax.get_xlim()
    ticks = [t for t in (0.5, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0) if lo <= t <= hi]
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("measured / model FP rate")
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


def hash_width_ratio(df: pd.DataFrame) -> pd.DataFrame:
    """Per filter with both hash widths in fp_vs_keys: FP(32-bit) / FP(64-bit) at each key count,
    with a 95% interval from the two pooled counts (log-ratio, binomial variances added)."""
    fp = df[df["command"] == "fp"]
    agg = pooled_fp(fp, ["base_filter", "hash_bits", "keys"])
    wide = agg.pivot_table(index=["base_filter", "keys"], columns="hash_bits",
                           values=["fp", "positives", "queries"]).dropna()
    if wide.empty or 32 not in wide["fp"] or 64 not in wide["fp"]:
        return pd.DataFrame(columns=["base_filter", "keys", "ratio", "lo", "hi"])
    p32, p64 = wide["fp"][32], wide["fp"][64]
    x32, x64 = wide["positives"][32], wide["positives"][64]
    ratio = p32 / p64
    half = 1.96 * np.sqrt((1 - p32) / x32.clip(lower=1) + (1 - p64) / x64.clip(lower=1))
    out = pd.DataFrame({"ratio": ratio, "lo": ratio * np.exp(-half), "hi": ratio * np.exp(half)})
    return out.reset_index()


def _legend_below(fig: plt.Figure, ax, ncol: int) -> plt.Figure:
    """The legend under the axes (inside, it hid curves of the densest figures), laid out."""
    ax.legend(fontsize=6, ncol=ncol, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    fig.tight_layout()
    return fig


def _plain_125(v: float, _pos=None) -> str:
    """A log-axis tick as a plain number (0.9, not 9 x 10^-1), only at 1, 2 and 5 times a
    power of ten, so minor ticks label short axes without crowding long ones."""
    if v <= 0:
        return ""
    lead = round(v / 10 ** np.floor(np.log10(v)), 6)
    return f"{v:g}" if lead in (1.0, 2.0, 5.0) else ""


def fp_vs_keys(df: pd.DataFrame, claims) -> plt.Figure | None:
    """FP (%) against keys in one filter to 10^9, 64-bit hashes solid and 32-bit dashed, models
    dotted; below, FP(32-bit) / FP(64-bit) per filter with its 95% interval and the published
    point (about 1.1x at 5M keys) as a cross."""
    fp = df[df["command"] == "fp"]
    if fp.empty or fp["keys"].nunique() < 2:
        return None
    agg = pooled_fp(fp, ["base_filter", "hash_bits", "keys"])
    fig, (ax, res) = plt.subplots(2, 1, figsize=(COLUMN, 3.9), sharex=True,
                                  gridspec_kw={"height_ratios": [2.2, 1]})
    for (base, bits), g in agg.groupby(["base_filter", "hash_bits"], sort=True):
        g = g.sort_values("keys")
        ls = "-" if bits == 64 else "--"
        ax.plot(g["keys"], 100 * g["fp"], ls=ls, marker=marker(base), ms=2.5, color=color(base))
        ax.plot(g["keys"], 100 * g["model_fp"], ls=":", lw=0.8, color=color(base))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylabel("FP rate (%)")
    plain = matplotlib.ticker.FuncFormatter(_plain_125)
    handles = [plt.Line2D([], [], color=color(b), marker=marker(b), ms=3, label=b)
               for b in agg["base_filter"].unique()]
    handles += [plt.Line2D([], [], color="black", ls="-", label="64-bit hash"),
                plt.Line2D([], [], color="black", ls="--", label="32-bit hash"),
                plt.Line2D([], [], color="black", ls=":", lw=0.8, label="model")]
    ax.legend(handles=handles, loc="upper left", fontsize=6, ncol=2)
    ratios = hash_width_ratio(df)
    for base, g in ratios.groupby("base_filter", sort=True):
        g = g.sort_values("keys")
        res.plot(g["keys"], g["ratio"], marker=marker(base), ms=2.5, color=color(base))
        res.fill_between(g["keys"], g["lo"], g["hi"], color=color(base), alpha=0.2, lw=0)
    for c in claims:
        if c.ours.get("kind") == "fp_ratio" and c.id == "hashThirtytwoAtFiveM":
            res.plot([5e6], [c.published], marker="x", color="black", ls="none", label="published")
            res.legend(loc="upper left", fontsize=6)
    res.axhline(1, color="0.5", lw=0.6)
    res.set_yscale("log")
    res.set_ylabel("32-bit / 64-bit")
    res.set_xlabel("keys in one filter (10 bits/key)")
    # Log axes spanning less than a decade: label ticks as plain numbers, not as 9 x 10^-1.
    for a in (ax, res):
        a.yaxis.set_major_formatter(plain)
        a.yaxis.set_minor_formatter(plain)
        a.tick_params(axis="y", which="minor", labelsize=6)
    fig.tight_layout()
    return fig


def probe_gain(df: pd.DataFrame) -> pd.DataFrame:
    """Per variant and bits/key of the probes experiment: RocksDB's table count, the simulated
    best, and the verdict of the paired comparison (the probes worker's grid records)."""
    pr = probe_grid_rows(df)
    if pr is None:
        return pd.DataFrame(columns=["variant", "bits_per_key", "table_probes", "best_probes", "verdict"])
    return pr[["variant", "bits_per_key", "table_probes", "best_probes", "verdict"]].reset_index(drop=True)


def probes(df: pd.DataFrame, claims) -> plt.Figure | None:
    """Best probe count by simulation against bits/key, one panel row per variant, with
    RocksDB's table (FastLocalBloom's ChooseNumProbes, the same table for every cache-local
    variant) as a dashed step; a filled marker where the paired comparison says the best beats
    the table's count (95%), hollow where the two are indistinguishable."""
    t = probe_gain(df)
    if t.empty:
        return None
    fig, ax = plt.subplots(figsize=(COLUMN, 3.5))
    variants = list(t["variant"].unique())
    for i, v in enumerate(variants):
        g = t[t["variant"] == v].groupby("bits_per_key").agg(
            best=("best_probes", "median"), table=("table_probes", "first"),
            verdict=("verdict", "first")).reset_index()
        off = (i - (len(variants) - 1) / 2) * 0.08
        beats = g["verdict"].astype(str).str.contains("better|disagree", case=False)
        ax.plot(g["bits_per_key"], g["best"] + off, ls="none", marker=marker(v), ms=2.5, color=color(v),
                mfc="none", label=v)
        ax.plot(g.loc[beats, "bits_per_key"], g.loc[beats, "best"] + off, ls="none", marker=marker(v), ms=2.5,
                color=color(v))
        if g["table"].notna().any() and i == 0:
            ax.step(g["bits_per_key"], g["table"], where="mid", ls="--", color="black", lw=0.8,
                    label="RocksDB's table")
    ax.set_xlabel("bits per key")
    ax.set_ylabel("probes")
    return _legend_below(fig, ax, ncol=2)


def space_overhead(df: pd.DataFrame, claims) -> plt.Figure | None:
    """The headline: every filter family of filters_pareto against its measured FP rate (%),
    one colour each, the sizes of one layout joined in FP order. Left: bits per key over the
    information-theoretic bound log2(1/FP), horizontal whiskers the FP's 95% interval, dashed
    Bloom's ideal +44%, published points (binary fuse, XOR: bits/key at their published FP) as
    crosses. Middle: hot single-filter query; right: random filter over the working set, one
    query at a time (filled) and pipelined (hollow, dotted); net ns, medians of the repeats.
    The speed panels stay empty until the speed sweeps have run."""
    rows = pareto_rows(df)
    if rows is None or rows.empty:
        return None
    rows = rows[rows["fp"] > 0]
    fig, axes = plt.subplots(1, 3, figsize=(PAGE, 2.6))
    space, hot, random = axes
    seen = set()
    for fam, g in rows.groupby("family", sort=False):
        curves = g.groupby(g["filter"].map(curve_key), sort=False)
        for _, c in curves:
            c = c.sort_values("fp")
            label = None if fam in seen else fam
            seen.add(fam)
            err = [100 * (c["fp"] - c["ci_low"]).clip(lower=0), 100 * (c["ci_high"] - c["fp"]).clip(lower=0)]
            space.errorbar(100 * c["fp"], 100 * c["overhead"], xerr=err, fmt="-", marker=marker(fam), ms=3, lw=0.8,
                           capsize=1.5, color=color(fam), label=label)
            for ax, column, style in ((hot, "hot_ns", {}), (random, "random_ns", {}),
                                      (random, "pipelined_ns", {"mfc": "white", "ls": ":"})):
                pts = c[c[column] > 0] if column in c else c.iloc[0:0]
                if not pts.empty:
                    ax.plot(100 * pts["fp"], pts[column], marker=marker(fam), ms=3, lw=0.8, color=color(fam),
                            **({"ls": "-"} | style))
    pub = {c.id: c.published for c in claims}
    for bits, fp in (("fuseThreeBits", "fuseThreeFp"), ("fuseFourBits", "fuseThreeFp"), ("xorEightBits", "xorEightFp")):
        if bits in pub and fp in pub:
            b, f = pub[bits], pub[fp] / 100
            space.plot([100 * f], [100 * (b / np.log2(1 / f) - 1)], "x", color="black", ms=4,
                       label="published" if bits == "fuseThreeBits" else None)
    space.axhline(100 * (1 / np.log(2) - 1), color="0.5", lw=0.6, ls="--")
    space.set_ylabel("bits/key over log2(1/FP) (%)")
    hot.set_ylabel("hot query, net ns")
    random.set_ylabel("random-filter query, net ns")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("FP rate (%)")
    for ax in (hot, random):
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_plain_125))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(_plain_125))
    handles, labels = space.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 8), frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def multiget_speedup(df: pd.DataFrame, claims) -> plt.Figure | None:
    """Our engine's per-key speedup of batched MultiGet over a Get loop on the same keys,
    batch size x stride (0 = independent random keys), medians of the repeats, each cell
    annotated; green faster, red slower."""
    s = multiget_summary(df)
    if s is None:
        return None
    s = s[s["engine"] == "filterlab"]
    if s.empty:
        return None
    grid = s.pivot(index="stride", columns="batch_size", values="speedup").sort_index()
    fig, ax = plt.subplots(figsize=(COLUMN, 1.9))
    heatmap(ax, grid, "x", 0, 0)
    ax.set_xlabel("batch size")
    ax.set_ylabel("stride")
    fig.tight_layout()
    return fig


def engine_filters(df: pd.DataFrame, claims) -> plt.Figure | None:
    """Every filter in the engine's tables at one bits/key setting, two panels at page
    width: readmissing µs per lookup against the FP rate the filters showed over all
    levels (horizontal whiskers: 95% Wilson interval), and readrandom µs per lookup
    against the filter bits each stored key costs. One point per filter spec, coloured
    by family; the engine without filters and RocksDB's own runs as reference lines
    (RocksDB's lookups are not on our scale of cost: the line is there to place them)."""
    s = filter_summary(df)
    if s is None:
        return None
    ours = s[(s["engine"] == "filterlab") & (s["filter_label"] != "no filter")]
    if ours.empty or "fp" not in ours or "bits_per_key" not in ours:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(PAGE, 3.0))
    seen = set()
    for _, r in ours.sort_values("filter_label").iterrows():
        lab, fam = r["filter_label"], str(r["filter_label"])
        name = fam.split(":", 1)[0] if not fam.startswith("worm:") else fam.split("variant=", 1)[1].split(",", 1)[0]
        kw = dict(color=color(lab), marker=marker(lab), ms=4, ls="none",
                  label=None if name in seen else name)
        seen.add(name)
        if r["fp"] > 0:
            err = [[100 * max(r["fp"] - r["ci_low"], 0)], [100 * max(r["ci_high"] - r["fp"], 0)]]
            axes[0].errorbar([100 * r["fp"]], [r["readmissing_us"]], xerr=err, capsize=1.5, lw=0.6, **kw)
        axes[1].plot([r["bits_per_key"]], [r["readrandom_us"]], **kw)
    refs = (("filterlab", "no filter", "ours, no filter", "0.45", "--"),
            ("rocksdb", "rocksdb fastlocal", "RocksDB, its Bloom", "black", ":"),
            ("rocksdb", "rocksdb no filter", "RocksDB, no filter", "0.7", ":"))
    for engine, label, name, c, ls in refs:
        row = s[(s["engine"] == engine) & (s["filter_label"] == label)]
        for ax, col in ((axes[0], "readmissing_us"), (axes[1], "readrandom_us")):
            if not row.empty and pd.notna(row[col].iloc[0]):
                ax.axhline(row[col].iloc[0], color=c, ls=ls, lw=0.8, label=name if ax is axes[0] else None)
    axes[0].set_xscale("log")
    axes[0].xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_plain_125))
    axes[0].set_xlabel("FP rate over all levels (%)")
    axes[0].set_ylabel("readmissing, µs per lookup")
    axes[1].set_xlabel("filter bits per stored key")
    axes[1].set_ylabel("readrandom, µs per lookup")
    # Log time axes: the filters' lookups (0.2-0.5 us missing, ~2 us existing) sit an order of
    # magnitude below the reference lines, and on a linear axis from 0 they merge into one spot.
    for ax in axes:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_plain_125))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    # The legend in the figure's own bottom strip (anchored below the canvas it was cut off).
    handles, labels = axes[0].get_legend_handles_labels()
    ncol = 5
    rows = -(-len(labels) // ncol)
    fig.legend(handles, labels, fontsize=6, ncol=ncol, loc="lower center", bbox_to_anchor=(0.5, 0.0), frameon=False)
    fig.tight_layout(rect=(0, 0.045 + 0.045 * rows, 1, 1))
    return fig


def engine_io(df: pd.DataFrame, claims) -> plt.Figure | None:
    """Section io: the analysis package's engine_io figure (cached and cold point lookups
    per engine, compression and thread count; data-block reads per lookup; table bytes)
    at page width."""
    return draw_engine_io(df, width=PAGE, height=5.6, text=7,
                titles=("readrandom: existing keys", "readmissing: missing keys",
                        "data-block reads from storage per lookup", "table bytes after the fill"))


def allocation_cost(df: pd.DataFrame, claims) -> plt.Figure | None:
    """engine_allocation: lookup cost against filter memory, one colour per policy, the
    model's lines and the measured points, a panel per (size ratio, levels), page wide."""
    return engine_allocation(df, ncols=2, width=PAGE)


def _range(kind):
    """A range-filter figure of experiments/range_filters.toml, drawn as `./filterlab plot` draws it."""
    from .. import range_plots

    return lambda df, claims: range_plots.KINDS[kind](df)


def range_seeks(df: pd.DataFrame, claims) -> plt.Figure | None:
    """engine_range: us and data blocks per empty-range seek against the range length, as `./filterlab plot` draws it."""
    from .. import engine_plots

    return engine_plots.range_seeks(df)


FIGURES = {"fp_filter_bench": ("fp_published", fp_filter_bench),
           "range_estimates": ("engine_range_estimates", range_estimates),
           "model_accuracy": ("model_accuracy", model_accuracy),
           "fp_vs_keys": ("fp_vs_keys", fp_vs_keys),
           "probes": ("probes", probes),
           "space_overhead": ("filters_pareto", space_overhead),
           "multiget_speedup": ("engine_multiget", multiget_speedup),
           "engine_filters": ("engine_filters", engine_filters),
           "engine_io": ("engine_io", engine_io),
           "allocation_cost": ("engine_allocation", allocation_cost),
           "range_bits": ("range_filters", _range("range_fp_vs_bits")),
           "range_corr": ("range_filters", _range("range_fp_vs_correlation")),
           "range_lemma": ("range_filters", _range("range_lemma")),
           "range_speed": ("range_filters", _range("range_speed")),
           "range_growth": ("range_filters", _range("range_memento_growth")),
           "range_seeks": ("engine_range", range_seeks)}
