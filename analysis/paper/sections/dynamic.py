"""Section dynamic (paper/sections/dynamic.tex), the filter's own speed by key count
(experiment dynamic_bloom_latency): the table of the new DynamicBloom's times over the old
one's (without locality, RocksDB's default) per key count and mode, beside the filter's size
and the machine's dependent-load latency at that size (`sim floor`, run in the same
experiment); and the values the text names, one per key count, named by the count's power of
two in words (2^23 keys: dynHitRatioTwentyThree)."""

from __future__ import annotations

import math

import pandas as pd

from ...dynamic_data import DYNAMIC_MODES, dynamic_ratios, dynamic_rows, load_latency
from ..section import Inputs, Section, not_measured

NEW, OLD, OLD_LOCAL = "dynamic:bpk=10", "dynamic_old:bpk=10", "dynamic_old:bpk=10,locality=1"
EXPERIMENT = "dynamic_bloom_latency"
# The values per key count: name stem -> mode (ratios), or the filter's MiB and the load latency.
RATIO_VALUES = {"dynAddRatio": "add", "dynHitRatio": "hit", "dynMissRatio": "miss",
                "dynParallelAddRatio": "parallel_add", "dynParallelHitRatio": "parallel_hit",
                "dynParallelMissRatio": "parallel_miss"}
HEADS = {"add": "add", "hit": "hit", "miss": "miss", "parallel_add": "par.\\ add", "parallel_hit": "par.\\ hit",
         "parallel_miss": "par.\\ miss"}
_ONES = ("", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve",
         "Thirteen", "Fourteen", "Fifteen", "Sixteen", "Seventeen", "Eighteen", "Nineteen")
_TENS = {2: "Twenty", 3: "Thirty"}


def section(inputs: Inputs) -> Section:
    text, values = dynamic_keys_table_tex(inputs)
    return Section(values=values, files={"dynamic_keys.tex": text})


def power_word(keys: int) -> str | None:
    """The name part for a key count: its power of two in words (65536 -> "Sixteen"), or None
    for a count that is not a power of two from 2^1 to 2^39."""
    e = int(keys).bit_length() - 1
    if keys <= 1 or 1 << e != keys or e >= 40:
        return None
    return _ONES[e] if e < 20 else _TENS[e // 10] + _ONES[e % 10]


def size_text(nbytes: float) -> str:
    """A filter's size for the text: KiB below 1 MiB, else MiB, three digits."""
    return f"{nbytes / 2**10:.3g}~KiB" if nbytes < 2**20 else f"{nbytes / 2**20:.3g}~MiB"


def _latency_at(latency: pd.Series, nbytes: float) -> float:
    """The load latency measured at the working set nearest the filter's bytes, if within 5%."""
    if latency.empty:
        return math.nan
    ws = min(latency.index, key=lambda w: abs(math.log(w / nbytes)))
    return float(latency[ws]) if abs(ws / nbytes - 1) <= 0.05 else math.nan


def dynamic_keys_table_tex(inputs: Inputs) -> tuple[str, dict[str, str]]:
    """The table (one row per key count) and the values: per key count (word W) dynSizeW (with its unit),
    dynLatencyW (ns), each mode's new / old ratio (RATIO_VALUES stems + W) and the hit ratio
    over the old filter with locality (dynHitOverLocalityW); dynKeysCounts
    (how many key counts), dynHitRatioMax with dynHitRatioMaxKeys ($2^{k}$) and dynHitRatioMin
    with dynHitRatioMinKeys."""
    vals = dict.fromkeys(("dynKeysCounts", "dynHitRatioMax", "dynHitRatioMaxKeys", "dynHitRatioMin",
                          "dynHitRatioMinKeys"), "--")
    df = inputs.results(EXPERIMENT)
    rows = dynamic_rows(df) if df is not None else None
    r = dynamic_ratios(rows, NEW, OLD) if rows is not None else None
    if r is None or r.empty:
        return not_measured(EXPERIMENT), vals
    local = dynamic_ratios(rows, NEW, OLD_LOCAL)
    latency = load_latency(df)
    size = rows[rows["filter_arg"] == NEW].groupby("keys")["bytes"].median()
    modes = [m for m in DYNAMIC_MODES if m in set(r["mode"])]
    out = [r"\begin{tabular}{@{}rrr" + "r" * len(modes) + r"@{}}", r"\toprule",
           r"keys & size & load ns & " + " & ".join(HEADS[m] for m in modes) + r" \\", r"\midrule"]
    for keys, g in r.groupby("keys", sort=True):
        e = int(keys).bit_length() - 1
        label = f"$2^{{{e}}}$" if 1 << e == keys else f"${int(keys)}$"
        nbytes = float(size.get(keys, math.nan))
        lat = _latency_at(latency, nbytes) if not math.isnan(nbytes) else math.nan
        by_mode = dict(zip(g["mode"].astype(str), g["ratio"]))
        cells = [f"${by_mode[m]:.2f}$" if m in by_mode else "--" for m in modes]
        out.append(f"{label} & {'--' if math.isnan(nbytes) else size_text(nbytes)} & "
                   f"{'--' if math.isnan(lat) else f'${lat:.3g}$'} & " + " & ".join(cells) + r" \\")
        word = power_word(int(keys))
        if word is None:
            continue
        if not math.isnan(nbytes):
            vals[f"dynSize{word}"] = size_text(nbytes)
        if not math.isnan(lat):
            vals[f"dynLatency{word}"] = f"{lat:.3g}"
        for stem, mode in RATIO_VALUES.items():
            if mode in by_mode:
                vals[f"{stem}{word}"] = f"{by_mode[mode]:.2f}"
        hit_local = local[(local["keys"] == keys) & (local["mode"] == "hit")]
        if len(hit_local):
            vals[f"dynHitOverLocality{word}"] = f"{hit_local['ratio'].iloc[0]:.2f}"
    out += [r"\bottomrule", r"\end{tabular}"]
    hit = r[r["mode"] == "hit"].sort_values("ratio")
    vals["dynKeysCounts"] = str(r["keys"].nunique())
    if len(hit):
        for name, row in (("Min", hit.iloc[0]), ("Max", hit.iloc[-1])):
            e = int(row["keys"]).bit_length() - 1
            vals[f"dynHitRatio{name}"] = f"{row['ratio']:.2f}"
            vals[f"dynHitRatio{name}Keys"] = f"$2^{{{e}}}$" if 1 << e == row["keys"] else str(int(row["keys"]))
    return "\n".join(out) + "\n", vals
