"""The engine's figures (lsmbench results), one function per kind, each taking
the tidy results DataFrame and returning a Figure, or None when the table has
no rows of that kind: the MultiGet heat map, hash index and memtable filter
on/off bars, range-estimate distributions, and end-to-end lookups per filter
with the FP rate measured per level. Numbers come from engine_data.py, which
the tables share. Bars are medians over repeats with min..max whiskers."""

from __future__ import annotations

import warnings

import matplotlib.colors
import matplotlib.patches
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

from . import allocation_plot
from .engine_data import (benchmark_rows, context_label, filter_rows, level_fp, medians, multiget_summary,
                          range_seek_summary, range_summary, space_summary, toggle_summary)
from .style import FP_LABEL, PAGE, family, marker, palette

OPS_LABEL = "operations per second"
US_LABEL = "µs per lookup"


def multiget(df: pd.DataFrame):
    """Heat maps over batch size x stride per engine: batched MultiGet µs per key, and
    its speedup over the baseline (a Get loop over the same keys where measured, else
    readrandom), each cell annotated; with a Get-loop baseline its µs per key too."""
    s = multiget_summary(df)
    if s is None:
        return None
    get_loop = (s["baseline"] == "Get loop").all()
    engines = list(pd.unique(s["engine"]))
    ncols = 3 if get_loop else 2
    fig, axes = plt.subplots(len(engines), ncols, figsize=(4.4 * ncols, 3.6 * len(engines)), squeeze=False)
    for row, engine in zip(axes, engines):
        g = s[s["engine"] == engine]

        def grid(col):
            return g.pivot(index="stride", columns="batch_size", values=col).sort_index()

        panels = []
        if get_loop:
            panels.append(("Get loop µs per key", grid("get_us"), "us"))
        panels.append(("MultiGet µs per key", grid("multiget_us"), "us"))
        # One colour scale for both µs panels, so equal times look equal.
        us = g[["multiget_us", "get_us"] if get_loop else ["multiget_us"]].to_numpy(float)
        lo, hi = np.nanmin(us), np.nanmax(us)
        if get_loop:
            title = "speedup vs Get loop"
        else:
            base = g["get_us"].iloc[0]
            title = f"speedup vs readrandom ({base:.3g} µs/op)" if pd.notna(base) else "speedup (no readrandom)"
        panels.append((title, grid("speedup"), "x"))
        for ax, (title, data, unit) in zip(row, panels):
            heatmap(ax, data, unit, lo, hi)
            ax.set_xlabel("batch size")
            ax.set_ylabel("stride (0 = random keys)")
            ax.set_title(f"{engine}: {title}", fontsize=9)
    fig.tight_layout()
    return fig


def heatmap(ax, data: pd.DataFrame, unit: str, lo: float, hi: float) -> None:
    """µs cells on a shared scale [lo, hi]; speedups (unit "x") on a log scale centred on 1."""
    with warnings.catch_warnings():  # seaborn's own use of a matplotlib API about to be deprecated
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        if unit == "x":
            annot = data.map(lambda v: "" if pd.isna(v) else f"{v:.2f}x")
            spread = max(abs(np.log(data.stack())).max(), np.log(1.05)) if data.notna().any().any() else 0.1
            sns.heatmap(np.log(data), annot=annot, fmt="", cmap="RdYlGn", center=0, vmin=-spread, vmax=spread,
                        cbar=False, ax=ax, annot_kws={"fontsize": 8})
        else:
            sns.heatmap(data, annot=True, fmt=".3f", cmap="viridis_r", vmin=lo, vmax=hi if hi > lo else lo + 1e-9,
                        cbar=False, ax=ax, annot_kws={"fontsize": 8})


def _toggle_panel(ax, t: pd.DataFrame, names: tuple, ylabel: str, title: str) -> None:
    """Off and on bars per context (x), min..max whiskers, the change printed over each pair."""
    ctx = t.attrs.get("context", ["engine"])
    labels = [context_label(r, ctx, sep="\n", short=True) for _, r in t.iterrows()]
    x = np.arange(len(t))
    w = 0.38
    colors = palette(names)
    for i, (state, name) in enumerate(zip(("off", "on"), names)):
        med = t[f"median_{state}"].to_numpy(float)
        err = [med - t[f"min_{state}"].to_numpy(float), t[f"max_{state}"].to_numpy(float) - med]
        ax.bar(x + (i - 0.5) * w, med, w, yerr=err, capsize=3, color=colors[name], label=name)
    top = t[["max_off", "max_on"]].max(axis=1).to_numpy(float)
    for xi, yi, ch in zip(x, top, t["change"]):
        ax.annotate(f"{ch:+.1%}", (xi, yi), xytext=(0, 4), textcoords="offset points", ha="center", fontsize=8)
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_xlabel("engine" if list(ctx) == ["engine"] else "configuration")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.margins(y=0.15)


def _toggle_figure(df, toggle: str, benches: tuple, names: tuple, space: bool):
    t = toggle_summary(df, toggle, benches)
    if t is None:
        return None
    present = [b for b in benches if b in set(t["benchmark"])]
    sp = space_summary(df, toggle) if space else None
    n = len(present) + (sp is not None)
    groups = t[t.attrs["context"]].drop_duplicates().shape[0]
    fig, axes = plt.subplots(1, n, figsize=(max(4.2, 1.4 * groups) * n, 4), squeeze=False)
    for ax, bench in zip(axes[0], present):
        g = t[t["benchmark"] == bench].reset_index(drop=True)
        g.attrs = t.attrs
        _toggle_panel(ax, g, names, OPS_LABEL, f"{bench} throughput")
    if sp is not None:
        _toggle_panel(axes[0][-1], sp, names, "SST bytes per key", "space")
    # One legend for all panels, above them (inside, it would cover bars).
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=2, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return fig


def hash_index(df: pd.DataFrame):
    """Data-block hash index off vs on: readrandom (and readmissing, seekrandom where
    measured) throughput, and the SST bytes per key it costs."""
    return _toggle_figure(df, "hash_index", ("readrandom", "readmissing", "seekrandom"),
                          ("hash index off", "hash index on"), space=True)


def memtable_filter(df: pd.DataFrame):
    """Memtable Bloom filter off vs on: readmissing (what it speeds up), fillrandom (what it
    costs) and readrandom throughput where measured."""
    return _toggle_figure(df, "memtable_filter", ("readmissing", "fillrandom", "readrandom"),
                          ("memtable filter off", "memtable filter on"), space=False)


def range_estimates(df: pd.DataFrame):
    """Distributions of the memtable's range-count estimates: one row per true range
    width, one column per algorithm (new beside old), the true count as a dashed line.
    Histograms where lsmbench reported them (bucket shares, log x; the share of zero
    estimates, which a log axis cannot show, in the text), else the summary statistics."""
    r = range_summary(df)
    if r is None:
        return None
    engines = list(pd.unique(r["engine"]))
    cols = [(e, a) for e in engines for a in sorted(r.loc[r["engine"] == e, "approx_algorithm"].unique())]
    widths = sorted(r["width"].unique())
    fig, axes = plt.subplots(len(widths), len(cols), figsize=(4.4 * len(cols), 2.5 * len(widths)),
                             squeeze=False, sharex="row")
    colors = palette([a for _, a in cols])
    for axrow, width in zip(axes, widths):
        for ax, (engine, algo) in zip(axrow, cols):
            sel = r[(r["engine"] == engine) & (r["approx_algorithm"] == algo) & (r["width"] == width)]
            name = f"{algo}" + (f" ({engine})" if len(engines) > 1 else "")
            ax.set_title(f"true count {width}: {name}", fontsize=9)
            ax.set_xlabel("range estimate (entries)", fontsize=8)
            if sel.empty:
                ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center")
                continue
            s = sel.iloc[0]
            if s["histogram"]:
                _histogram(ax, s, colors[algo])
            else:
                _summary_marks(ax, s, colors[algo])
            ax.axvline(width, color="black", ls="--", lw=1, label="true count")
            ax.set_xscale("log")
            # Unlabelled minor ticks: labelling them on narrow log ranges costs seconds per figure.
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            rel = s["stddev"] / width
            text = (f"mean {_n(s['mean'])}, sd {rel:.0%} of true\n"
                    f"p50 {_n(s['p50'])}, p99 {_n(s['p99'])}, max {_n(s['max'])}")
            if pd.notna(s["zeros"]) and s["zeros"] > 0:
                text += f"\nzero estimates {s['zeros']:.1%}"
            ax.text(0.98, 0.95, text, transform=ax.transAxes, ha="right", va="top", fontsize=6.5,
                    bbox={"boxstyle": "round", "fc": "white", "alpha": 0.8, "lw": 0.3})
            ax.legend(fontsize=6, loc="upper left")
    fig.tight_layout()
    return fig


def _n(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def _histogram(ax, s, color) -> None:
    hist = s["histogram"]
    total = sum(c for _, c in hist)
    lows = [lo for lo, _ in hist]
    highs = lows[1:] + [max(lows[-1] + 1, float(s["max"]) + 1)]
    pos = [(lo, hi, c) for lo, hi, (_, c) in zip(lows, highs, hist) if lo > 0 and c > 0]
    if pos:
        ax.bar([p[0] for p in pos], [p[2] / total for p in pos], width=[p[1] - p[0] for p in pos], align="edge",
               color=color, alpha=0.8, label="estimates")
    ax.set_ylabel("share of estimates", fontsize=8)


def _summary_marks(ax, s, color) -> None:
    """No histogram: min..max, mean +- sd, p50 and p99 on one line."""
    lo = max(s["mean"] - s["stddev"], max(s["min"], 0.5))
    ax.hlines(0, max(s["min"], 0.5), s["max"], color=color, lw=1, label="min..max")
    ax.hlines(0, lo, s["mean"] + s["stddev"], color=color, lw=6, alpha=0.6, label="mean ± sd")
    ax.plot([s["p50"]], [0], "o", color="black", ms=4, label="p50")
    ax.plot([s["p99"]], [0], "|", color="black", ms=12, mew=2, label="p99")
    ax.set_yticks([])
    ax.set_ylim(-1, 1.6)


def _grouped_bars(ax, table: pd.DataFrame, groups: list, series: list, colors: dict, err: bool,
                  tick_labels: list | None = None) -> None:
    """Bars of table[median] at x = group, one bar per series; whiskers min..max if err.
    Missing (group, series) pairs leave a gap. colors: series -> colour, or (series, group)
    -> colour where a bar's colour depends on its group too. tick_labels: short labels
    for the groups, set level (without them the group names are set slanted)."""
    w = 0.8 / max(len(series), 1)
    x = np.arange(len(groups))
    for i, name in enumerate(series):
        sub = table[table["series"] == name].set_index("group").reindex(groups)
        med = sub["median"].to_numpy(float)
        kw = {}
        if err:
            kw = {"yerr": [med - sub["min"].to_numpy(float), sub["max"].to_numpy(float) - med], "capsize": 2}
        bar_colors = colors[name] if name in colors else [colors[(name, g)] for g in groups]
        ax.bar(x + (i - (len(series) - 1) / 2) * w, med, w, color=bar_colors, label=name, **kw)
    if tick_labels is None:
        ax.set_xticks(x, groups, rotation=35, ha="right", fontsize=7)
    else:
        ax.set_xticks(x, tick_labels, fontsize=7)


def _shade(color, compression: str):
    """An engine's colour, lighter for lz4 and darker for zstd, so one engine's bars read
    as one family and its compressions as shades of it."""
    rgb = np.array(matplotlib.colors.to_rgb(color))
    if compression == "lz4":
        return tuple(rgb + (1 - rgb) * 0.45)
    if compression == "zstd":
        return tuple(rgb * 0.6)
    return tuple(rgb)


def engine_filters(df: pd.DataFrame):
    """End-to-end lookups per filter variant (and RocksDB where it ran): µs per lookup
    for readrandom and readmissing, and the FP rate each level's filters showed."""
    rows = filter_rows(df)
    if rows.empty or rows["filter_label"].nunique() < 2:
        return None
    groups = list(pd.unique(rows["filter_label"]))
    med = medians(rows, ["filter_label", "benchmark"], "micros_per_op").rename(
        columns={"filter_label": "group", "benchmark": "series"})
    benches = [b for b in ("readrandom", "readmissing") if b in set(med["series"])]
    lv = level_fp(df)
    n = 2 if lv is not None else 1
    fig, axes = plt.subplots(n, 1, figsize=(max(7.0, 0.42 * len(groups) + 2), 4.2 * n), squeeze=False)
    bpk = rows["bpk"].dropna().unique() if "bpk" in rows else []
    at = f" at {bpk[0]:g} bits/key" if len(bpk) == 1 else ""
    ax = axes[0][0]
    _grouped_bars(ax, med, groups, benches, palette(benches), err=True)
    ax.set_xlabel("filter")
    ax.set_ylabel(US_LABEL)
    ax.set_title(f"End-to-end point lookups{at} (median of repeats)", fontsize=9)
    ax.legend(fontsize=7)
    if lv is not None:
        ax = axes[1][0]
        levels = [f"L{lv_}" for lv_ in sorted(lv["level"].unique())]
        t = lv.assign(group=lv["filter_label"], series="L" + lv["level"].astype(str), median=100 * lv["fp"],
                      min=100 * lv["ci_low"], max=100 * lv["ci_high"])
        _grouped_bars(ax, t, groups, levels, palette(levels), err=True)
        ax.set_yscale("log")
        ax.set_xlabel("filter")
        ax.set_ylabel(FP_LABEL)
        ax.set_title("FP rate measured per level: filter said maybe, key not in the file (95% Wilson)", fontsize=9)
        ax.legend(fontsize=7, title="level", title_fontsize=7)
    fig.tight_layout()
    return fig


def engine_io(df: pd.DataFrame, width: float = 10, height: float = 7.5, titles: tuple[str, ...] | None = None,
              text: float | None = None):
    """Cold (direct reads, small cache) and cached point lookups per engine, compression
    and thread count: operations per second of readrandom and readmissing (top row),
    data-block reads per lookup and table bytes per compression (bottom row). One colour
    family per engine (the engine's colour in every engine figure), a shade per
    compression, and one legend for the four panels.
    width, height: the figure in inches; titles: the four panels' titles in that order (the
    report's captions say the rest) instead of the descriptive ones; text: title font size,
    ticks 1 point and the legend 1.5 points smaller (None: 9-point titles for a figure of its own)."""
    title_size = text or 9

    def title(ax, i, default):
        ax.set_title(titles[i] if titles else default, fontsize=title_size)
    rows = benchmark_rows(df, ("readrandom", "readmissing"))
    if rows.empty or "compression" not in rows or "threads" not in rows:
        return None
    rows = rows[rows["compression"].notna() & rows["threads"].notna()]  # records of lsmbench with both
    if rows.empty:
        return None
    direct = rows["direct_reads"].fillna(False).astype(bool) if "direct_reads" in rows else False
    rows = rows.assign(mode=np.where(direct, "cold", "cached"), compression=rows["compression"].astype(str),
                       series=rows["engine"] + " " + rows["compression"].astype(str))
    engines = list(pd.unique(rows["engine"]))
    compressions = [c for c in ("none", "lz4", "zstd") if c in set(rows["compression"])]
    compressions += sorted(set(rows["compression"]) - set(compressions))
    base = palette(engines)
    series = [f"{e} {c}" for e in engines for c in compressions if f"{e} {c}" in set(rows["series"])]
    colors = {f"{e} {c}": _shade(base[e], c) for e in engines for c in compressions}
    modes = [m for m in ("cached", "cold") if m in set(rows["mode"])]
    fig, axes = plt.subplots(2, 2, figsize=(width, height), squeeze=False)
    for col, bench in enumerate(("readrandom", "readmissing")):
        ax = axes[0][col]
        sub = rows[rows["benchmark"] == bench]
        if sub.empty:
            ax.set_visible(False)
            continue
        threads = sorted(sub["threads"].astype(int).unique())
        sub = sub.assign(group=sub["mode"] + ", " + sub["threads"].astype(int).astype(str) + " thr")
        groups = [f"{m}, {t} thr" for m in modes for t in threads]
        med = medians(sub, ["group", "series"], "ops_per_sec")
        _grouped_bars(ax, med, groups, series, colors, err=True,
                      tick_labels=[f"{m}\n{t} thread{'s' if t > 1 else ''}" for m in modes for t in threads])
        ax.set_yscale("log")
        # Ticks at 1, 2 and 5 per decade, read as 200k, 1M: a log axis with only its
        # decade labels gives one label per panel here.
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(matplotlib.ticker.EngFormatter(sep=""))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_ylabel(OPS_LABEL)
        title(ax, col, f"{bench} (median of repeats, min..max)")
    ax = axes[1][0]
    if "io_data_block_reads_per_op" in rows:
        reads = rows[rows["io_data_block_reads_per_op"].notna()]
        reads = reads.assign(group=reads["mode"] + " " + reads["benchmark"])
        groups = [f"{m} {b}" for m in modes for b in ("readrandom", "readmissing")]
        med = medians(reads, ["group", "series"], "io_data_block_reads_per_op")
        _grouped_bars(ax, med, groups, series, colors, err=True,
                      tick_labels=[f"{m}\n{b}" for m in modes for b in ("readrandom", "readmissing")])
        ax.set_ylabel("data-block reads from storage per lookup")
        title(ax, 2, "Data-block reads per lookup (readmissing: all caused by filter false positives)")
    else:
        ax.set_visible(False)
    ax = axes[1][1]
    space = rows[rows["benchmark"] == "readrandom"]
    med = medians(space.assign(series=space["engine"], group=space["compression"]), ["group", "series"], "sst_bytes")
    med[["median", "min", "max"]] = med[["median", "min", "max"]] / 2**20
    # Bars coloured as the legend's (engine, compression) entries, grouped by compression.
    _grouped_bars(ax, med, compressions, engines, {(e, c): colors[f"{e} {c}"] for e in engines for c in compressions},
                  err=True, tick_labels=compressions)
    ax.set_ylabel("table MiB")
    ax.set_xlabel("compression")
    title(ax, 3, "Table bytes after the fill")
    if text is not None:
        for ax in fig.axes:
            ax.tick_params(labelsize=text - 1)
    handles = [matplotlib.patches.Patch(color=colors[s_], label=s_) for s_ in series]
    fig.legend(handles=handles, loc="upper center", ncol=len(series), frameon=False,
               fontsize=7 if text is None else text - 1.5)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def range_seek_label(sweep: str, engine: str, range_filter: str, prefix_extractor: str) -> str:
    """How a line of the empty-range seek figures is named: the range filter's spec, or the prefix
    Bloom of the engine (ours or RocksDB's) with its prefix extractor."""
    if range_filter and range_filter != "none":
        return range_filter
    if prefix_extractor and prefix_extractor != "none":
        return f"{'RocksDB' if engine == 'rocksdb' else 'engine'} prefix Bloom ({prefix_extractor})"
    return "none"


def range_seeks(df: pd.DataFrame):
    """Bounded seeks into empty ranges (experiment engine_range): us per seek (median, whiskers
    min..max over runs) and data blocks read per seek against the range length l, one panel column
    per correlation, one line per range filter, for none and for the prefix Blooms. The target
    sweeps (other key counts) are left out: their figures are in the section's text."""
    s = range_seek_summary(df)
    if s is None:
        return None
    s = s[~s["sweep"].str.startswith("target_")]
    if s.empty or s["range_size"].nunique() < 2:
        return None
    s = s.assign(line=[range_seek_label(*r) for r in zip(s["sweep"], s["engine"], s["range_filter"],
                                                         s["prefix_extractor"])])
    lines = list(dict.fromkeys(s["line"]))
    colors = palette(lines)
    correlations = sorted(s["range_correlation"].unique())
    fig, axes = plt.subplots(2, len(correlations), figsize=(PAGE, 5.2), squeeze=False, sharex=True)
    seen_families: set[str] = set()
    styles = {}
    for lab in lines:  # a family's later members (the second Rosetta size) are dashed
        styles[lab] = "--" if family(lab) in seen_families else "-"
        seen_families.add(family(lab))
    for j, corr in enumerate(correlations):
        for lab in lines:
            g = s[(s["line"] == lab) & (s["range_correlation"] == corr)].sort_values("range_size")
            if g.empty:
                continue
            kw = dict(color=colors[lab], marker=marker(lab), ms=3, lw=1, ls=styles[lab])
            axes[0][j].errorbar(g["range_size"], g["us"], yerr=[g["us"] - g["us_min"], g["us_max"] - g["us"]],
                                capsize=1.5, label=lab, **kw)
            axes[1][j].plot(g["range_size"], g["data_per_seek"], **kw)
        axes[0][j].set_title("uncorrelated" if corr < 0 else f"correlated, d = {corr:g}")
        axes[0][j].set_yscale("log")
        axes[1][j].set_yscale("symlog", linthresh=0.01)
        axes[1][j].set_ylim(0, 1.5 * max(float(s["data_per_seek"].max()), 0.01))
        axes[1][j].set_xlabel("range length l")
        for row in axes:
            row[j].set_xscale("log", base=2)
    axes[0][0].set_ylabel("µs per seek")
    axes[1][0].set_ylabel("data blocks read per seek")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=7, bbox_to_anchor=(0.5, -0.01))
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


KINDS = {"engine_io": engine_io, "multiget": multiget, "hash_index": hash_index, "memtable_filter": memtable_filter,
         "range_estimates": range_estimates, "engine_filters": engine_filters, "range_seeks": range_seeks, **allocation_plot.KINDS}
