"""The standard figures, one function per kind, each taking the tidy results
DataFrame (analysis.load) and returning a matplotlib Figure, or None when the
table has no rows of that kind. Axis labels and legend entries are what the
tests check and what a reader sees; keep them plain. This file holds the
filter figures (sim workers); engine_plots.py the engine's (lsmbench)."""

from __future__ import annotations

from .style import BPK_LABEL, FP_LABEL  # first: selects the Agg backend before pyplot loads
from .style import legend as _legend
from .style import palette as _palette

import matplotlib.lines  # noqa: E402
import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from . import engine_plots, pareto_plots  # noqa: E402
from .load import pooled_fp, probe_grid_rows, with_labels  # noqa: E402
from .speed_data import MIX_ORDER, panel_title, speed_cells, speed_rows  # noqa: E402


def _labeled(df):
    return df if "label" in df else with_labels(df)


def fp_vs_bits(df: pd.DataFrame):
    """FP rate (log) against bits/key: measured points with 95% Wilson bands, the
    variant's model (policy ModelFpRate) as a dashed line of the same colour."""
    df = _labeled(df)
    fp = df[(df.get("command") == "fp") & df["bpk"].notna()] if "bpk" in df else df.iloc[0:0]
    if fp.empty or fp["bpk"].nunique() < 2:
        return None
    agg = pooled_fp(fp, ["label", "bpk"])
    labels = [lab for lab in agg["label"].unique() if (agg["label"] == lab).sum() >= 2]
    colors = _palette(labels)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for lab in labels:
        g = agg[agg["label"] == lab].sort_values("bpk")
        ax.plot(g["bpk"], g["fp"], marker="o", ms=3, color=colors[lab], label=lab)
        ax.fill_between(g["bpk"], g["ci_low"].clip(lower=1e-12), g["ci_high"], color=colors[lab], alpha=0.2)
        ax.plot(g["bpk"], g["model_fp"], ls="--", lw=1, color=colors[lab], label=f"{lab} (model)")
    ax.set_yscale("log")
    ax.set_xlabel(BPK_LABEL)
    ax.set_ylabel(FP_LABEL)
    ax.set_title("FP rate against bits/key (bands: 95% Wilson; dashed: model)")
    _legend(ax, 2 * len(labels))
    fig.tight_layout()
    return fig


def fp_vs_keys(df: pd.DataFrame):
    """FP rate (log) against keys in one filter (log), solid for 64-bit and dashed
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
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (base, bits), g in agg.groupby(["base_filter", "hash_bits"], sort=True):
        g = g.sort_values("keys")
        ls = "-" if bits == 64 else "--"
        lab = f"{base} {int(bits)}-bit hash"
        ax.plot(g["keys"], g["fp"], ls=ls, marker="o", ms=3, color=colors[base], label=lab)
        ax.fill_between(g["keys"], g["ci_low"].clip(lower=1e-12), g["ci_high"], color=colors[base], alpha=0.15)
        ax.plot(g["keys"], g["model_fp"], ls=":", lw=1, color=colors[base], label=f"{lab} (model)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("keys in the filter")
    ax.set_ylabel(FP_LABEL)
    ax.set_title("FP rate against filter size: 32- vs 64-bit hashes")
    # One legend entry per filter (its colour) and one per line style: with
    # five filters, two widths and the models, per-series entries were 20 and
    # took more room than the axes.
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=colors[b], marker="o", ms=3, label=b) for b in bases]
    handles += [Line2D([], [], color="black", ls="-", label="64-bit hash"),
                Line2D([], [], color="black", ls="--", label="32-bit hash"),
                Line2D([], [], color="black", ls=":", lw=1, label="model")]
    ax.legend(handles=handles, fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def bytes_vs_fp(df: pd.DataFrame):
    """The space-accuracy trade-off: bytes/key against measured FP rate per
    variant, with the information-theoretic lower bound log2(1/FP)/8 bytes/key."""
    df = _labeled(df)
    fp = df[df.get("command") == "fp"] if "command" in df else df.iloc[0:0]
    if fp.empty:
        return None
    by = ["label", "bpk"] if "bpk" in fp and fp["bpk"].notna().all() else ["label"]
    agg = pooled_fp(fp, by)
    agg = agg[agg["positives"] > 0]
    if agg.empty:
        return None
    agg["bytes_per_key"] = agg["bits_per_key"] / 8
    labels = list(agg["label"].unique())
    points = agg.groupby("label", sort=False).size()
    # Many variants measured at one bits/key beside a few swept over bits/key (the quickstart):
    # the single points sit in one cluster that 20 colours and legend entries cannot tell apart,
    # so they are drawn as one grey series (the FP table lists them); the curves keep their colours.
    singles = [lab for lab in labels if points[lab] == 1]
    group_singles = len(singles) > 4 and len(singles) < len(labels)
    shown = [lab for lab in labels if not (group_singles and lab in singles)]
    colors = _palette(shown)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    markers = "osD^vP*Xph"
    for i, lab in enumerate(shown):
        g = agg[agg["label"] == lab].sort_values("fp")
        ax.plot(g["fp"], g["bytes_per_key"], marker=markers[i % len(markers)], ms=4, lw=1 if len(g) > 1 else 0,
                color=colors[lab], label=lab)
    if group_singles:
        g = agg[agg["label"].isin(singles)]
        bpk = sorted({f"{b:g}" for b in g["bpk"]}) if "bpk" in g else []
        at = f" at {', '.join(bpk)} bits/key" if bpk else ""
        ax.plot(g["fp"], g["bytes_per_key"], ls="", marker="o", ms=3, mfc="none", color="0.45",
                label=f"{len(singles)} other variants{at} (see the FP table)")
    lo, hi = agg["fp"].min() / 2, min(agg["fp"].max() * 2, 1)
    grid = np.logspace(np.log10(lo), np.log10(hi), 100)
    ax.plot(grid, np.log2(1 / grid) / 8, color="black", lw=1.5, label="bound log2(1/FP) bits")
    ax.set_xscale("log")
    ax.set_xlabel(FP_LABEL)
    ax.set_ylabel("bytes per key")
    ax.set_title("Space against accuracy (black: information-theoretic bound)")
    _legend(ax, len(shown) + 1 + group_singles)
    fig.tight_layout()
    return fig


def _min_max(values):
    """seaborn errorbar: whiskers from the min to the max over the repeats."""
    return float(np.min(values)), float(np.max(values))


def speed_bars(df: pd.DataFrame):
    """Net ns/op per filter for inside, outside and mixed queries: single-filter (hot),
    random-filter one query at a time (each query to a random filter of the working
    set, filter_bench's figure) and random-filter pipelined (the next queries' lines prefetched; with several
    depths, mixed queries with one bar per depth). Bars are medians over the repeats,
    whiskers min..max; the two random-filter panels share their y scale."""
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
    fig, axes = plt.subplots(1, len(panels), figsize=(4.3 * len(panels), 4.5), squeeze=False)
    random_axes = []
    for ax, (name, g) in zip(axes[0], panels):
        by_depth = "depth" in g
        hue = "depth" if by_depth else "mix"
        order = [f"groups of {d}" for d in depths] if by_depth else mixes
        sns.barplot(data=g, x="label", y="value", hue=hue, order=labels, hue_order=order, estimator="median",
                    errorbar=_min_max, capsize=0.15, err_kws={"linewidth": 0.8, "color": "0.2"}, ax=ax)
        ax.set_xlabel("filter")
        ax.set_ylabel("net ns per query")
        ax.set_title(name if name.startswith("random-filter queries,") else panel_title(name))
        ax.tick_params(axis="x", rotation=30, labelsize=7)
        ax.legend(fontsize=7, title=None)
        if name != "single":
            random_axes.append(ax)
    if len(random_axes) > 1:
        top = max(ax.get_ylim()[1] for ax in random_axes)
        for ax in random_axes:
            ax.set_ylim(0, top)
    fig.suptitle("Query speed (bars: median over repeats; whiskers: min to max)", fontsize=9)
    if any(name.startswith("random-filter queries,") for name, _ in panels):
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        fig.text(0.5, 0.01, "pipelined: queries in groups of N, each group's lines prefetched through the variant's Prefetch "
                 "hook while the group before it is answered; a variant without one answers them without prefetching.",
                 ha="center", fontsize=7)
        return fig
    fig.tight_layout()
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
    fig, ax = plt.subplots(figsize=(6, 4.5))
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
            ax.errorbar([fp], [r["median"]], yerr=yerr, fmt="o", ms=6, capsize=3, lw=0.8, color=colors[lab],
                        mfc=colors[lab] if filled else "white", mec=colors[lab])
            pts.append(r["median"])
        if len(pts) == 2:
            ax.plot([fp, fp], pts, ls=":", lw=0.8, color=colors[lab])
        ax.annotate(lab, (fp, pts[0]), fontsize=7, xytext=(5, 3), textcoords="offset points")
    fps = [x for x in pd.concat([one["fp"], pipe["fp"]]) if x > 0]
    if fps and max(fps) / min(fps) >= 10:
        ax.set_xscale("log")
    else:  # less than a decade: a linear axis in percent reads better than log ticks like 1.05x10^-2
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(xmax=1, decimals=2))
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
    ax.set_title(f"Speed against accuracy ({mix} queries; median, whiskers min to max)")
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
         **engine_plots.KINDS, **pareto_plots.KINDS}
