"""Every config shipped in experiments/ passes validation against this build
(the registry, every run's --check by its worker), and every plot and table
kind a config can name is one analysis draws."""

import tomllib
from pathlib import Path

import pytest

from analysis import plots, tables
from experiments.config import PLOT_KINDS, TABLE_KINDS, load_config
from experiments.validate import plan

from .conftest import ROOT

SHIPPED = sorted((ROOT / "experiments").glob("*.toml"))


def test_configs_are_shipped():
    names = {p.stem for p in SHIPPED}
    assert {"quickstart", "fp_vs_bits", "fp_vs_keys", "speed", "probes", "engine_multiget", "engine_hash_index",
            "engine_memtable_filter", "engine_range_estimates", "engine_filters"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_config_validates(path: Path, request):
    engine = 'worker = "lsmbench"' in path.read_text()
    build = request.getfixturevalue("checked_lsm_build" if engine else "checked_build")
    config = load_config(path, build)
    assert config.description.strip() and config.claim.strip()
    assert config.plots or config.tables, "a config should say what to draw"
    # Validity is about the config, not this machine's free memory (fp_vs_keys needs ~9.4 GiB).
    p = plan(config, build, mem_limit=1 << 50)
    assert p.runs


PAPER_CONFIGS = [ROOT / e["config"] for e in tomllib.loads((ROOT / "paper" / "paper.toml").read_text())["experiment"]]


@pytest.mark.parametrize("path", PAPER_CONFIGS, ids=lambda p: p.stem)
def test_paper_config_quick_tables_validate(path: Path, request):
    """`./filterlab paper --run --quick` runs every config of paper/paper.toml with its [quick]
    table: each applies (every key reduces something) and every reduced run passes --check."""
    engine = 'worker = "lsmbench"' in path.read_text()
    build = request.getfixturevalue("checked_lsm_build" if engine else "checked_build")
    config = load_config(path, build, quick=True)
    assert config.name == f"{path.stem}-quick"
    assert plan(config, build, mem_limit=1 << 50).runs


def test_config_kinds_are_analysis_kinds():
    assert set(PLOT_KINDS) == set(plots.KINDS)
    assert set(TABLE_KINDS) == set(tables.KINDS)
