"""Section fastlocal (paper/sections/fastlocal.tex): the query count of the quick FP run, the
speed experiment's working set, and the query kernels' times (experiment speed_scalar)."""

from __future__ import annotations

from ...speed_data import speed_cells
from ..section import Inputs, Section

# speed_scalar's labels and the names of their values.
KERNELS = {"Scalar": "fastlocal:kernel=scalar", "AvxTwo": "fastlocal:kernel=avx2", "Default": "fastlocal"}


def section(inputs: Inputs) -> Section:
    fb = next((c.queries for c in inputs.claims if c.id == "flFpTen" and c.queries), None)
    sp = inputs.results("speed_published")
    return Section(values={
        "fbQuickQueries": f"{fb / 1e6:.1f}~million" if fb else "--",
        "speedWorkingSetMiB": (f"{sp['working_set_bytes'].median() / 2**20:.0f}"
                               if sp is not None and "working_set_bytes" in sp else "--"),
        **kernel_values(inputs)})


def kernel_values(inputs: Inputs) -> dict[str, str]:
    """Experiment speed_scalar: per kernel (Scalar, AvxTwo, Default) and query pick (single,
    random), the median net ns per query all inside and all outside and their ratio, as
    kernel<Kernel><Pick>Inside / Outside / Ratio; and the probes per key."""
    names = [f"kernel{k}{p}{m}" for k in KERNELS for p in ("Single", "Random") for m in ("Inside", "Outside", "Ratio")]
    vals = {n: "--" for n in names + ["kernelProbes"]}
    df = inputs.results("speed_scalar")
    if df is None:
        return vals
    cells = speed_cells(df)
    if cells is None:
        return vals
    for key, label in KERNELS.items():
        for pick in ("single", "random"):
            c = cells[(cells["label"] == label) & (cells["mode"] == pick) & (cells["batch"] == 1)]
            med = {m: c.loc[c["mix"] == m, "median"] for m in ("inside", "outside")}
            if med["inside"].empty or med["outside"].empty:
                continue
            inside, outside = float(med["inside"].iloc[0]), float(med["outside"].iloc[0])
            stem = f"kernel{key}{pick.capitalize()}"
            vals.update({f"{stem}Inside": f"{inside:.3g}", f"{stem}Outside": f"{outside:.3g}",
                         f"{stem}Ratio": f"{outside / inside:.2f}"})
    if "filter" in df:
        probes = df["filter"].dropna().astype(str).str.extract(r"probes=(\d+)")[0].dropna().unique()
        vals["kernelProbes"] = ", ".join(sorted(probes)) or "--"
    return vals
