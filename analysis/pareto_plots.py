"""The headline figure: every filter's space overhead and query time against its FP rate
(analysis.pareto_data), one colour per family (style.palette), the sizes of one layout joined
by a line in FP order. Left: bits/key over the bound log2(1/FP), with the 95% interval of
the measured FP as horizontal whiskers; middle: hot single-filter query; right: random
filter over the working set, one at a time (filled) and pipelined (hollow)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker
import pandas as pd

from .pareto_data import curve_key, pareto_rows
from .style import FP_LABEL
from .style import legend as _legend
from .style import palette as _palette


def pareto(df: pd.DataFrame):
    rows = pareto_rows(df)
    if rows is None or rows.empty:
        return None
    rows = rows[rows["fp"] > 0]
    if rows.empty:
        return None
    families = list(dict.fromkeys(rows["family"]))
    colors = _palette(families)
    ws = rows["working_set_mib"].dropna()
    where = f" over {ws.median():.0f} MiB" if not ws.empty else ""
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.5))
    panels = ((axes[0], "overhead", "bits/key over log2(1/FP)"),
              (axes[1], "hot_ns", "hot query, net ns"),
              (axes[2], "random_ns", f"random-filter query{where}, net ns"))
    for fam in families:
        # One curve per layout: the specs of a family that differ only in bits/key (and the probe
        # count that follows from it); XOR's and binary fuse's fingerprint widths and arities are
        # separate curves (single points here). The family's colour, one legend entry.
        fam_rows = rows[rows["family"] == fam]
        curves = fam_rows.groupby(fam_rows["filter"].map(curve_key), sort=False)
        for i, (_, g) in enumerate(curves):
            g = g.sort_values("fp")
            label = fam if i == 0 else None
            for ax, column, _ in panels:
                pts = g[g[column].notna()]
                if pts.empty:
                    continue
                if column == "overhead":
                    err = [(pts["fp"] - pts["ci_low"]).clip(lower=0), (pts["ci_high"] - pts["fp"]).clip(lower=0)]
                    ax.errorbar(pts["fp"], pts[column], xerr=err, fmt="o-", ms=4, lw=0.8, capsize=2,
                                color=colors[fam], label=label)
                else:
                    ax.plot(pts["fp"], pts[column], "o-", ms=4, lw=0.8, color=colors[fam], label=label)
            p = g[g["pipelined_ns"] > 0]
            if not p.empty:
                axes[2].plot(p["fp"], p["pipelined_ns"], "o:", ms=4, lw=0.8, color=colors[fam], mfc="white")
    for ax, column, ylabel in panels:
        ax.set_xscale("log")
        ax.set_xlabel(FP_LABEL)
        ax.set_ylabel(ylabel)
        if column == "overhead":
            ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(xmax=1, decimals=0))
            ax.axhline(0.44, color="0.5", lw=0.8, ls="--")
            ax.annotate("Bloom's ideal +44%", (rows["fp"].min(), 0.44), fontsize=7, xytext=(2, 3),
                        textcoords="offset points", color="0.4")
        else:
            ax.set_yscale("log")
    axes[0].set_title("Space over the bound")
    axes[1].set_title("Hot query")
    axes[2].set_title("Random filter (hollow: pipelined 16)")
    _legend(axes[0], len(families))
    fig.tight_layout()
    return fig


KINDS = {"pareto": pareto}
