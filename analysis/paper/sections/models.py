"""Section models (paper/sections/models.tex): experiment model_accuracy, every variant's
measured FP rate against its model, as models.tex and the counts the text names."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...tex import escape
from ..claims import SIGMA_LIMIT
from ..section import Inputs, Section, not_measured


def section(inputs: Inputs) -> Section:
    accuracy = inputs.results("model_accuracy")
    if accuracy is None:
        return Section(values=dict.fromkeys(("modelsWithin", "modelsTotal", "modelsAllowed", "modelsOutside"), "--"),
                       files={"models.tex": not_measured("model_accuracy")})
    models = model_table(accuracy)
    return Section(values={
        "modelsWithin": str(int(models["within"].sum())), "modelsAllowed": str(int(models["allowed"].sum())),
        "modelsOutside": ", ".join(escape(v) for v in models.loc[~models["allowed"], "variant"]) or "none",
        "modelsTotal": str(len(models))}, files={"models.tex": model_table_tex(models)})


def model_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per variant of the model_accuracy experiment: its model kind (the sim's model_kind),
    the lowest and highest measured/model ratio over the bits/key measured, the largest
    deviation in binomial sigma of the measurement (|fp - model| / sqrt(model (1 - model) /
    queries)), whether every point is within 4 sigma (the model is exact to the sampling
    error), and whether every point is within the range its kind allows
    (model_allowed_low..high: filters/fp_tolerance.h, which the tests hold filters to)."""
    fp = df[(df["command"] == "fp") & (df["model_fp"] > 0)].copy()
    fp["ratio"] = fp["fp"] / fp["model_fp"]
    fp["z"] = (fp["fp"] - fp["model_fp"]) / np.sqrt(fp["model_fp"] * (1 - fp["model_fp"]) / fp["queries"])
    fp["allowed"] = (fp["fp"] >= fp["model_allowed_low"]) & (fp["fp"] <= fp["model_allowed_high"])
    rows = []
    for v, g in fp.groupby("base_label", sort=False):
        zmax = float(g["z"].abs().max())
        rows.append({"variant": v, "kind": str(g["model_kind"].iloc[0]), "low": float(g["ratio"].min()),
                     "high": float(g["ratio"].max()), "zmax": zmax, "within": zmax <= SIGMA_LIMIT,
                     "allowed": bool(g["allowed"].all())})
    return pd.DataFrame(rows).sort_values(["within", "allowed", "zmax"], ascending=[False, False, True])


def model_table_tex(t: pd.DataFrame) -> str:
    rows = [r"\begin{tabular}{@{}lllrll@{}}", r"\toprule",
            r"variant & model & measured / model & max $|z|$ & exact & allowed \\", r"\midrule"]
    for _, r in t.iterrows():
        rows.append(f"{escape(r['variant'])} & {escape(r['kind'].replace('_', ' '))} & "
                    f"${r['low']:.3f}$..${r['high']:.3f}$ & ${r['zmax']:.1f}$ & {'yes' if r['within'] else 'no'} & "
                    f"{'yes' if r['allowed'] else 'no'} \\\\")
    rows += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(rows) + "\n"
