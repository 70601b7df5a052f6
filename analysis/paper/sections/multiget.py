"""Section multiget (paper/sections/multiget.tex): experiment engine_multiget's strides and
batched MultiGet's time per key over the Get loop's."""

from __future__ import annotations

from ...engine_data import multiget_summary
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(values=multiget_values(inputs))


def multiget_values(inputs: Inputs) -> dict[str, str]:
    """Section multiget: the strides measured, and batched MultiGet's time per key over the
    Get loop's (our engine, medians) at batch 1 (the batch's fixed cost; range over the
    strides) and at its best batch size with stride 16 and without locality (stride 0)."""
    vals = dict.fromkeys(("multigetStrides", "multigetBatchOneLow", "multigetBatchOneHigh", "multigetBestLocal",
                          "multigetBestLocalBatch", "multigetBestRandom", "multigetBestRandomBatch"), "--")
    df = inputs.results("engine_multiget")
    if df is None:
        return vals
    strides = sorted(df["stride"].dropna().unique()) if "stride" in df else []
    if len(strides) > 1:
        vals["multigetStrides"] = ", ".join(f"{int(x)}" for x in strides[:-1]) + f" and {int(strides[-1])}"
    s = multiget_summary(df)
    if s is None:
        return vals
    s = s[(s["engine"] == "filterlab") & s["get_us"].notna()].assign(ratio=lambda t: t["multiget_us"] / t["get_us"])
    one = s[s["batch_size"] == 1]["ratio"]
    if len(one):
        vals["multigetBatchOneLow"], vals["multigetBatchOneHigh"] = f"{one.min():.2f}", f"{one.max():.2f}"
    for stride, name in ((16, "multigetBestLocal"), (0, "multigetBestRandom")):
        g = s[(s["stride"] == stride) & (s["batch_size"] > 1)].sort_values("ratio")
        if len(g):
            vals[name], vals[name + "Batch"] = f"{g['ratio'].iloc[0]:.2f}", str(int(g["batch_size"].iloc[0]))
    return vals
