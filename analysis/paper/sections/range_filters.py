"""Section range_filters (paper/sections/range_filters.tex; experiment range_filters, issue 29):
the settings the text names (the correlation degree and its span, the lemma test's eps), the best
range filter's FP over prefix Bloom's and over bucketing's on correlated queries, and the
side-by-side run against the papers' code (paper/results/range_filters_peers/peers.csv): its
table range_peers.tex and a summary value."""

from __future__ import annotations

import math

import pandas as pd

from ...tex import escape
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(values=range_filter_values(inputs),
                   files={"range_peers.tex": range_peers_table_tex(range_peer_cells(inputs))})


def range_peer_cells(inputs: Inputs) -> pd.DataFrame | None:
    """The side-by-side run: per (variant, the harness's argument, workload) the median over rounds
    of ours and of the paper's code, and our ratios. None where the run is not committed."""
    path = inputs.results_root / "range_filters_peers" / "peers.csv"
    if not path.exists():
        return None
    p = pd.read_csv(path)
    med = p.groupby(["variant", "arg", "workload", "code"]).agg(
        fpr=("fpr", "median"), build=("build_ns_per_key", "median"), query=("query_ns", "median"),
        bits=("bits_per_key", "median"), queries=("queries", "median"),
        rounds=("round", "nunique")).reset_index()
    ours, paper = (med[med["code"] == c].drop(columns="code").set_index(["variant", "arg", "workload"])
                   for c in ("ours", "paper"))
    cells = ours.merge(paper, left_index=True, right_index=True, suffixes=("_ours", "_paper")).reset_index()
    cells["build_ratio"] = cells["build_ours"] / cells["build_paper"]
    cells["query_ratio"] = cells["query_ours"] / cells["query_paper"]
    cells["rounds"] = cells[["rounds_ours", "rounds_paper"]].min(axis=1)
    return cells


def range_peers_table_tex(cells: pd.DataFrame | None) -> str:
    """Table tab:rangepeers: FPR, bits/key, build and query time of ours beside the papers' code."""
    if cells is None or cells.empty:
        return "\\textit{not measured: no committed results for the side-by-side run.}\n"
    rows = [r"\begin{tabular}{@{}lllllrr@{}}", r"\toprule",
            r"filter & arg. & workload & FPR ours / paper & bits/key ours / paper & build & query \\",
            r"\midrule"]
    for _, c in cells.iterrows():
        # Non-empty workloads have no FP rate (every query holds a key).
        fpr = "--" if pd.isna(c["fpr_ours"]) else f"{c['fpr_ours']:.3g} / {c['fpr_paper']:.3g}"
        rows.append(f"{escape(c['variant'])} & {int(c['arg'])} & {escape(c['workload'])} & "
                    f"{fpr} & {c['bits_ours']:.2f} / {c['bits_paper']:.2f} & "
                    f"{c['build_ratio']:.2f}x & {c['query_ratio']:.2f}x \\\\")
    rows += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(rows) + "\n"


# The side-by-side run's key and empty-range counts (its README: 10^7 uniform keys, 10^6 ranges a set).
PEER_KEYS = 10_000_000
PEER_QUERIES = 1_000_000


def harness_address_factor(n: int) -> float:
    """How much more often two prefixes share a quotient in Memento's authors' benchmark than under a
    uniform map, for n keys: bench_memento.cpp (github.com/n3slami/Memento_Filter, init_memento) takes
    N = n / 0.95 + sqrt(n) slots and maps the low a bits of a prefix's hash (2^a the first power of two
    above N) onto them by fast_reduce(h << (32 - a), N) = floor(h N / 2^a): q = floor(2^a / N) or q + 1
    hash values per slot. Two prefixes collide in the quotient with probability sum_i (c_i / 2^a)^2
    against 1 / N for a uniform map (ours: the high word of a 128-bit product); the factor is the ratio."""
    slots = int(n / 0.95 + n ** 0.5)
    a = slots.bit_length()
    q, r = divmod(1 << a, slots)  # r slots take q + 1 values, the others q
    return slots * ((slots - r) * q * q + r * (q + 1) ** 2) / float(1 << (2 * a))


SURF_MEMENTO_KEYS = ("rangeSurfSparseBits", "rangeSurfDenseBits", "rangeSurfFpTen", "rangeSurfFpCorrMin",
                     "rangeMementoFpFive", "rangeMementoBoundFive", "rangeMementoFpFiveCorr", "rangeMementoPeerFp",
                     "rangeMementoAddressFactor", "rangeMementoPeerFpZ", "rangeRosettaPeerFp", "rangeRosettaPeerFpZ",
                     "rangeREncoderPeerFp", "rangeREncoderPeerFpZ", "rangeREncoderDefaultFp",
                     "rangeGrowthKeys", "rangeGrowthMaxK", "rangeGrowthFp", "rangeGrowthBound", "rangeGrowthBits",
                     "rangeGrowthFpZero", "rangeSacrificeMaxK", "rangeSacrificeFp", "rangeSacrificeBits",
                     "rangeGrowthFpAtSacrificeK")


def surf_memento_values(fp_rows: pd.DataFrame) -> dict[str, str]:
    """SuRF with 8 real suffix bits: bits/key LOUDS-Sparse only (its FP sweeps) and with the default
    dense cut (its correlation sweep), its FP at 2^10 uncorrelated, and the lowest correlated FP of any
    SuRF point; Memento at 16 bits/key and 2^5: FP uncorrelated and correlated, and its bound."""
    out = {}

    def rows(sweep: str, spec: str, length: int | None = None, corr=None) -> pd.DataFrame:
        r = fp_rows[(fp_rows["sweep"] == sweep) & (fp_rows["filter"] == spec)]
        if length is not None:
            r = r[r["range_length"] == length]
        return r[r["correlation"].isna()] if corr is None else r[r["correlation"] == corr]

    sparse = rows("fp_vs_bits_10_surf", "surf:suffix=real,bits=8,dense=0", 1024)
    if not sparse.empty:
        out["rangeSurfSparseBits"] = f"{float(sparse['bits_per_key'].iloc[0]):.1f}"
        out["rangeSurfFpTen"] = f"{100 * float(sparse['fp'].iloc[0]):.3f}\\%"
    dense = rows("fp_vs_correlation_surf", "surf:suffix=real,bits=8")
    if not dense.empty:
        out["rangeSurfDenseBits"] = f"{float(dense['bits_per_key'].iloc[0]):.1f}"
    corr = fp_rows[fp_rows["sweep"].astype(str).str.match(r"fp_vs_bits_\d+_surf") & (fp_rows["correlation"] == 0.8)]
    if not corr.empty:
        out["rangeSurfFpCorrMin"] = f"{float(corr['fp'].min()):.4f}"
    memento = rows("fp_vs_bits_5_memento", "memento:bpk=16,range=32", 32)
    memento_corr = rows("fp_vs_bits_5_memento", "memento:bpk=16,range=32", 32, 0.8)
    if not memento.empty:
        out["rangeMementoFpFive"] = f"{100 * float(memento['fp'].iloc[0]):.2f}\\%"
        out["rangeMementoBoundFive"] = f"{100 * float(memento['model_fp'].iloc[0]):.2f}\\%"
    if not memento_corr.empty:
        out["rangeMementoFpFiveCorr"] = f"{100 * float(memento_corr['fp'].iloc[0]):.2f}\\%"
    out.update(memento_growth_values(fp_rows))
    return out


def memento_growth_values(fp_rows: pd.DataFrame) -> dict[str, str]:
    """Memento's expansion sweeps (pooled and keyed by doublings as the figure draws them): after
    the most doublings each scheme took, its FP (and the InfiniFilter scheme's bound) and bits/key;
    the InfiniFilter FP before any doubling and at the sacrifice scheme's last doubling."""
    from ...range_plots import growth_rows

    out = {}
    g = growth_rows(fp_rows)
    if g.empty:
        return out
    inf = g[g["scheme"] == "infinifilter"].set_index("doublings")
    sac = g[g["scheme"] == "sacrifice"].set_index("doublings")
    keys = fp_rows.loc[fp_rows["sweep"].astype(str).str.startswith("memento_growth"), "keys"]
    out["rangeGrowthKeys"] = f"$2^{{{int(round(math.log2(int(keys.iloc[0]))))}}}$"
    if not inf.empty:
        top = inf.loc[inf.index.max()]
        out["rangeGrowthMaxK"] = str(int(inf.index.max()))
        out["rangeGrowthFp"] = f"{100 * float(top['fp']):.2f}\\%"
        out["rangeGrowthBound"] = f"{100 * float(top['model_fp']):.2f}\\%"
        out["rangeGrowthBits"] = f"{float(top['bits_per_key']):.1f}"
        if 0 in inf.index:
            out["rangeGrowthFpZero"] = f"{100 * float(inf.loc[0, 'fp']):.2f}\\%"
    if not sac.empty:
        k = int(sac.index.max())
        out["rangeSacrificeMaxK"] = str(k)
        out["rangeSacrificeFp"] = f"{100 * float(sac.loc[k, 'fp']):.1f}\\%"
        out["rangeSacrificeBits"] = f"{float(sac.loc[k, 'bits_per_key']):.1f}"
        if k in inf.index:
            out["rangeGrowthFpAtSacrificeK"] = f"{100 * float(inf.loc[k, 'fp']):.2f}\\%"
    return out


def range_filter_values(inputs: Inputs) -> dict[str, str]:
    """At 16 bits/key, ranges of 2^10 and the sweep's correlation, the best range filter's FP over
    prefix Bloom's and over bucketing's; the settings; the peer summary."""
    out = {"rangeBestCorr": "--", "rangeBestCorrBucketing": "--", "rangeCorr": "--", "rangeCorrSpanLog": "--",
           "rangeLemmaEps": "--", "rangePeerNote": "Not measured: no committed results for the side-by-side run.",
           **dict.fromkeys(SURF_MEMENTO_KEYS, "--")}
    df = inputs.results("range_filters")
    if df is not None and "range_length" in df:
        fp_rows = df[df["command"] == "rangefp"]
        degrees = sorted(fp_rows.loc[fp_rows["sweep"].astype(str).str.startswith("fp_vs_bits"),
                                     "correlation"].dropna().unique())
        if degrees:
            out["rangeCorr"] = f"{degrees[0]:g}"
            out["rangeCorrSpanLog"] = f"{round(30 * (1 - degrees[0]))}"
        lemma = fp_rows.loc[fp_rows["sweep"] == "lemma", "filter"].dropna().unique()
        if len(lemma) and "eps=" in lemma[0]:
            out["rangeLemmaEps"] = lemma[0].split("eps=", 1)[1].split(",", 1)[0]
        rows = fp_rows[(fp_rows["sweep"] == "fp_vs_bits_10") & (fp_rows["bpk"] == 16)
                       & (fp_rows["range_length"] == 1024) & (fp_rows["correlation"] == 0.8)]
        if not rows.empty:
            sums = rows.groupby("base_filter")[["positives", "queries"]].sum()
            fp = sums["positives"] / sums["queries"]
            heuristics = [n for n in ("prefix_bloom:prefix=6", "bucketing") if n in fp.index]
            best_name = fp.drop(labels=heuristics).idxmin()
            best = fp[best_name]
            for key, other in (("rangeBestCorr", "prefix_bloom:prefix=6"), ("rangeBestCorrBucketing", "bucketing")):
                if other in fp.index and fp[other] > 0:
                    out[key] = (f"{best / fp[other]:.3f} ({escape(best_name)} {100 * best:.2f}\\% against "
                                f"{100 * fp[other]:.1f}\\%)")
        out.update(surf_memento_values(fp_rows))
    cells = range_peer_cells(inputs)
    if cells is not None and not cells.empty:
        parts = [f"{escape(variant)}: build {g['build_ratio'].min():.2f}--{g['build_ratio'].max():.2f}x, "
                 f"query {g['query_ratio'].min():.2f}--{g['query_ratio'].max():.2f}x"
                 for variant, g in cells.groupby("variant", sort=False)]
        out["rangePeerNote"] = (
            f"Ours over the papers' code on the same keys and queries, medians of up to {int(cells['rounds'].max())} "
            f"interleaved rounds (Table~\\ref{{tab:rangepeers}}): " + "; ".join(parts) + ".")
        memento = cells[(cells["variant"] == "memento") & cells["fpr_ours"].notna()]
        if not memento.empty:
            ratio = memento["fpr_ours"] / memento["fpr_paper"]
            out["rangeMementoPeerFp"] = f"{ratio.min():.2f}--{ratio.max():.2f}"
            factor = harness_address_factor(PEER_KEYS)
            out["rangeMementoAddressFactor"] = f"{1 / factor:.3f}"
            # Ours scaled by the factor against theirs, in binomial sigmas of the two rates (10^6 queries each).
            q = float(PEER_QUERIES)
            sigma = ((memento["fpr_ours"] * (1 - memento["fpr_ours"]) * factor ** 2
                      + memento["fpr_paper"] * (1 - memento["fpr_paper"])) / q) ** 0.5
            z = (memento["fpr_ours"] * factor - memento["fpr_paper"]) / sigma
            out["rangeMementoPeerFpZ"] = f"{z.abs().max():.1f}"
        out.update(peer_fp_values(cells, "rosetta", "Rosetta"))
        out.update(peer_fp_values(cells, "rencoder", "REncoder"))
        out.update(rencoder_default_fp(inputs))
    return out


def peer_fp_values(cells: pd.DataFrame, variant: str, name: str) -> dict[str, str]:
    """One family beside the harness, ours built as the harness builds it (Rosetta, REncoder): the range
    of our FP rate over theirs (range<name>PeerFp), and the largest difference of the two in binomial
    sigmas of the two rates (range<name>PeerFpZ; each code's queries per cell)."""
    rows = cells[(cells["variant"] == variant) & cells["fpr_ours"].notna()]
    if rows.empty:
        return {}
    ours, paper = rows["fpr_ours"], rows["fpr_paper"]
    sigma = (ours * (1 - ours) / rows["queries_ours"] + paper * (1 - paper) / rows["queries_paper"]) ** 0.5
    ratio = ours / paper
    return {f"range{name}PeerFp": f"{ratio.min():.2f}--{ratio.max():.2f}",
            f"range{name}PeerFpZ": f"{((ours - paper) / sigma).abs().max():.1f}"}


def rencoder_default_fp(inputs: Inputs) -> dict[str, str]:
    """REncoder's default layout (code ours-default in peers.csv: one shared array, windows at any bit),
    run in the same processes as its rows built as the harness builds it: the range over cells of its
    median FP rate over the harness's (rangeREncoderDefaultFp)."""
    path = inputs.results_root / "range_filters_peers" / "peers.csv"
    if not path.exists():
        return {}
    p = pd.read_csv(path)
    p = p[(p["variant"] == "rencoder") & p["code"].isin(["ours-default", "paper"])]
    med = p.groupby(["arg", "workload", "code"])["fpr"].median().unstack("code")
    if "ours-default" not in med or "paper" not in med:
        return {}
    ratio = (med["ours-default"] / med["paper"]).dropna()
    return {"rangeREncoderDefaultFp": f"{ratio.min():.2f}--{ratio.max():.2f}"} if not ratio.empty else {}
