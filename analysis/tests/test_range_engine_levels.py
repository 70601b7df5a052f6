"""The report's per-level seek FP table (analysis/paper/sections/range_engine.py): tickers summed
over repeats per level, the Wilson interval, and the verdict against an exact model (two-sided, 4
binomial sigma) or a bound (one-sided), on frames with known values."""

import math

import pandas as pd

from analysis.paper.sections.range_engine import level_fp_table_tex


def _engine(spec: str, rows: list[tuple[int, int, int]]) -> pd.DataFrame:
    """(level, filtered, match) per repeat, as the runner's tidy records of target_empty_ranges."""
    return pd.DataFrame([{"sweep": "target_empty_ranges", "benchmark": "seekempty", "range_filter": spec,
                          "levels_level": level, "levels_seek_range_filtered": filtered,
                          "levels_seek_range_filter_match": match} for level, filtered, match in rows])


def _sim(spec: str, model: float, kind: str) -> pd.DataFrame:
    return pd.DataFrame([{"filter": spec, "range_length": 1024, "correlation": math.nan, "model_fp": model,
                          "fp_model_kind": kind},
                         {"filter": spec, "range_length": 1024, "correlation": 0.8, "model_fp": 0.9,
                          "fp_model_kind": kind}])


def _rows(tex: str) -> list[list[str]]:
    return [[c.strip() for c in line.rstrip("\\").split("&")] for line in tex.splitlines() if line.count("&") == 5][1:]


def test_repeats_sum_per_level_and_an_exact_model_is_judged_both_ways():
    spec = "rosetta:bpk=16,range=1024"
    # Level 1: 2 x (6000 + 4000) = 20000 seeks, fp 0.4 (model 0.42: 5.8 sigma low); level 2: fp 0.42.
    df = _engine(spec, [(1, 6000, 4000), (1, 6000, 4000), (2, 5800, 4200)])
    rows = _rows(level_fp_table_tex(df, _sim(spec, 0.42, "exact")))
    assert [r[:3] for r in rows] == [["rosetta", "1", "20000"], ["rosetta", "2", "10000"]]
    assert rows[0][3].startswith("0.4000 [") and rows[0][5] == "no"
    assert rows[1][3].startswith("0.4200 [") and rows[1][5] == "yes"
    assert rows[0][4] == "0.4200 (exact)"


def test_a_bound_is_kept_by_any_lower_rate():
    spec = "grafite:bpk=16"
    df = _engine(spec, [(1, 99000, 1000), (2, 90000, 10000)])  # 0.01 (far below), 0.1 (above 0.0625)
    rows = _rows(level_fp_table_tex(df, _sim(spec, 0.0625, "upper_bound")))
    assert [r[5] for r in rows] == ["yes", "no"]


def test_without_a_model_the_verdict_is_a_dash():
    spec = "bucketing:bpk=16"
    rows = _rows(level_fp_table_tex(_engine(spec, [(1, 100, 1)]), None))
    assert rows == [["bucketing", "1", "101", rows[0][3], "--", "--"]]


def test_the_engines_own_model_at_the_tables_key_count_comes_first():
    spec = "rosetta:bpk=16,range=1024"
    # Level 1 holds small tables (model 0.40 there): its 0.40 agrees, though the simulator's model at
    # 10^6 keys (0.42) is 5.8 sigma away; level 2's records have no range_model_fp: the simulator's.
    df = _engine(spec, [(1, 6000, 4000), (1, 6000, 4000), (2, 5800, 4200)])
    df["levels_range_model_fp"] = [0.40, 0.40, math.nan]
    rows = _rows(level_fp_table_tex(df, _sim(spec, 0.42, "exact")))
    assert [(r[1], r[4], r[5]) for r in rows] == [("1", "0.4000 (exact)", "yes"), ("2", "0.4200 (exact)", "yes")]
