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


def test_one_run_measuring_every_pair_gives_one_point_per_record():
    # engine_allocation's runs each fill one tree and measure every (budget, policy) pair on
    # it: one run_key, a record per pass (record_index), and a row per level of each record.
    rows = []
    for i, r in enumerate(frame().query("worker == 'lsmbench'").to_dict("records")):
        for level in range(3):
            rows.append({**r, "run_key": "one", "record_index": i, "levels_level": level})
    pts = allocation_plot.allocation_points(pd.DataFrame(rows))
    assert len(pts) == 4
    assert sorted(zip(pts["filter_policy"], pts["filter_budget_bpk"])) == [
        ("monkey", 3), ("monkey", 5), ("uniform", 3), ("uniform", 5)]


def test_page_layout_puts_the_panels_in_rows():
    df = frame()
    df2 = df.copy()
    df2["level_multiplier"] = df2["level_multiplier"].where(df2["worker"] != "lsmbench", 4)
    df2["run_key"] = "T4-" + df2["run_key"].astype(str)
    fig = allocation_plot.engine_allocation(pd.concat([df, df2]), ncols=1, width=3.4)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert len(titles) == 2 and "T = 10" in titles[0] and "T = 4" in titles[1], titles
    assert abs(fig.get_size_inches()[0] - 3.4) < 1e-9
