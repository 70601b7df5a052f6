"""Filter memory across the LSM levels (experiments/engine_allocation.toml): lookup cost
against filter memory, one colour per allocation policy. Lines: `filterlab-sim lsm`, the
policies on Monkey's idealised tree (same size ratio, sorted levels = num_levels - 1).
Filled points: lsmbench's measured data-block reads caused by false positives per
missing-key lookup (readmissing) at the memory the tables really hold; crosses: what the
filters' models expect for those same lookups (their FP rates times the lookups each
level saw), with the binomial 2-sigma interval of the measurement as error bars."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .style import BPK_LABEL, palette

READS_LABEL = "data-block reads from false positives per lookup"
POLICIES = ("uniform", "monkey", "no_last_level", "optimal")
POLICY_COLORS = {"uniform": "0.3", "monkey": "tab:blue", "no_last_level": "tab:green", "optimal": "tab:orange"}


def allocation_points(df: pd.DataFrame, benchmark: str = "readmissing") -> pd.DataFrame:
    """lsmbench rows with a filter policy: one per record (a run measures every (budget,
    policy) pair on the tree it filled, one record each), the columns the figure needs."""
    need = {"filter_policy", "fp_reads_per_op", "filter_bits_per_key", "benchmark"}
    if not need <= set(df.columns):
        return pd.DataFrame()
    rows = df[df["benchmark"] == benchmark]
    rows = rows[rows["filter_policy"].notna()]
    if "worker" in rows:
        rows = rows[rows["worker"] == "lsmbench"]
    key = [c for c in ("run_key", "record_index") if c in rows]
    rows = rows.drop_duplicates(key) if key else rows
    cols = ["filter_policy", "filter_budget_bpk", "filter_bits_per_key", "fp_reads_per_op", "fp_reads_model_per_op",
            "fp_reads_model_sigma_per_op", "micros_per_op", "level_multiplier", "num_levels"]
    return rows[[c for c in cols if c in rows]].reset_index(drop=True)


def model_lines(df: pd.DataFrame) -> pd.DataFrame:
    """`filterlab-sim lsm` records: policy, size_ratio, levels, bits_per_key, expected_reads."""
    if "worker" not in df or "expected_reads" not in df:
        return pd.DataFrame()
    rows = df[df["worker"] == "sim lsm"]
    cols = ["policy", "size_ratio", "levels", "bits_per_key", "expected_reads"]
    return rows[[c for c in cols if c in rows]].drop_duplicates().reset_index(drop=True)


def engine_allocation(df: pd.DataFrame, ncols: int | None = None, width: float | None = None):
    """Lookup cost vs filter memory per (size ratio, num_levels) panel, one colour per policy;
    the panels in one row, or `ncols` a row within `width` inches (the report's page)."""
    points = allocation_points(df)
    if points.empty:
        return None
    lines = model_lines(df)
    panels = points[["level_multiplier", "num_levels"]].drop_duplicates().sort_values(
        ["level_multiplier", "num_levels"], ascending=[False, True]).to_numpy().tolist()
    policies = [p for p in POLICIES if p in set(points["filter_policy"]) | set(lines.get("policy", []))]
    # Fixed, distinct colours: uniform (the baseline) dark grey, the three others apart.
    colors = {**palette(policies), **{p: c for p, c in POLICY_COLORS.items() if p in policies}}
    ncols = min(ncols or len(panels), len(panels))
    nrows = -(-len(panels) // ncols)
    size = (4.4 * ncols, 3.8 * nrows) if width is None else (width, 0.8 * width / ncols * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, (T, levels) in zip(axes.flat, panels):
        pts = points[(points["level_multiplier"] == T) & (points["num_levels"] == levels)]
        model = lines[(lines["size_ratio"] == T) & (lines["levels"] == levels - 1)] if not lines.empty else lines
        for policy in policies:
            c = colors[policy]
            m = model[model["policy"] == policy].sort_values("bits_per_key") if not model.empty else model
            if not m.empty:
                ax.plot(m["bits_per_key"], m["expected_reads"], "-", color=c, lw=1.2, label=f"{policy} (model)")
            p = pts[pts["filter_policy"] == policy].sort_values("filter_bits_per_key")
            if p.empty:
                continue
            ax.errorbar(p["filter_bits_per_key"], p["fp_reads_per_op"], yerr=2 * p["fp_reads_model_sigma_per_op"],
                        fmt="o", color=c, ms=4, capsize=2, label=f"{policy} (measured)")
            ax.plot(p["filter_bits_per_key"], p["fp_reads_model_per_op"], "x", color=c, ms=6)
        ax.set_yscale("log")
        ax.set_xlabel(f"filter memory ({BPK_LABEL}, all tables)")
        ax.set_ylabel(READS_LABEL if width is None else "FP data-block reads per lookup")
        ax.set_title(f"T = {T:g}, {int(levels)} levels" + (
            " (x: the filters' models for the measured lookups)" if width is None else ""), fontsize=8)
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    return fig


KINDS = {"engine_allocation": engine_allocation}
