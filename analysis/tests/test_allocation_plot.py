"""The allocation figure from a synthetic table shaped like engine_allocation's results:
lsmbench rows (readmissing and readrandom) and `filterlab-sim lsm` rows."""

import pandas as pd

from analysis import allocation_plot, engine_plots


def frame():
    rows = []
    for policy, reads in (("uniform", 0.30), ("monkey", 0.12)):
        for budget in (3, 5):
            for bench in ("readmissing", "readrandom"):
                rows.append({"worker": "lsmbench", "run_key": f"{policy}{budget}", "benchmark": bench,
                             "filter_policy": policy, "filter_budget_bpk": budget,
                             "filter_bits_per_key": budget * 1.01, "fp_reads_per_op": reads * 5 / budget,
                             "fp_reads_model_per_op": reads * 5 / budget * 1.02,
                             "fp_reads_model_sigma_per_op": 0.001, "micros_per_op": 2.0,
                             "level_multiplier": 10, "num_levels": 5})
        for bpk in (2, 4, 6):
            rows.append({"worker": "sim lsm", "policy": policy, "size_ratio": 10, "levels": 4,
                         "bits_per_key": bpk, "expected_reads": reads * 5 / bpk})
    return pd.DataFrame(rows)


def test_points_are_the_readmissing_runs_with_a_policy():
    pts = allocation_plot.allocation_points(frame())
    assert len(pts) == 4
    assert set(pts["filter_policy"]) == {"uniform", "monkey"}
    assert allocation_plot.allocation_points(pd.DataFrame({"benchmark": ["readrandom"]})).empty


def test_figure_has_model_lines_and_measured_points_per_policy():
    fig = engine_plots.KINDS["engine_allocation"](frame())
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(labels) == ["monkey (measured)", "monkey (model)", "uniform (measured)", "uniform (model)"]
    assert ax.get_yscale() == "log"
    assert "T = 10, 5 levels" in ax.get_title()
    # The model line of uniform is the sim's three points.
    line = [l for l in ax.get_lines() if l.get_label() == "uniform (model)"][0]
    assert list(line.get_xdata()) == [2, 4, 6]


def test_no_policy_rows_no_figure():
    assert allocation_plot.engine_allocation(pd.DataFrame({"benchmark": ["readmissing"]})) is None
