"""Section allocation (paper/sections/allocation.tex; experiment engine_allocation): the table of the policies' measured
lookup cost at one budget per tree, and the values the text names (database size, the
memory the tables held against the budget, how many measured points lie within the model's
binomial interval). Everything is read from the committed results; "--" where there are none."""

from __future__ import annotations

import math

import pandas as pd

from ...allocation_plot import POLICIES
from ..claims import SIGMA_LIMIT
from ..section import Inputs, Section, not_measured

# The budget the target and the table are at (bits per key), and the target: at
# T = 10, Monkey and the optimum at most TARGET_RATIO of uniform's reads, each measurement
# within SIGMA_LIMIT binomial sigma of its model (the report's tolerance for rates).
TABLE_BUDGET = 5.0
TARGET_RATIO = 0.6
EMPTY = {"allocKeys": "--", "allocDbMiB": "--", "allocMemDevMax": "--", "allocPoints": "--",
         "allocWithinTwo": "--", "allocWithinFour": "--", "allocBudgets": "--", "allocTableBudget": "--",
         "allocTargetWorst": "--", "allocTrees": "--", "allocNllShort": "--", "allocNllPoints": "--",
         "allocMemDevTable": "--", "allocOutside": "--", "allocOutsideWhere": "--", "allocOutsideRel": "--",
         "allocTargetRatio": f"{TARGET_RATIO:g}", "allocTargetZ": "--", "allocTargetMet": "not measured",
         "allocSigmaLimit": "--"}


def section(inputs: Inputs) -> Section:
    text, values = allocation_table_tex(inputs)
    return Section(values=values, files={"allocation.tex": text})


def _readmissing(df: pd.DataFrame) -> pd.DataFrame:
    """One row per readmissing record of a policy (a record's per-level rows dropped)."""
    need = {"benchmark", "filter_policy", "fp_reads_per_op", "filter_bits_per_key", "filter_budget_bpk"}
    if not need <= set(df.columns):
        return pd.DataFrame()
    rows = df[(df["benchmark"] == "readmissing") & df["filter_policy"].notna()]
    if "worker" in rows:
        rows = rows[rows["worker"] == "lsmbench"]
    return rows.drop_duplicates([c for c in ("run_key", "record_index") if c in rows]).reset_index(drop=True)


def _keys_text(n: float) -> str:
    return f"{n / 1e6:g}~million" if n >= 1e6 else f"{int(n)}"


def allocation_table_tex(inputs: Inputs) -> tuple[str, dict[str, str]]:
    """Per tree (size ratio T, levels), at TABLE_BUDGET bits/key: uniform's measured data-block
    reads from false positives per missing-key lookup, each other policy's over uniform's, the
    largest deviation of the tables' filter memory from the budget (uniform, Monkey, optimal: the
    policies that spend it all) and the largest |z| of the
    measured reads against the filters' models (z = (measured - model) / binomial sigma)."""
    vals = dict(EMPTY)
    df = inputs.results("engine_allocation")
    rows = _readmissing(df) if df is not None else pd.DataFrame()
    if rows.empty:
        return not_measured("engine_allocation"), vals
    rows = rows.copy()
    rows["mem_dev"] = rows["filter_bits_per_key"] / rows["filter_budget_bpk"] - 1
    sigma = rows["fp_reads_model_sigma_per_op"]
    rows["z"] = (rows["fp_reads_per_op"] - rows["fp_reads_model_per_op"]) / sigma.where(sigma > 0)
    vals["allocKeys"] = _keys_text(float(rows["num"].median()))
    if "sst_bytes" in rows:
        vals["allocDbMiB"] = f"{rows['sst_bytes'].median() / 2**20:.0f}"
    # no_last_level cannot spend a large budget: its upper levels reach the family's largest
    # filter. The memory the others held is what the rounding leaves.
    spends = rows["filter_policy"] != "no_last_level"
    vals["allocMemDevMax"] = f"{100 * rows.loc[spends, 'mem_dev'].abs().max():.1f}"
    nll = rows[~spends]
    vals["allocNllPoints"] = str(len(nll))
    vals["allocNllShort"] = str(int((nll["mem_dev"] < -0.1).sum()))
    at_table = rows[spends & (rows["filter_budget_bpk"] == TABLE_BUDGET)]
    if len(at_table):
        vals["allocMemDevTable"] = f"{100 * at_table['mem_dev'].abs().max():.1f}"
    z = rows["z"].dropna()
    vals["allocPoints"] = str(len(z))
    vals["allocWithinTwo"] = str(int((z.abs() <= 2).sum()))
    vals["allocWithinFour"] = str(int((z.abs() <= 4).sum()))
    # The points beyond four sigma: which policies at which budgets, and how far off in relative terms.
    out = rows[rows["z"].abs() > SIGMA_LIMIT]
    vals["allocOutside"] = str(len(out))
    if len(out):
        where = out.groupby("filter_policy", sort=False)["filter_budget_bpk"].apply(
            lambda b: " and ".join(f"{x:g}" for x in sorted(b.unique())))
        vals["allocOutsideWhere"] = "; ".join(f"{tex_p(p)} at {b} bits per key" for p, b in where.items())
        rel = (out["fp_reads_per_op"] / out["fp_reads_model_per_op"] - 1).abs().max()
        vals["allocOutsideRel"] = f"{100 * rel:.1f}"
    budgets = sorted(rows["filter_budget_bpk"].unique())
    vals["allocBudgets"] = ", ".join(f"{b:g}" for b in budgets[:-1]) + (f" and {budgets[-1]:g}" if len(budgets) > 1
                                                                        else f"{budgets[0]:g}")
    vals["allocTableBudget"] = f"{TABLE_BUDGET:g}"
    trees = rows[["level_multiplier", "num_levels"]].drop_duplicates().sort_values(
        ["level_multiplier", "num_levels"], ascending=[False, True]).to_numpy().tolist()
    vals["allocTrees"] = str(len(trees))
    at = rows[rows["filter_budget_bpk"] == TABLE_BUDGET]
    others = [p for p in POLICIES if p != "uniform"]

    def num(v, f="{:.3f}"):
        return "--" if v is None or (isinstance(v, float) and math.isnan(v)) else "$" + f.format(v) + "$"

    out = [r"\begin{tabular}{@{}rrrrrrrr@{}}", r"\toprule",
           r"$T$ & levels & uniform reads & " + " & ".join(tex_p(p) + "/u" for p in others)
           + r" & memory & $\max|z|$ \\", r"\midrule"]
    worst, target_z = [], []
    for T, levels in trees:
        tree = at[(at["level_multiplier"] == T) & (at["num_levels"] == levels)]
        by = {p: tree[tree["filter_policy"] == p] for p in POLICIES}
        base = float(by["uniform"]["fp_reads_per_op"].iloc[0]) if len(by["uniform"]) else float("nan")
        ratios = []
        for p in others:
            r = float(by[p]["fp_reads_per_op"].iloc[0]) / base if len(by[p]) and base > 0 else float("nan")
            ratios.append(r)
            if T == 10 and p in ("monkey", "optimal") and not math.isnan(r):
                worst.append(r)
                target_z.append(abs(float(by[p]["z"].iloc[0])))
        spent = tree[tree["filter_policy"] != "no_last_level"]
        dev = spent["mem_dev"].abs().max() if len(spent) else float("nan")
        zmax = tree["z"].abs().max() if len(tree) else float("nan")
        out.append(f"${T:g}$ & ${int(levels)}$ & {num(base, '{:.4f}')} & " + " & ".join(num(r) for r in ratios)
                   + f" & {num(100 * dev, '{:.1f}')}\\% & {num(zmax, '{:.1f}')} \\\\")
    out += [r"\bottomrule", r"\end{tabular}"]
    if worst:
        vals["allocTargetWorst"] = f"{max(worst):.2f}"
        vals["allocTargetZ"] = f"{max(target_z):.1f}"
        met = max(worst) <= TARGET_RATIO and max(target_z) <= SIGMA_LIMIT
        vals["allocTargetMet"] = "met" if met else "not met"
        vals["allocSigmaLimit"] = f"{SIGMA_LIMIT:g}"
    return "\n".join(out) + "\n", vals


def tex_p(policy: str) -> str:
    return {"no_last_level": "no last", "optimal": "optimal", "monkey": "Monkey"}.get(policy, policy)
