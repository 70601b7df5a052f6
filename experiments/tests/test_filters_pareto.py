"""experiments/filters_pareto.toml end to end, reduced to seconds: the shipped config with its
sizes cut (10^4 keys, 10^5 queries, one seed and bpk 6/16, a 2 MiB working set, one repeat),
run by the runner, and the pareto table and figure drawn from its results. The reduction only
rewrites numbers, so every sweep, filter and worker of the shipped config runs (the bits/key lists of
whole numbers; Parquet's published sizes, 10.5 and up, stay, or they would repeat fp_bpk's runs)."""

import re
import tomllib
from pathlib import Path

import pandas as pd

from analysis.pareto_data import pareto_rows

from .conftest import ROOT, run_cli

FAMILIES = {"fastlocal", "legacy", "dynamic", "standard", "worm", "sbbf", "ribbon", "xor", "binary_fuse"}


def reduced_config() -> str:
    text = (ROOT / "experiments" / "filters_pareto.toml").read_text()
    for pattern, value in ((r"keys = \d+", "keys = 10000"), (r"queries = \d+", "queries = 100000"),
                           (r"seeds = \[[^\]]*\]", "seeds = [0]"), (r"repeats = \d+", "repeats = 1"),
                           (r"bpk = \[\d+(?:, \d+)*\]", "bpk = [6, 16]"), (r"working_set_mb = \d+", "working_set_mb = 2")):
        text, count = re.subn(pattern, value, text)
        assert count > 0, f"the shipped config has no '{pattern}' to reduce: update this test with it"
    return text


def test_reduced_pareto_runs_and_draws_every_family(write_config, tmp_path, checked_build):
    cfg = write_config(reduced_config(), name="filters_pareto.toml")
    out = run_cli("run", cfg, "--results", tmp_path / "results")
    assert out.returncode == 0, out.stderr
    exp = tmp_path / "results" / "filters_pareto"
    assert (exp / "plots" / "pareto.png").exists()
    table = (exp / "tables" / "pareto.md").read_text()
    rows = pareto_rows(pd.read_parquet(exp / "results.parquet"))
    variants = {str(spec).split(":", 1)[0] for spec in rows["filter"]}
    # The worm entry is registered as worm:variant=...; every family has rows.
    assert FAMILIES <= variants | {"worm"} and "worm" in variants, variants
    for spec in rows["filter"]:
        assert spec in table
    # Every row joined its three workers: FP, speed, and the model's temporary memory; except the
    # split-block filter at Parquet's published sizes, which only the FP sweep measures.

    shipped = tomllib.loads((ROOT / "experiments" / "filters_pareto.toml").read_text())
    published = next(sw for sw in shipped["sweep"] if sw["name"] == "fp_sbbf_published")["grid"]["bpk"]
    sizes = "|".join(re.escape(f"bpk={b:g}") for b in published)
    fp_only = rows["filter"].str.match(rf"sbbf:(?:.*,)?(?:{sizes})(?:,|$)")
    joined = rows[~fp_only]
    assert fp_only.sum() == len(published), rows["filter"].tolist()
    assert joined[["fp", "build_ns_per_key", "hot_ns", "random_ns", "pipelined_ns"]].notna().all().all(), joined
    assert joined["temp_bytes_per_key"].notna().all()
    # Bloom layouts need no working memory beyond their bits; Ribbon's banding and a peeling do.
    temp = rows.set_index("filter")["temp_bytes_per_key"]
    assert temp[[s for s in temp.index if s.startswith("fastlocal:")]].eq(0).all()
    assert (temp[[s for s in temp.index if s.startswith(("binary_fuse:", "xor:"))]] > 20).all()
    # Space over the bound: binary fuse 4-wise 8-bit spends < 25% over log2(1/FP) even at 10^4 keys,
    # every Bloom layout more than XOR's 23% at 6 and 16 bits/key (it has at least Bloom's 44%).
    over = rows.set_index("filter")["overhead"]
    assert (over[[s for s in over.index if s.startswith("binary_fuse:arity=4,fingerprint=8")]] < 0.25).all()
    assert (over[[s for s in over.index if s.startswith("fastlocal:")]] > 0.23).all()


def test_shipped_pareto_config_states_its_run_time():
    text = (Path(ROOT) / "experiments" / "filters_pareto.toml").read_text()
    assert re.search(r"Run time: ~[\d.]+ h", text)
