"""Section modern (paper/sections/modern.tex): experiment filters_pareto, every modern filter's
space, FP and speed at about 1% FP (pareto.tex), the times the text names, and Bloom's ideal
overhead over the information-theoretic bound."""

from __future__ import annotations

import math

from ...pareto_data import pareto_rows
from ...tex import escape
from ..numbers import fmt
from ..section import Inputs, Section, not_measured


def section(inputs: Inputs) -> Section:
    # A Bloom filter at its best probe count spends 1 / ln 2 times the bound log2(1/FP).
    values = {"bloomIdeal": f"{100 * (1 / math.log(2) - 1):.0f}", **pareto_values(inputs)}
    return Section(values=values, files={"pareto.tex": pareto_table_tex(inputs)})


# The rows of the modern-filters table: each family at about 1% FP (10 bits/key or its
# fingerprint size), and the 16-bit fingerprints; canonical specs as the sim records them.
PARETO_TABLE_FAMILIES = ("fastlocal", "standard", "sbbf", "ribbon", "xor", "binary_fuse")


def pareto_table_tex(inputs: Inputs) -> str:
    """Per filter of filters_pareto at 10 bits/key (Bloom layouts, Ribbon's Bloom-equivalent 10)
    and every XOR / binary fuse variant: bits/key, FP with its 95% interval, bits over the bound,
    Build's temporary bytes per key, and the speed medians where the speed sweeps have run."""
    df = inputs.results("filters_pareto")
    rows = pareto_rows(df) if df is not None else None
    if rows is None or rows.empty:
        return not_measured("filters_pareto")
    keep = rows[rows["family"].isin(PARETO_TABLE_FAMILIES)
                & ((rows["family"].isin(("xor", "binary_fuse"))) | rows["filter"].str.contains(r"bpk=10(?:[,]|$)"))]

    def num(v, f):
        return "--" if v is None or (isinstance(v, float) and math.isnan(v)) else f.format(v)

    out = [r"\begin{tabular}{@{}lrrrrrrrr@{}}", r"\toprule",
           r"filter & bits/key & FP (\%) & over bound & temp B/key & build ns/key & hot ns & random ns & "
           r"pipelined ns \\",
           r"\midrule"]
    for _, r in keep.iterrows():
        out.append(f"{escape(r['filter'])} & ${r['bits_per_key']:.2f}$ & ${fmt(100 * r['fp'], 'percent')}$ & "
                   f"${100 * r['overhead']:+.1f}\\%$ & {num(r['temp_bytes_per_key'], '${:.3g}$')} & "
                   f"{num(r['build_ns_per_key'], '${:.3g}$')} & "
                   f"{num(r['hot_ns'], '${:.3g}$')} & {num(r['random_ns'], '${:.3g}$')} & "
                   f"{num(r['pipelined_ns'], '${:.3g}$')} \\\\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


def pareto_values(inputs: Inputs) -> dict[str, str]:
    """Section modern, time: at 10 bits/key (Ribbon's Bloom-equivalent 10), build ns/key and
    hot and random-filter query ns of FastLocalBloom, Ribbon, split-block Bloom and 3-wise
    binary fuse8 (medians of filters_pareto's speed sweeps), and Ribbon's times over
    FastLocalBloom's (the published trade: ~30% less space for ~3-4x the time)."""
    names = {"fastlocal": "Fl", "ribbon": "Ribbon", "sbbf": "Sbbf", "binary_fuse:arity=3,fingerprint=8": "FuseThree"}
    cols = {"build_ns_per_key": "Build", "hot_ns": "Hot", "random_ns": "Random"}
    vals = {f"pareto{n}{c}": "--" for n in names.values() for c in cols.values()}
    vals.update({f"paretoRibbonOverFl{c}": "--" for c in cols.values()})
    df = inputs.results("filters_pareto")
    rows = pareto_rows(df) if df is not None else None
    if rows is None or rows.empty:
        return vals

    def row(prefix):
        hit = rows[rows["filter"].str.startswith(prefix)
                   & (rows["filter"].str.contains(r"bpk=10(?:,|$)") | rows["family"].isin(("xor", "binary_fuse")))]
        return None if hit.empty else hit.iloc[0]

    got = {name: row(prefix) for prefix, name in names.items()}
    for name, r in got.items():
        for col, stem in cols.items():
            if r is not None and r[col] > 0:
                vals[f"pareto{name}{stem}"] = f"{r[col]:.3g}"
    fl, rb = got["Fl"], got["Ribbon"]
    if fl is not None and rb is not None:
        for col, stem in cols.items():
            if fl[col] > 0 and rb[col] > 0:
                vals[f"paretoRibbonOverFl{stem}"] = f"{rb[col] / fl[col]:.2f}"
    return vals
