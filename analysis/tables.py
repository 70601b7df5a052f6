"""Summary tables as DataFrames, and their Markdown and LaTeX forms (written
here, not via pandas' optional tabulate/jinja2 dependencies). The engine's
tables (lsmbench results) are in engine_tables.py."""

from __future__ import annotations

import pandas as pd

from . import engine_tables
from .load import pooled_fp, probe_grid_rows, with_labels


def fp_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Measured FP rate (pooled over seeds, 95% Wilson interval) beside the model, per filter and bits/key."""
    df = df if "label" in df else with_labels(df)
    if "command" not in df or not (df["command"] == "fp").any():
        return None
    fp = df[df["command"] == "fp"]
    by = ["sweep", "label"] + [c for c in ("bpk", "keys") if c in fp and fp[c].notna().any()]
    agg = pooled_fp(fp, by)
    out = agg[by].copy()
    if "keys" in out:
        out["keys"] = out["keys"].astype("Int64")
    out["bits/key (actual)"] = agg["bits_per_key"].map(lambda v: f"{v:.2f}")
    out["FP %"] = (100 * agg["fp"]).map(lambda v: f"{v:.4g}")
    out["95% CI %"] = [f"{100 * a:.4g}..{100 * b:.4g}" for a, b in zip(agg["ci_low"], agg["ci_high"])]
    out["model FP %"] = (100 * agg["model_fp"]).map(lambda v: f"{v:.4g}")
    out["queries"] = agg["queries"].astype("Int64")
    return out.rename(columns={"label": "filter"})


def speed_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """filter_bench-style: build ns/key and net ns/op per mode and mix, one row per filter."""
    df = df if "label" in df else with_labels(df)
    if "command" not in df or not (df["command"] == "speed").any():
        return None
    sp = df[df["command"] == "speed"]
    rows = {}
    for _, r in sp.iterrows():
        row = rows.setdefault(r["label"], {"filter": r["label"]})
        if r["mode"] == "build":
            row["build ns/key"] = f"{r['ns_per_key']:.1f}"
        elif pd.notna(r.get("mix")):
            col = f"{r['mode']} {r['mix']}" + (f" b{int(r['batch'])}" if r.get("batch", 1) not in (1, None) else "")
            row[f"{col} ns/op"] = f"{r['net_ns_per_op']:.1f}"
    return pd.DataFrame(list(rows.values()))


def probes_table(df: pd.DataFrame) -> pd.DataFrame | None:
    pr = probe_grid_rows(df)
    if pr is None:
        return None
    cols = [c for c in ("variant", "bits_per_key", "table_probes", "best_probes", "verdict") if c in pr]
    pr = pr[cols].copy()
    for c in ("table_probes", "best_probes"):
        if c in pr:
            pr[c] = pr[c].astype("Int64")
    return pr.rename(columns={"bits_per_key": "bits/key", "table_probes": "table", "best_probes": "best"})


KINDS = {"fp": fp_table, "speed": speed_table, "probes": probes_table, **engine_tables.KINDS}


def to_markdown(t: pd.DataFrame) -> str:
    cols = [str(c) for c in t.columns]
    cells = [["" if pd.isna(v) else str(v) for v in row] for row in t.itertuples(index=False)]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    return "\n".join(lines) + "\n"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _tex(s) -> str:
    return "".join(_TEX.get(ch, ch) for ch in str(s))


def to_latex(t: pd.DataFrame) -> str:
    cols = list(t.columns)
    lines = [r"\begin{tabular}{" + "l" * len(cols) + "}", r"\toprule",
             " & ".join(_tex(c) for c in cols) + r" \\", r"\midrule"]
    for row in t.itertuples(index=False):
        lines.append(" & ".join("" if pd.isna(v) else _tex(v) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
