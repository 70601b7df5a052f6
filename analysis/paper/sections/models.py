"""Section models (paper/sections/models.tex), "How good are the FP models?": per variant of
experiment model_accuracy, what its registration says its FP model is (exact; an approximation
with its stated largest relative error; a lower or upper bound) and, at each bits/key measured,
measured / model with the distance in binomial standard deviations of the measurement,
z = (fp - model) / sqrt(model (1 - model) / queries), and whether the kind's promise holds at
every point:

  exact          |z| <= 4 at every point;
  approximation  |fp - model| <= 4 sigma + error * model (error: the registration's);
  lower bound    z >= -4;            upper bound  z <= 4;
  empirical      |fp - model| <= 4 sigma + 15% of the model (fp_tolerance.h).

Each point pools 1000 filters, so the spread of one built filter's own rate around the mean
the model gives is averaged out; `dispersion` (Pearson's chi^2 / dof of the per-filter counts)
says how much of it is left (1: none)."""

from __future__ import annotations

import math

import pandas as pd

from ...tex import escape
from ..claims import SIGMA_LIMIT
from ..section import Inputs, Section, not_measured

BPK_COLUMNS = (6, 10, 16, 24)
# The values model_values gives (every one "--" when there are no results).
MODEL_VALUE_KEYS = ("modelsTotal", "modelsExact", "modelsExactWithin", "modelsApprox", "modelsApproxMaxError",
                    "modelsBounds", "modelsHold", "modelsBroken", "modelsQueriesLog", "modelsFilters",
                    "modelsDispersionMax")
EMPIRICAL_ERROR = 0.15  # filters/fp_tolerance.h


def section(inputs: Inputs) -> Section:
    accuracy = inputs.results("model_accuracy")
    if accuracy is None:
        return Section(values=dict.fromkeys(MODEL_VALUE_KEYS, "--"),
                       files={"models.tex": not_measured("model_accuracy")})
    models = model_table(accuracy)
    return Section(values=model_values(models, float(accuracy["queries"].max()), float(accuracy["filters"].max())),
                   files={"models.tex": model_table_tex(models)})


def _holds(kind: str, z: float, fp: float, model: float, sigma: float, error: float) -> bool:
    if kind == "exact":
        return abs(z) <= SIGMA_LIMIT
    if kind == "approximation":
        return abs(fp - model) <= SIGMA_LIMIT * sigma + error * model
    if kind == "empirical":
        return abs(fp - model) <= SIGMA_LIMIT * sigma + EMPIRICAL_ERROR * model
    if kind == "lower_bound":
        return z >= -SIGMA_LIMIT
    if kind == "upper_bound":
        return z <= SIGMA_LIMIT
    raise ValueError(f"model_kind {kind!r}: allowed exact, approximation, empirical, lower_bound, upper_bound")


def _column(bpk: float, bits_per_key: float) -> int:
    """The table column of a point: its bits/key setting, or for a variant sized by its own
    layout (XOR, binary fuse: no bpk) the setting nearest its actual bits/key."""
    target = bits_per_key if bpk is None or (isinstance(bpk, float) and math.isnan(bpk)) else bpk
    return min(BPK_COLUMNS, key=lambda b: abs(b - target))


def model_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per variant (base_label), in the order of the results: kind, error, per-column
    ratio and z, the largest |z|, the largest dispersion and whether the kind holds."""
    fp = df[(df["command"] == "fp") & (df["model_fp"] > 0)].copy()
    if "model_max_relative_error" not in fp:
        fp["model_max_relative_error"] = 0.0
    if "dispersion" not in fp:
        fp["dispersion"] = float("nan")
    rows = []
    for variant, g in fp.groupby("base_label", sort=False):
        kinds = set(g["model_kind"].astype(str))
        if len(kinds) != 1:
            raise ValueError(f"model_accuracy: {variant} has points of several model kinds {sorted(kinds)}; "
                             "one registration states one kind per variant at these settings")
        kind = kinds.pop()
        error = float(g["model_max_relative_error"].max())
        row = {"variant": variant, "kind": kind, "error": error, "holds": True, "zmax": 0.0,
               "dispersion": float(g["dispersion"].max())}
        for _, p in g.iterrows():
            model, measured, queries = float(p["model_fp"]), float(p["fp"]), float(p["queries"])
            sigma = math.sqrt(model * (1 - model) / queries)
            z = (measured - model) / sigma
            col = _column(p.get("bpk"), float(p["bits_per_key"]))
            row[f"ratio_{col}"], row[f"z_{col}"] = measured / model, z
            row["zmax"] = max(row["zmax"], abs(z))
            row["holds"] = row["holds"] and _holds(kind, z, measured, model, sigma, error)
        rows.append(row)
    return pd.DataFrame(rows)


def kind_label(kind: str, error: float) -> str:
    if kind == "approximation":
        return f"approx. $\\pm${100 * error:.3g}\\%"
    return kind.replace("_", " ")


def model_table_tex(t: pd.DataFrame) -> str:
    cols = "".join("r" for _ in BPK_COLUMNS)
    head = " & ".join(f"{b} b/key" for b in BPK_COLUMNS)
    rows = [rf"\begin{{tabular}}{{@{{}}ll{cols}rl@{{}}}}", r"\toprule",
            rf"variant & model & {head} & disp. & holds \\",
            rf"& & \multicolumn{{{len(BPK_COLUMNS)}}}{{c}}{{measured / model ($z$)}} & & \\", r"\midrule"]
    for _, r in t.iterrows():
        cells = []
        for b in BPK_COLUMNS:
            ratio = r.get(f"ratio_{b}")
            cells.append("" if ratio is None or pd.isna(ratio) else f"${ratio:.4f}$ (${r[f'z_{b}']:+.1f}$)")
        disp = "" if pd.isna(r["dispersion"]) else f"${r['dispersion']:.2f}$"
        rows.append(f"{escape(r['variant'])} & {kind_label(r['kind'], r['error'])} & " + " & ".join(cells) +
                    f" & {disp} & {'yes' if r['holds'] else 'no'} \\\\")
    rows += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(rows) + "\n"


def model_values(t: pd.DataFrame, queries: float, filters: float) -> dict[str, str]:
    """The numbers section "How good are the FP models?" quotes."""
    exact = t[t["kind"] == "exact"]
    approx = t[t["kind"] == "approximation"]
    bounds = t[t["kind"].isin(["lower_bound", "upper_bound"])]
    broken = t[~t["holds"]]
    return {
        "modelsTotal": str(len(t)),
        "modelsExact": str(len(exact)),
        "modelsExactWithin": str(int((exact["zmax"] <= SIGMA_LIMIT).sum())),
        "modelsApprox": str(len(approx)),
        "modelsApproxMaxError": f"{100 * approx['error'].max():.3g}" if len(approx) else "--",
        "modelsBounds": str(len(bounds)),
        "modelsHold": str(int(t["holds"].sum())),
        "modelsBroken": ", ".join(escape(v) for v in broken["variant"]) or "none",
        "modelsQueriesLog": f"{math.log10(queries):.0f}",
        "modelsFilters": f"{filters:.0f}",
        "modelsDispersionMax": f"{t['dispersion'].max():.2f}" if t["dispersion"].notna().any() else "--",
    }
