"""Section beyond (paper/sections/beyond.tex), its memory-floor part: experiment speed_floor,
each filter's query time beside the machine's line-read floor (speed_floor.tex)."""

from __future__ import annotations

import math

import pandas as pd

from ...speed_data import speed_cells
from ...tex import escape
from ..section import Inputs, Section, not_measured


def section(inputs: Inputs) -> Section:
    text, values = speed_floor_table_tex(inputs)
    return Section(values=values, files={"speed_floor.tex": text})


def speed_floor_table_tex(inputs: Inputs) -> tuple[str, dict[str, str]]:
    """Section beyond: per filter of speed_floor, medians over the repeats of the hot query, the
    random-filter query one at a time and pipelined (net ns, hashing included), the floor
    (ns per independent line read in the same arena) and the pipelined query over the floor;
    with the values the text names: the working set and FastLocalBloom's pipelined x_floor."""
    vals = {"floorWorkingSetMiB": "--", "floorFastPipelinedX": "--", "floorFastRandomX": "--",
            "floorBestPipelined": "--"}
    df = inputs.results("speed_floor")
    cells = speed_cells(df) if df is not None else None
    if cells is None or cells.empty:
        return not_measured("speed_floor"), vals
    cells = cells[cells["mix"] == "mixed"]

    def cell(label, mode, column="median"):
        g = cells[(cells["label"] == label) & (cells["mode"] == mode)]
        return float(g[column].iloc[0]) if len(g) and pd.notna(g[column].iloc[0]) else float("nan")

    def num(v, f="{:.3g}"):
        return "--" if math.isnan(v) else "$" + f.format(v) + "$"

    out = [r"\begin{tabular}{@{}lrrrrr@{}}", r"\toprule",
           r"filter & hot ns & random ns & pipelined ns & floor ns/line & pipelined / floor \\", r"\midrule"]
    labels = list(dict.fromkeys(cells["label"]))
    for label in labels:
        out.append(f"{escape(label)} & {num(cell(label, 'single'))} & {num(cell(label, 'random'))} & "
                   f"{num(cell(label, 'random_pipelined'))} & {num(cell(label, 'random_pipelined', 'floor_ns'))} & "
                   f"{num(cell(label, 'random_pipelined', 'x_floor'), '{:.2f}')} \\\\")
    out += [r"\bottomrule", r"\end{tabular}"]
    ws = cells["working_set_mib"].dropna()
    if len(ws):
        vals["floorWorkingSetMiB"] = f"{ws.median():.0f}"
    fast = next((l for l in labels if l.startswith("fastlocal")), None)
    if fast:
        vals["floorFastPipelinedX"] = f"{cell(fast, 'random_pipelined', 'x_floor'):.2f}"
        vals["floorFastRandomX"] = f"{cell(fast, 'random', 'x_floor'):.1f}"
    piped = cells[cells["mode"] == "random_pipelined"].sort_values("median")
    if len(piped):
        vals["floorBestPipelined"] = escape(piped["label"].iloc[0])
    return "\n".join(out) + "\n", vals
