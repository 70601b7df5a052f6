"""Reading a results table (results/<experiment>/results.parquet) into the
tidy DataFrame every plot and table takes, with a few derived columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm


def load(path: str | Path) -> pd.DataFrame:
    """A results directory or a .parquet file → DataFrame (one row per measurement).
    Adds `label` (the filter as the runner labelled it, plus its hash width when the
    config set one), `bytes_per_key` and, for FP rows, nothing that is not in the file."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.parquet"
    if not path.exists():
        raise FileNotFoundError(f"no results table at {path} (run the experiment first)")
    df = pd.read_parquet(path)
    return with_labels(df)


def with_labels(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    if "base_filter" in df:
        # base_label: how the runner's registry answer names the base filter
        # (experiments.registry.label; worm:variant=cache_worm64 is cache_worm64).
        names = df["base_label"] if "base_label" in df else df["base_filter"]
        label = names.fillna("").astype(str)
        if "hash" in df:
            has = df["hash"].notna()
            label = label.where(~has, label + " hash=" + df["hash"].astype("Int64").astype(str))
        df["label"] = label
    if "bits_per_key" in df:
        df["bytes_per_key"] = df["bits_per_key"] / 8
    return df


def wilson(positives, trials, level: float = 0.95):
    """Wilson score interval for a binomial proportion (the same method as the sim's ci_low/ci_high).
    The interval always holds the observed rate (exactly 0 below it at no positives); rounding
    can put the computed bound a hair beyond it (2e-22 at 0 of 2e6), which plots would draw as
    a negative error bar, so the bounds are clamped to it."""
    positives, trials = np.asarray(positives, float), np.asarray(trials, float)
    z = norm.ppf(0.5 + level / 2)
    p = positives / trials
    denom = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denom
    half = z * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return np.minimum(center - half, p), np.maximum(center + half, p)


def pooled_fp(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """FP rows pooled over repeats (seeds): total positives / total queries with a
    Wilson interval on the pooled counts; model_fp and bits_per_key averaged."""
    fp = df[df["command"] == "fp"]
    agg = fp.groupby(by, sort=True, dropna=False).agg(
        positives=("positives", "sum"), queries=("queries", "sum"), model_fp=("model_fp", "mean"),
        bits_per_key=("bits_per_key", "mean"), repeats=("seed", "nunique")).reset_index()
    agg["fp"] = agg["positives"] / agg["queries"]
    agg["ci_low"], agg["ci_high"] = wilson(agg["positives"], agg["queries"])
    return agg


def probe_grid_rows(df: pd.DataFrame) -> pd.DataFrame | None:
    """One row per (variant, bits/key, seed) of the probes worker's grid records
    (the table holds one row per candidate count; the verdict columns repeat)."""
    if "command" not in df or "record" not in df:
        return None
    pr = df[(df["command"] == "probes") & (df["record"] == "grid")]
    if pr.empty:
        return None
    return pr.drop_duplicates(["variant", "bits_per_key", "seed"])


def load_experiment(results_root: str | Path, name: str) -> pd.DataFrame | None:
    """The results of experiment `name` under results_root (results_root/name/), or None where
    that experiment has none committed: the report then shows "--" or a "not measured" note."""
    try:
        return load(Path(results_root) / name)
    except FileNotFoundError:
        return None
