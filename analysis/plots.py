"""The standard figures, one function per kind, each taking the tidy results
DataFrame (analysis.load) and returning a matplotlib Figure, or None when the
table has no rows of that kind. Axis labels and legend entries are what the
tests check and what a reader sees; keep them plain. This file holds the
filter figures (sim workers); engine_plots.py the engine's (lsmbench)."""

from __future__ import annotations

from .style import BPK_LABEL, FP_LABEL  # first: selects the Agg backend before pyplot loads
from .style import legend as _legend
from .style import palette as _palette

import matplotlib.ticker  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from . import engine_plots  # noqa: E402
from .load import pooled_fp, probe_grid_rows, with_labels  # noqa: E402


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
    _legend(ax, 2 * len(ax.get_lines()))
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
    colors = _palette(labels)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    markers = "osD^vP*Xph"
    for i, lab in enumerate(labels):
        g = agg[agg["label"] == lab].sort_values("fp")
        ax.plot(g["fp"], g["bytes_per_key"], marker=markers[i % len(markers)], ms=4, lw=1 if len(g) > 1 else 0, color=colors[lab], label=lab)
    lo, hi = agg["fp"].min() / 2, min(agg["fp"].max() * 2, 1)
    grid = np.logspace(np.log10(lo), np.log10(hi), 100)
    ax.plot(grid, np.log2(1 / grid) / 8, color="black", lw=1.5, label="bound log2(1/FP) bits")
    ax.set_xscale("log")
    ax.set_xlabel(FP_LABEL)
    ax.set_ylabel("bytes per key")
    ax.set_title("Space against accuracy (black: information-theoretic bound)")
    _legend(ax, len(labels) + 1)
    fig.tight_layout()
    return fig


def _speed_rows(df):
    df = _labeled(df)
    if "command" not in df:
        return df.iloc[0:0]
    sp = df[(df["command"] == "speed") & df["mode"].isin(["single", "random"]) & df["mix"].notna()]
    return sp


def speed_bars(df: pd.DataFrame):
    """Net ns/op per filter for inside, outside and mixed queries, single-filter
    (hot) and random-filter (working set beyond the cache) side by side."""
    sp = _speed_rows(df)
    if sp.empty:
        return None
    agg = sp.groupby(["mode", "label", "mix"], sort=False)["net_ns_per_op"].median().reset_index()
    modes = [m for m in ("single", "random") if m in set(agg["mode"])]
    fig, axes = plt.subplots(1, len(modes), figsize=(5 * len(modes), 4.5), squeeze=False)
    mixes = [m for m in ("inside", "outside", "mixed") if m in set(agg["mix"])]
    for ax, mode in zip(axes[0], modes):
        g = agg[agg["mode"] == mode]
        sns.barplot(data=g, x="label", y="net_ns_per_op", hue="mix", hue_order=mixes, ax=ax)
        ax.set_xlabel("filter")
        ax.set_ylabel("net ns per query")
        ax.set_title(f"{mode}-filter queries")
        ax.tick_params(axis="x", rotation=30, labelsize=7)
    fig.tight_layout()
    return fig


def speed_vs_fp(df: pd.DataFrame):
    """Random-filter net ns/op against the FP rate measured among its outside queries."""
    sp = _speed_rows(df)
    sp = sp[(sp["mode"] == "random")]
    if sp.empty:
        return None
    mix = "mixed" if (sp["mix"] == "mixed").any() else sp["mix"].iloc[0]
    sp = sp[sp["mix"] == mix].groupby("label").agg(ns=("net_ns_per_op", "median"), fp=("fp", "mean")).reset_index()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    colors = _palette(list(sp["label"]))
    for _, r in sp.iterrows():
        ax.scatter(r["fp"], r["ns"], color=colors[r["label"]], label=r["label"])
        ax.annotate(r["label"], (r["fp"], r["ns"]), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel(FP_LABEL)
    ax.set_ylabel("net ns per query (random filter)")
    ax.set_title(f"Speed against accuracy ({mix} queries)")
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
         "speed_bars": speed_bars, "speed_vs_fp": speed_vs_fp, "probes": probes, **engine_plots.KINDS}
