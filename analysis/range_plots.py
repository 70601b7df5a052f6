"""The range-filter figures (experiments/range_filters.toml; filterlab-sim rangefp and
rangespeed records), one function per kind as in plots.py. Colours are fixed per filter
family (style.py): Grafite, bucketing, Rosetta and prefix Bloom look the same in every
figure. Each takes the tidy results DataFrame and returns a Figure, or None when the
table has no rows of its kind."""

from __future__ import annotations

from .style import BPK_LABEL, FP_LABEL, PAGE  # first: selects the Agg backend before pyplot loads
from .style import marker
from .style import palette as _palette

import matplotlib.lines  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .load import wilson, with_labels  # noqa: E402


def _rows(df: pd.DataFrame, command: str, sweep: str | None = None) -> pd.DataFrame:
    if "command" not in df:
        return df.iloc[0:0]
    out = df[df["command"] == command]
    if sweep is not None and "sweep" in out:
        out = out[out["sweep"].astype(str).str.startswith(sweep)]
    return with_labels(out) if "label" not in out else out


def _label(row_label: str, filter_spec: str, surf_by_suffix: bool = False) -> str:
    """A legend entry: the base label, and for Rosetta and Memento the range they are sized for
    (Rosetta's memory split, Memento's partition). With surf_by_suffix (FP against bits/key, where
    SuRF's size moves with its suffix bits) SuRF's specs join one line per suffix kind: real suffixes
    of every length with no suffix (0 real bits), hashed suffixes apart."""
    if surf_by_suffix and filter_spec.startswith("surf:"):
        return "surf hashed suffix" if "suffix=hash" in filter_spec else "surf real suffix"
    if "range=" in filter_spec and row_label.startswith(("rosetta", "memento")) and "range=" not in row_label:
        return row_label + " range=" + filter_spec.split("range=", 1)[1].split(",", 1)[0]
    return row_label


def pooled(fp: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """rangefp rows pooled over repeats: positives / queries with a Wilson interval; model and bits averaged."""
    fp = fp.copy()
    fp["corr"] = fp["correlation"].fillna(-1.0)
    agg = fp.groupby(by, sort=True, dropna=False).agg(
        positives=("positives", "sum"), queries=("queries", "sum"), model_fp=("model_fp", "mean"),
        bits_per_key=("bits_per_key", "mean"), kind=("fp_model_kind", "first")).reset_index()
    agg["fp"] = agg["positives"] / agg["queries"]
    agg["ci_low"], agg["ci_high"] = wilson(agg["positives"], agg["queries"])
    return agg


def _corr_name(c: float) -> str:
    return "uncorrelated" if c < 0 else f"correlated d={c:g}"


def range_fp_vs_bits(df: pd.DataFrame):
    """FP (log) against the bits/key each filter spends, one panel per (range length,
    correlation); models (dotted) and bounds (dashed) in the filter's colour; the lower
    bound log2(L/eps) as a black line."""
    fp = _rows(df, "rangefp", "fp_vs_bits")
    if fp.empty:
        return None
    fp = fp.assign(legend=[_label(a, b, surf_by_suffix=True) for a, b in zip(fp["label"], fp["filter"])])
    fp = fp.assign(corr=fp["correlation"].fillna(-1.0))
    agg = pooled(fp, ["legend", "filter", "range_length", "corr"])
    panels = sorted({(int(r), float(c)) for r, c in zip(agg["range_length"], agg["corr"])})
    cols = len({p[1] for p in panels})
    rows = len({p[0] for p in panels})
    fig, axes = plt.subplots(rows, cols, figsize=(PAGE, 2.4 * rows), squeeze=False, sharey=True)
    labels = list(dict.fromkeys(agg["legend"]))
    colors = _palette(labels)
    lengths = sorted({p[0] for p in panels})
    corrs = sorted({p[1] for p in panels})
    for (length, corr) in panels:
        ax = axes[lengths.index(length)][corrs.index(corr)]
        g = agg[(agg["range_length"] == length) & (agg["corr"] == corr)]
        for lab in labels:
            s = g[g["legend"] == lab].sort_values("bits_per_key")
            if s.empty:
                continue
            shown = s["positives"] > 0
            y = s["fp"]
            ax.errorbar(s["bits_per_key"][shown], y[shown],
                        yerr=[(y - s["ci_low"])[shown], (s["ci_high"] - y)[shown]], marker=marker(lab), ms=3, lw=1,
                        capsize=1.5, color=colors[lab], label=lab)
            m = s[s["model_fp"].notna()]
            if not m.empty:
                ax.plot(m["bits_per_key"], m["model_fp"].clip(upper=1), lw=0.8, color=colors[lab],
                        ls="--" if (m["kind"] == "upper_bound").all() else ":")
        bits = np.linspace(max(1.0, agg["bits_per_key"].min() - 1), agg["bits_per_key"].max() + 1, 50)
        ax.plot(bits, np.minimum(1.0, length / np.exp2(bits)), color="black", lw=0.9, label="lower bound")
        ax.set_yscale("log")
        ax.set_ylim(max(1e-7, agg["fp"][agg["fp"] > 0].min() / 3 if (agg["fp"] > 0).any() else 1e-7), 1.5)
        ax.set_title(f"range $2^{{{int(np.log2(length))}}}$, {_corr_name(corr)}")
        ax.set_xlabel(BPK_LABEL)
        if corrs.index(corr) == 0:
            ax.set_ylabel("false-positive rate")
    handles = [matplotlib.lines.Line2D([], [], color=colors[lab], marker=marker(lab), ms=3, label=lab)
               for lab in labels]
    handles += [matplotlib.lines.Line2D([], [], color="black", lw=0.9, label="lower bound $L/2^{b}$"),
                matplotlib.lines.Line2D([], [], color="0.4", ls="--", lw=0.8, label="proven bound"),
                matplotlib.lines.Line2D([], [], color="0.4", ls=":", lw=0.8, label="model")]
    fig.legend(handles=handles, loc="lower center", ncol=min(5, len(handles)), bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def range_fp_vs_correlation(df: pd.DataFrame):
    """FP against the correlation degree d (Grafite's Fig. 1), the uncorrelated rate as a
    point at the left labelled 'none'."""
    fp = _rows(df, "rangefp", "fp_vs_correlation")
    if fp.empty:
        return None
    fp = fp.assign(legend=[_label(a, b) for a, b in zip(fp["label"], fp["filter"])])
    agg = pooled(fp, ["legend", "range_length", "corr"])
    labels = list(dict.fromkeys(agg["legend"]))
    colors = _palette(labels)
    fig, ax = plt.subplots(figsize=(PAGE / 2, 2.6))
    for lab in labels:
        s = agg[agg["legend"] == lab].sort_values("corr")
        x = s["corr"].where(s["corr"] >= 0, -0.15)
        y = s["fp"].clip(lower=1e-7)
        ax.errorbar(x, y, yerr=[(s["fp"] - s["ci_low"]).clip(lower=0), s["ci_high"] - s["fp"]], marker=marker(lab),
                    ms=3, lw=1, capsize=1.5, color=colors[lab], label=lab)
    ax.set_yscale("log")
    ax.set_xticks([-0.15, 0, 0.2, 0.4, 0.6, 0.8, 1.0], ["none", "0", "0.2", "0.4", "0.6", "0.8", "1"])
    ax.set_xlabel("correlation degree d (left end = key + U[1, $2^{30(1-d)}$])")
    ax.set_ylabel("false-positive rate")
    lengths = sorted(agg["range_length"].unique())
    ax.set_title("range " + ", ".join(f"$2^{{{int(np.log2(v))}}}$" for v in lengths))
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig


def range_lemma(df: pd.DataFrame):
    """Grafite's lemma test (its Fig. 2): FP against the range length l, with the bound
    l * eps / L and the uniform-key rate 1 - exp(-l eps / L)."""
    fp = _rows(df, "rangefp", "lemma")
    if fp.empty:
        return None
    agg = pooled(fp, ["label", "range_length", "corr"])
    fig, ax = plt.subplots(figsize=(PAGE / 2, 2.6))
    colors = _palette(list(agg["label"].unique()))
    for (lab, corr), s in agg.groupby(["label", "corr"]):
        s = s.sort_values("range_length")
        ax.errorbar(s["range_length"], s["fp"], yerr=[s["fp"] - s["ci_low"], s["ci_high"] - s["fp"]],
                    marker=marker(lab) if corr < 0 else "x", ms=3, lw=1 if corr < 0 else 0.8, capsize=1.5,
                    color=colors[lab], label=f"{lab}, {_corr_name(corr)}", ls="-" if corr < 0 else "")
        ax.plot(s["range_length"], s["model_fp"].clip(upper=1), ls="--", lw=0.8, color="black")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("range length l")
    ax.set_ylabel("false-positive rate")
    ax.legend(handles=ax.get_legend_handles_labels()[0] + [
        matplotlib.lines.Line2D([], [], color="black", ls="--", lw=0.8, label="bound l eps / L")], fontsize=6.5)
    fig.tight_layout()
    return fig


def range_speed(df: pd.DataFrame):
    """Query ns (median of rounds, whiskers min..max) for empty and non-empty ranges,
    hot and random-filter, per filter and bits/key; build ns/key beside."""
    sp = _rows(df, "rangespeed")
    if sp.empty:
        return None
    sp = sp.assign(legend=[_label(a, b) for a, b in zip(sp["label"], sp["filter"])])
    q = sp[sp["mode"] != "build"]
    panels = sorted({(m, int(r)) for m, r in zip(q["mode"], q["range_length"])})
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(PAGE, 2.5), squeeze=False)
    labels = list(dict.fromkeys(sp["legend"]))
    colors = _palette(labels)
    for i, (mode, length) in enumerate(panels):
        ax = axes[0][i]
        g = q[(q["mode"] == mode) & (q["range_length"] == length)]
        for lab in labels:
            for kind, ls in (("empty", "-"), ("nonempty", ":")):
                s = g[(g["legend"] == lab) & (g["query_kind"] == kind)].sort_values("bits_per_key")
                if s.empty:
                    continue
                ax.errorbar(s["bits_per_key"], s["ns"], yerr=[s["ns"] - s["ns_min"], s["ns_max"] - s["ns"]],
                            marker=marker(lab), ms=3, lw=1, ls=ls, capsize=1.5, color=colors[lab])
        ax.set_yscale("log")
        ax.set_title(f"{mode}, range $2^{{{int(np.log2(length))}}}$")
        ax.set_xlabel(BPK_LABEL)
        if i == 0:
            ax.set_ylabel("ns per query")
    ax = axes[0][-1]
    b = sp[sp["mode"] == "build"]
    for lab in labels:
        s = b[b["legend"] == lab].sort_values("bits_per_key")
        ax.errorbar(s["bits_per_key"], s["ns"], yerr=[s["ns"] - s["ns_min"], s["ns_max"] - s["ns"]],
                    marker=marker(lab), ms=3, lw=1, capsize=1.5, color=colors[lab], label=lab)
    ax.set_title("build")
    ax.set_ylabel("ns per key")
    ax.set_xlabel(BPK_LABEL)
    handles = [matplotlib.lines.Line2D([], [], color=colors[lab], marker=marker(lab), ms=3, label=lab)
               for lab in labels]
    handles += [matplotlib.lines.Line2D([], [], color="0.4", ls="-", label="empty ranges"),
                matplotlib.lines.Line2D([], [], color="0.4", ls=":", label="non-empty ranges")]
    fig.legend(handles=handles, loc="lower center", ncol=min(6, len(handles)), bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def growth_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Memento's expansion sweeps (rangefp with --grow_from) pooled per scheme and doublings
    k = log2(keys / grow_from): `infinifilter` (the default) or `sacrifice` (expand=sacrifice)."""
    fp = _rows(df, "rangefp", "memento_growth")
    if fp.empty or "grow_from" not in fp:
        return fp.iloc[0:0]
    fp = fp[fp["grow_from"] > 0]
    fp = fp.assign(doublings=np.rint(np.log2(fp["keys"] / fp["grow_from"])).astype(int),
                   scheme=["sacrifice" if "expand=sacrifice" in f else "infinifilter" for f in fp["filter"]])
    return pooled(fp, ["scheme", "doublings", "range_length"])


def range_memento_growth(df: pd.DataFrame):
    """Memento after k doublings (the keys inserted into a filter made for 2^-k of them): FP of
    empty ranges of its partition size with its bound (dashed), and the bits/key it then spends,
    for InfiniFilter's generations (the default) and for shortening every fingerprint."""
    agg = growth_rows(df)
    if agg.empty:
        return None
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(PAGE, 2.4))
    base = _palette(["memento"])["memento"]
    styles = {"infinifilter": (base, "P", "InfiniFilter generations (default)"),
              "sacrifice": ("0.45", "x", "every fingerprint shortened (expand=sacrifice)")}
    for scheme, (col, mk, lab) in styles.items():
        s = agg[agg["scheme"] == scheme].sort_values("doublings")
        if s.empty:
            continue
        ax.errorbar(s["doublings"], s["fp"], yerr=[s["fp"] - s["ci_low"], s["ci_high"] - s["fp"]], marker=mk,
                    ms=3.5, lw=1, capsize=1.5, color=col, label=lab)
        ax.plot(s["doublings"], s["model_fp"].clip(upper=1), ls="--", lw=0.8, color=col)
        bx.plot(s["doublings"], s["bits_per_key"], marker=mk, ms=3.5, lw=1, color=col, label=lab)
    ax.set_yscale("log")
    ax.set_xlabel("doublings k")
    ax.set_ylabel("false-positive rate")
    lengths = sorted(agg["range_length"].unique())
    ax.set_title("empty ranges of " + ", ".join(f"$2^{{{int(np.log2(v))}}}$" for v in lengths) + " (dashed: bound)")
    bx.set_xlabel("doublings k")
    bx.set_ylabel(BPK_LABEL)
    bx.set_ylim(bottom=0)
    bx.legend(fontsize=6.5)
    fig.tight_layout()
    return fig


KINDS = {"range_fp_vs_bits": range_fp_vs_bits, "range_fp_vs_correlation": range_fp_vs_correlation,
         "range_lemma": range_lemma, "range_speed": range_speed, "range_memento_growth": range_memento_growth}
