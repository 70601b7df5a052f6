"""Section range (paper/sections/range.tex), its data-block hash index part: experiment
engine_block_seek (the gbench of one block's seek, binary search against the hash index) as
block_seek.tex and the values the text names."""

from __future__ import annotations

from ...engine_data import block_seek_summary
from ..section import Inputs, Section, not_measured


def section(inputs: Inputs) -> Section:
    return Section(values=block_seek_values(inputs), files={"block_seek.tex": block_seek_table_tex(inputs)})


def block_seek_values(inputs: Inputs) -> dict[str, str]:
    """Experiment engine_block_seek: the block sizes swept, the blog's (assumed) 32-entry block's
    size, times and share of fallbacks, the largest block's change at util 0.75 and 1, and at
    util 0.75 the smallest block's change and the largest saving over all blocks."""
    names = ("blockSeekEntries", "blockSeekSmallKiB", "blockSeekSmallBinary", "blockSeekSmallHash",
             "blockSeekSmallHashOne", "blockSeekSmallFallback", "blockSeekLargeEntries", "blockSeekLargeKiB",
             "blockSeekLargeChange", "blockSeekLargeChangeOne", "blockSeekRepetitions", "blockSeekSmallestEntries",
             "blockSeekSmallestChange", "blockSeekBestEntries", "blockSeekBestChange")
    vals = {n: "--" for n in names}
    df = inputs.results("engine_block_seek")
    s = block_seek_summary(df) if df is not None else None
    if s is None:
        return vals
    records = sorted(int(r) for r in s["records"].unique())
    vals["blockSeekEntries"] = ", ".join(map(str, records[:-1])) + f" and {records[-1]}" if len(records) > 1 \
        else str(records[0])
    vals["blockSeekRepetitions"] = str(int(s["n"].min()))

    def row(n, hashed, util):
        r = s[(s["records"] == n) & (s["hash"] == hashed) & (s["util_pct"] == util)]
        return None if r.empty else r.iloc[0]

    small, large = (32 if 32 in records else records[0]), records[-1]
    b, h, h1 = row(small, 0, 100), row(small, 1, 75), row(small, 1, 100)
    if b is not None and h is not None:
        vals.update(blockSeekSmallKiB=f"{b['block_bytes'] / 1024:.1f}", blockSeekSmallBinary=f"{b['median']:.0f}",
                    blockSeekSmallHash=f"{h['median']:.0f}",
                    blockSeekSmallFallback=f"{100 * h['fallback_ratio']:.0f}\\%")
    if h1 is not None:
        vals["blockSeekSmallHashOne"] = f"{h1['median']:.0f}"
    lb, lh, lh1 = row(large, 0, 100), row(large, 1, 75), row(large, 1, 100)
    vals["blockSeekLargeEntries"] = str(large)
    if lb is not None and lh is not None:
        vals.update(blockSeekLargeKiB=f"{lb['block_bytes'] / 1024:.0f}",
                    blockSeekLargeChange=f"{100 * lh['change']:+.1f}\\%")
    if lh1 is not None:
        vals["blockSeekLargeChangeOne"] = f"{100 * lh1['change']:+.1f}\\%"
    hashed = s[(s["hash"] == 1) & (s["util_pct"] == 75)]
    smallest, best = hashed.loc[hashed["records"].idxmin()], hashed.loc[hashed["change"].idxmin()]
    vals.update(blockSeekSmallestEntries=str(int(smallest["records"])),
                blockSeekSmallestChange=f"{100 * smallest['change']:+.1f}\\%",
                blockSeekBestEntries=str(int(best["records"])), blockSeekBestChange=f"{100 * best['change']:+.1f}\\%")
    return vals


def _one_row(g, hashed: int, util: int):
    r = g[(g["hash"] == hashed) & (g["util_pct"] == util)]
    return None if r.empty else r.iloc[0]


def block_seek_table_tex(inputs: Inputs) -> str:
    """Experiment engine_block_seek as a column-wide table: per block, entries, KiB, CPU ns per
    seek by binary search and through the index at util ratios 0.75 and 1 (medians) with the
    change, and at 0.75 the share of fallbacks and the index's bytes per key."""
    df = inputs.results("engine_block_seek")
    s = block_seek_summary(df) if df is not None else None
    if s is None or s.empty:
        return not_measured("engine_block_seek")
    out = [r"\begin{tabular}{@{}rrrrrrr@{}}", r"\toprule",
           r"entries & KiB & binary ns & hash $\frac34$ ns & hash 1 ns & fallbacks $\frac34$ & B/key $\frac34$ \\",
           r"\midrule"]

    def timed(r, change=True):
        if r is None:
            return "--"
        return f"${r['median']:.0f}$" + (f" (${100 * r['change']:+.1f}\\%$)" if change else "")

    for records, g in s.groupby("records", sort=True):
        b, h, h1 = (_one_row(g, hashed, util) for hashed, util in ((0, 100), (1, 75), (1, 100)))
        index = "-- & --" if h is None else f"${100 * h['fallback_ratio']:.0f}\\%$ & ${h['index_bytes_per_key']:.2f}$"
        kib = "--" if b is None else f"${b['block_bytes'] / 1024:.1f}$"
        out.append(f"${int(records)}$ & {kib} & {timed(b, False)} & {timed(h)} & {timed(h1)} & {index} \\\\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"
