"""The range-filter figures (analysis/range_plots.py) from the fixture's rangefp and rangespeed rows:
one panel per (range length, correlation), every filter in its family's colour, the bounds and the
lower bound drawn, the lemma's bound line, and the peer values of the report."""

import matplotlib.pyplot as plt

import analysis
from analysis import range_plots
from analysis.style import color


def test_fp_vs_bits_panels_series_and_lower_bound(results_dir):
    fig = range_plots.range_fp_vs_bits(analysis.load(results_dir))
    assert fig is not None
    titles = sorted(ax.get_title() for ax in fig.axes if ax.get_title())
    assert titles == sorted(["range $2^{5}$, uncorrelated", "range $2^{5}$, correlated d=0.8",
                             "range $2^{10}$, uncorrelated", "range $2^{10}$, correlated d=0.8"])
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"grafite", "bucketing", "prefix_bloom:prefix=6"} <= set(labels)
    assert "lower bound $L/2^{b}$" in labels
    # SuRF's specs join one line per suffix kind: no suffix and 8 real bits, and the hashed one apart.
    assert {"surf real suffix", "surf hashed suffix"} <= set(labels)
    surf_panel = next(ax for ax in fig.axes if ax.get_title() == "range $2^{5}$, uncorrelated")
    real = next(c for c in surf_panel.containers if c.get_label() == "surf real suffix")
    assert sorted(real.lines[0].get_ydata()) == [0.002, 0.05]
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    # Series keep their family's colour in every panel.
    lines = {c.get_label(): c.lines[0].get_color() for c in ax.containers}
    for lab in ("grafite", "bucketing"):
        assert tuple(round(c, 3) for c in matplotlib_rgb(lines[lab])) == tuple(round(c, 3) for c in color(lab))
    plt.close(fig)


def matplotlib_rgb(c):
    from matplotlib.colors import to_rgb

    return to_rgb(c)


def test_correlation_lemma_and_speed_figures(results_dir):
    df = analysis.load(results_dir)
    fig = range_plots.range_fp_vs_correlation(df)
    assert fig is not None and fig.axes[0].get_xlabel().startswith("correlation degree")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][0] == "none"
    plt.close(fig)
    fig = range_plots.range_lemma(df)
    assert fig is not None and fig.axes[0].get_xscale() == "log"
    assert any("bound" in t.get_text() for t in fig.axes[0].get_legend().get_texts())
    plt.close(fig)
    fig = range_plots.range_speed(df)
    assert fig is not None
    assert [ax.get_title() for ax in fig.axes] == ["hot, range $2^{10}$", "random, range $2^{10}$", "build"]
    plt.close(fig)


def test_no_range_rows_no_figure():
    import pandas as pd

    empty = pd.DataFrame({"command": ["fp"]})
    for kind in range_plots.KINDS.values():
        assert kind(empty) is None


def test_memento_growth_series_by_scheme_and_doublings(results_dir):
    df = analysis.load(results_dir)
    agg = range_plots.growth_rows(df)
    # Doublings come from keys / grow_from; each scheme keeps its own points.
    assert sorted(agg.loc[agg["scheme"] == "infinifilter", "doublings"]) == list(range(0, 15, 2))
    assert sorted(agg.loc[agg["scheme"] == "sacrifice", "doublings"]) == [0, 3, 6, 9]
    fig = range_plots.range_memento_growth(df)
    assert fig is not None
    fp_ax, bits_ax = fig.axes
    assert fp_ax.get_yscale() == "log" and fp_ax.get_xlabel() == "doublings k"
    series = {c.get_label(): c.lines[0] for c in fp_ax.containers}
    assert set(series) == {"InfiniFilter generations (default)", "every fingerprint shortened (expand=sacrifice)"}
    sacrifice = series["every fingerprint shortened (expand=sacrifice)"]
    assert list(sacrifice.get_xdata()) == [0, 3, 6, 9]
    assert list(sacrifice.get_ydata()) == [1e-3 * 2 ** k for k in (0, 3, 6, 9)]
    # The bound of each scheme is drawn dashed beside its points.
    assert sum(line.get_linestyle() == "--" for line in fp_ax.get_lines()) == 2
    assert bits_ax.get_ylabel() and len(bits_ax.get_lines()) == 2
    plt.close(fig)
