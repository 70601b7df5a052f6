"""The report's figures: our measurements with the published points drawn on
them (marked "published"), at column width, as vector PDF. One function per
figure, each taking the tidy results frame and the claims."""

from __future__ import annotations

from ..style import COLUMN, color, marker  # first: selects the Agg backend before pyplot loads

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..load import pooled_fp  # noqa: E402


def fp_filter_bench(df: pd.DataFrame, claims) -> plt.Figure | None:
    """FP (%) against bits/key for legacy and FastLocalBloom, filter_bench's setting: our
    pooled rate with its 95% interval, the model as a line, the published table as crosses;
    below it the residual panel: ours / published with the interval."""
    fp = df[(df["command"] == "fp") & (df["sweep"] == "filter_bench")]
    if fp.empty:
        return None
    agg = pooled_fp(fp, ["base_filter", "bpk"])
    pub = {(c.ours["filter"], c.ours["bpk"]): c.published for c in claims
           if c.ours.get("sweep") == "filter_bench" and c.ours["kind"] == "fp"}
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


FIGURES = {"fp_filter_bench": ("fp_published", fp_filter_bench)}
