"""The standard figures, one function per kind, each taking the tidy results
DataFrame (analysis.load) and returning a matplotlib Figure, or None when the
table has no rows of that kind. Axis labels and legend entries are what the
tests check and what a reader sees; keep them plain. This file holds the
filter figures (sim workers); engine_plots.py the engine's (lsmbench)."""

from __future__ import annotations

import matplotlib.lines
import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import pandas as pd
import seaborn as sns

from . import engine_plots, pareto_plots, range_plots
from .load import pooled_fp, probe_grid_rows, with_labels
from .speed_data import MIX_ORDER, panel_title, speed_cells, speed_rows
from .style import BPK_LABEL, FP_LABEL, PAGE, linestyle, marker
from .style import legend as _legend
from .style import palette as _palette


def _labeled(df):
    return df if "label" in df else with_labels(df)


def _counts_note(g: pd.DataFrame) -> str:
    """Keys per filter and queries per point, for the figure's corner: a reader of an FP
    plot needs the sample size to judge the smallest rates."""
    keys = sorted({int(k) for k in g["keys"].dropna()}) if "keys" in g else []
    q = g.groupby(["label", "bpk"] if "bpk" in g else ["label"])["queries"].sum() if "queries" in g else None
    parts = []
    if keys:
        parts.append(f"{_power_of_ten(keys[0])} keys" if len(keys) == 1 else f"{_power_of_ten(keys[0])}..{_power_of_ten(keys[-1])} keys")
    if q is not None and len(q):
        parts.append(f"{_power_of_ten(q.min())} queries per point" if q.min() == q.max() else
                     f"{_power_of_ten(q.min())}..{_power_of_ten(q.max())} queries per point")
    return ", ".join(parts)


def _power_of_ten(v: float) -> str:
    """1e8 -> 10^8, 2e6 -> 2x10^6, 10000 -> 10^4: counts as a reader says them."""
    v = float(v)
    if v < 1000:
        return f"{v:g}"
    e = int(np.floor(np.log10(v)))
    m = v / 10 ** e
    return f"$10^{{{e}}}$" if abs(m - 1) < 1e-9 else f"${m:g}\\times10^{{{e}}}$"


def fp_vs_bits(df: pd.DataFrame):
    """FP rate (%, log) against bits/key: measured points with 95% Wilson intervals and the
    variant's model (policy ModelFpRate) as a dashed line of the same colour; below, the
    residual panel measured / model with its interval, where the gaps between a model and
    its measurement show (the log panel hides them). Legend: one entry per filter, plus a
    key for the line styles."""
    df = _labeled(df)
    fp = df[(df.get("command") == "fp") & df["bpk"].notna()] if "bpk" in df else df.iloc[0:0]
    if fp.empty or fp["bpk"].nunique() < 2:
        return None
    agg = pooled_fp(fp, ["label", "bpk"])
    labels = [lab for lab in agg["label"].unique() if (agg["label"] == lab).sum() >= 2]
    colors = _palette(labels)
    fig, (ax, res) = plt.subplots(2, 1, figsize=(PAGE / 2 if len(labels) <= 6 else PAGE * 0.7, 3.8), sharex=True,
                                  gridspec_kw={"height_ratios": [2.2, 1]})
    for lab in labels:
        g = agg[agg["label"] == lab].sort_values("bpk")
        y, lo, hi = 100 * g["fp"], 100 * g["ci_low"], 100 * g["ci_high"]
        shown = g["positives"] > 0
        ax.errorbar(g["bpk"][shown], y[shown], yerr=[(y - lo)[shown], (hi - y)[shown]], marker=marker(lab), ms=3,
                    lw=1, capsize=1.5, color=colors[lab], ls=linestyle(lab), label=lab)
        ax.plot(g["bpk"], 100 * g["model_fp"], ls="--", lw=0.8, color=colors[lab])
        model = g["model_fp"].where(g["model_fp"] > 0)
        r, rlo, rhi = g["fp"] / model, g["ci_low"] / model, g["ci_high"] / model
        res.errorbar(g["bpk"][shown], r[shown], yerr=[(r - rlo)[shown], (rhi - r)[shown]], marker=marker(lab), ms=2.5,
                     lw=0.8, capsize=1.5, color=colors[lab], ls="")
    ax.set_yscale("log")
    ax.set_ylabel(FP_LABEL)
    res.axhline(1.0, color="0.3", lw=0.8)
    res.set_ylabel("measured / model")
    res.set_xlabel(BPK_LABEL)
    handles = [matplotlib.lines.Line2D([], [], color=colors[lab], marker=marker(lab), ms=3, ls=linestyle(lab),
                                       label=lab) for lab in labels]
    handles.append(matplotlib.lines.Line2D([], [], color="0.3", ls="--", lw=0.8, label="model"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0) if len(labels) > 6 else None)
    note = _counts_note(fp)
    if note:
        ax.text(0.99, 0.98, note, transform=ax.transAxes, ha="right", va="top", fontsize=6.5, color="0.3")
    fig.tight_layout(h_pad=0.3)
    return fig


def fp_vs_keys(df: pd.DataFrame):
    """FP rate (%, log) against keys in one filter (log), solid for 64-bit and dashed
    for 32-bit hashes, model as dotted lines: where fingerprint collisions take over."""
    df = _labeled(df)
    fp = df[df.get("command") == "fp"] if "command" in df else df.iloc[0:0]
    if not fp.empty and "sweep" in fp:
        # Only sweeps that vary the key count (others would add single points).
        varying = fp.groupby("sweep")["keys"].nunique()
        fp = fp[fp["sweep"].isin(varying[varying > 1].index)]
    if fp.empty or fp["keys"].nunique() < 2:
        return None
    agg = pooled_fp(fp, ["base_filter", "hash_bits", "keys"])
    bases = list(agg["base_filter"].unique())
    colors = _palette(bases)
    fig, ax = plt.subplots(figsize=(PAGE / 2, 2.8))
    for (base, bits), g in agg.groupby(["base_filter", "hash_bits"], sort=True):
        g = g.sort_values("keys")
        ls = "-" if bits == 64 else "--"
        lab = f"{base} {int(bits)}-bit hash"
        ax.plot(g["keys"], 100 * g["fp"], ls=ls, marker=marker(base), ms=3, color=colors[base], label=lab)
        ax.fill_between(g["keys"], 100 * g["ci_low"].clip(lower=1e-12), 100 * g["ci_high"], color=colors[base],
                        alpha=0.15)
        ax.plot(g["keys"], 100 * g["model_fp"], ls=":", lw=1, color=colors[base], label=f"{lab} (model)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("keys in the filter")
    ax.set_ylabel(FP_LABEL)
    # One legend entry per filter (its colour) and one per line style: with
    # five filters, two widths and the models, per-series entries were 20 and
    # took more room than the axes.
    handles = [matplotlib.lines.Line2D([], [], color=colors[b], marker=marker(b), ms=3, label=b) for b in bases]
    handles += [matplotlib.lines.Line2D([], [], color="black", ls="-", label="64-bit hash"),
                matplotlib.lines.Line2D([], [], color="black", ls="--", label="32-bit hash"),
                matplotlib.lines.Line2D([], [], color="black", ls=":", lw=1, label="model")]
    ax.legend(handles=handles, loc="upper left")
    fig.tight_layout()
    return fig


OVERHEAD_LABEL = "space over the bound log2(1/FP) (%)"


def bytes_vs_fp(df: pd.DataFrame):
    """The space-accuracy trade-off as overhead over the information-theoretic bound:
    100 * (bits/key / log2(1/FP) - 1) against the measured FP rate (%), each point with
    its FP interval (horizontal) and the overhead that interval allows (vertical). Every
    filter keeps its fixed colour and marker; a filter measured at one point is one marker."""
    df = _labeled(df)
    fp = df[df.get("command") == "fp"] if "command" in df else df.iloc[0:0]
    if fp.empty:
        return None
    # Per bits/key where a filter has one (pooled_fp keeps the NaN bpk of the filters without).
    agg = pooled_fp(fp, ["label", "bpk"] if "bpk" in fp else ["label"])
    agg = agg[(agg["positives"] > 0) & (agg["fp"] < 1)]
    if agg.empty:
        return None

    def overhead(rate):
        return 100 * (agg["bits_per_key"] / np.log2(1 / rate) - 1)

    # A higher rate has a smaller bound, so the interval's high end gives the overhead's high end.
    agg = agg.assign(overhead=overhead(agg["fp"]), o_lo=overhead(agg["ci_low"].clip(lower=1e-300)),
                     o_hi=overhead(agg["ci_high"].clip(upper=1 - 1e-12)))
    labels = list(agg["label"].unique())
    colors = _palette(labels)
    many = len(labels) > 8
    fig, ax = plt.subplots(figsize=(PAGE if many else PAGE / 2, 3.4 if many else 3.0))
    for lab in labels:
        g = agg[agg["label"] == lab].sort_values("fp")
        x, xlo, xhi = 100 * g["fp"], 100 * g["ci_low"], 100 * g["ci_high"]
        yerr = [(g["overhead"] - g["o_lo"]).clip(lower=0), (g["o_hi"] - g["overhead"]).clip(lower=0)]
        ax.errorbar(x, g["overhead"], xerr=[x - xlo, xhi - x], yerr=yerr,
                    marker=marker(lab), ms=3.5, lw=0.8 if len(g) > 1 else 0, elinewidth=0.6, capsize=1,
                    ls=linestyle(lab), color=colors[lab], label=lab)
    ax.axhline(0, color="black", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel(FP_LABEL)
    ax.set_ylabel(OVERHEAD_LABEL)
    if many:  # two columns of small entries beside the axes, which keep half the width
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=2, fontsize=6, handlelength=1.2,
                  columnspacing=0.8)
    else:
        _legend(ax, len(labels))
    fig.tight_layout()
    return fig


def _min_max(values):
    """seaborn errorbar: whiskers from the min to the max over the repeats."""
    return float(np.min(values)), float(np.max(values))


def _speed_note(sp: pd.DataFrame) -> str:
    """What a reader needs beside speed bars: hashing in or out, working set, repeats."""
    parts = []
    if "net_includes_hashing" in sp and sp["net_includes_hashing"].notna().any():
        inc = sp["net_includes_hashing"].dropna().astype(bool)
        parts.append("net of key generation, hashing included" if inc.all() else
                     "net of key generation and hashing" if not inc.any() else "hashing included in some cells")
    if "working_set_bytes" in sp and sp["working_set_bytes"].notna().any():
        parts.append(f"random-filter working set {sp['working_set_bytes'].median() / 2**20:.0f} MiB")
    if "seed" in sp:
        parts.append(f"bars: median of {sp['seed'].nunique()} repeats, whiskers min to max")
    return "; ".join(parts)


def speed_bars(df: pd.DataFrame):
    """Net ns/op per filter for inside, outside and mixed queries, one panel per mode:
    single-filter (hot), random-filter one query at a time (each query to a random filter
    of the working set, filter_bench's figure) and random-filter pipelined (the next
    queries' lines prefetched; with several depths, mixed queries with one bar per depth).
    Horizontal bars (filter names read without rotation), medians over the repeats,
    whiskers min..max; each panel has its own scale, since pipelined queries are an order
    of magnitude faster; one legend for the figure."""
    sp = speed_rows(df, modes=("single", "random", "random_pipelined"))
    sp = sp[(sp["batch"] == 1) & (sp["mix"] != "")] if not sp.empty else sp
    if sp.empty:
        return None
    labels = list(dict.fromkeys(sp["label"]))
    mixes = [m for m in MIX_ORDER if m in set(sp["mix"])]
    depths = sorted(set(sp.loc[sp["mode"] == "random_pipelined", "pipeline_depth"]))
    panels = [(m, sp[sp["mode"] == m]) for m in ("single", "random") if (sp["mode"] == m).any()]
    if len(depths) == 1:
        panels.append((panel_title("random_pipelined", depths[0]), sp[sp["mode"] == "random_pipelined"]))
    elif depths:
        mix = "mixed" if "mixed" in mixes else mixes[0]
        g = sp[(sp["mode"] == "random_pipelined") & (sp["mix"] == mix)].copy()
        g["depth"] = g["pipeline_depth"].map(lambda d: f"groups of {d}")
        panels.append((f"random-filter queries, pipelined ({mix})", g))
    height = 0.9 + 0.28 * len(labels) * max(1, len(mixes)) / 3
    fig, axes = plt.subplots(1, len(panels), figsize=(PAGE, height + 0.6), squeeze=False, sharey=True)
    for i, (ax, (name, g)) in enumerate(zip(axes[0], panels)):
        by_depth = "depth" in g
        hue = "depth" if by_depth else "mix"
        order = [f"groups of {d}" for d in depths] if by_depth else mixes
        # Query mixes in greys, so no bar's colour reads as a filter's fixed colour.
        greys = dict(zip(order, sns.color_palette("Greys", len(order) + 1)[1:]))
        sns.barplot(data=g, y="label", x="value", hue=hue, order=labels, hue_order=order, estimator="median",
                    palette=greys,
                    errorbar=_min_max, capsize=0.15, err_kws={"linewidth": 0.7, "color": "0.2"}, orient="h", ax=ax)
        ax.set_ylabel("filter" if i == 0 else "")
        ax.set_xlabel("net ns per query")
        ax.set_title(name if name.startswith("random-filter queries,") else panel_title(name))
        if by_depth:
            ax.legend(title=None, loc="lower right")
        else:
            handles, texts = ax.get_legend_handles_labels()
            ax.get_legend().remove()
    if "handles" in locals() and handles:
        fig.legend(handles, texts, loc="upper center", ncol=len(texts), frameon=False, bbox_to_anchor=(0.5, 1.0))
    note = _speed_note(sp)
    if any(name.startswith("random-filter queries,") for name, _ in panels):
        note += ("; pipelined: queries in groups of N, each group's lines prefetched through the variant's "
                 "Prefetch hook while the group before it is answered")
    fig.tight_layout(rect=(0, 0.06, 1, 0.93))
    fig.text(0.5, 0.005, note, ha="center", va="bottom", fontsize=6.5, wrap=True)
    return fig


def speed_vs_fp(df: pd.DataFrame):
    """Random-filter net ns/op (median over repeats, whiskers min..max) against the FP rate
    measured among its outside queries (pooled over the repeats): one query at a time
    (filled) and, where measured, pipelined (hollow, the same colour, joined by a line)."""
    cells = speed_cells(df, modes=("random", "random_pipelined"))
    if cells is None:
        return None
    cells = cells[cells["batch"] == 1]
    if cells.empty:
        return None
    mix = "mixed" if (cells["mix"] == "mixed").any() else cells["mix"].iloc[0]
    cells = cells[cells["mix"] == mix]
    depths = sorted(set(cells.loc[cells["mode"] == "random_pipelined", "pipeline_depth"]))
    depth = 16 if 16 in depths else (depths[0] if depths else None)
    one = cells[cells["mode"] == "random"].set_index("label")
    pipe = cells[(cells["mode"] == "random_pipelined") & (cells["pipeline_depth"] == depth)].set_index("label")
    labels = list(dict.fromkeys(cells["label"]))
    colors = _palette(labels)
    fig, ax = plt.subplots(figsize=(PAGE / 2, 3.0))
    for lab in labels:
        fp = one.loc[lab, "fp"] if lab in one.index else pipe.loc[lab, "fp"]
        if not (fp > 0):
            continue
        pts = []
        for table, filled in ((one, True), (pipe, False)):
            if lab not in table.index:
                continue
            r = table.loc[lab]
            yerr = [[r["median"] - r["lo"]], [r["hi"] - r["median"]]]
            ax.errorbar([100 * fp], [r["median"]], yerr=yerr, fmt="o", ms=6, capsize=3, lw=0.8, color=colors[lab],
                        mfc=colors[lab] if filled else "white", mec=colors[lab])
            pts.append(r["median"])
        if len(pts) == 2:
            ax.plot([100 * fp, 100 * fp], pts, ls=":", lw=0.8, color=colors[lab])
        ax.annotate(lab, (100 * fp, pts[0]), fontsize=7, xytext=(5, 3), textcoords="offset points")
    fps = [100 * x for x in pd.concat([one["fp"], pipe["fp"]]) if x > 0]
    if fps and max(fps) / min(fps) >= 10:
        ax.set_xscale("log")
    else:  # less than a decade: a linear axis reads better than log ticks like 1.05x10^0
        ax.margins(x=0.2)
    ax.set_xlabel(FP_LABEL)
    ax.set_ylabel("net ns per query (random filter)")
    ax.set_ylim(bottom=0)
    handles = []
    if not one.empty:
        handles.append(matplotlib.lines.Line2D([], [], ls="", marker="o", color="0.3", label="one query at a time"))
    if depth is not None and not pipe.empty:
        handles.append(matplotlib.lines.Line2D([], [], ls="", marker="o", color="0.3", mfc="white",
                                               label=f"pipelined (groups of {depth})"))
    ax.legend(handles=handles, fontsize=7)
    ax.set_title(f"{mix} queries; median, whiskers min to max")
    fig.tight_layout()
    return fig


def probes(df: pd.DataFrame):
    """Best probe count by simulation against bits/key, with RocksDB's table."""
    pr = probe_grid_rows(df)
    if pr is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = _palette(list(pr["variant"].unique()))
    for var, g in pr.groupby("variant"):
        g = g.groupby("bits_per_key").agg(best=("best_probes", "median"), table=("table_probes", "first")).reset_index()
        ax.step(g["bits_per_key"], g["best"], where="mid", color=colors[var], label=f"{var} best (simulated)")
        if g["table"].notna().any():
            ax.step(g["bits_per_key"], g["table"], where="mid", ls="--", color=colors[var], label=f"{var} table")
    ax.set_xlabel(BPK_LABEL)
    ax.set_ylabel("probes")
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_title("Best probe count per bits/key")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


KINDS = {"fp_vs_bits": fp_vs_bits, "fp_vs_keys": fp_vs_keys, "bytes_vs_fp": bytes_vs_fp,
         "speed_bars": speed_bars, "speed_vs_fp": speed_vs_fp, "probes": probes,
         **engine_plots.KINDS, **pareto_plots.KINDS, **range_plots.KINDS}
