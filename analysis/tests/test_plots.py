"""Plots and tables from the small results fixture: files exist and are not
empty; axes carry the expected labels, scales and series."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import analysis
from analysis import plots, tables
from analysis.cli import main, plot_dir
from analysis.load import wilson
from analysis.style import color, marker, palette


def legend_texts(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def test_plot_dir_writes_png_pdf_and_tables(results_dir):
    written = plot_dir(results_dir)
    for kind in plots.KINDS:
        for ext in ("png", "pdf"):
            path = results_dir / "plots" / f"{kind}.{ext}"
            assert path in written and path.stat().st_size > 1000, path
    for kind in tables.KINDS:
        for ext in ("md", "tex"):
            path = results_dir / "tables" / f"{kind}.{ext}"
            assert path in written and path.stat().st_size > 50, path


def test_cli_plot(results_dir, capsys):
    (results_dir / "meta.json").write_text('{"plots": ["fp_vs_bits"], "tables": ["fp"]}')
    assert main(["plot", str(results_dir)]) == 0
    out = capsys.readouterr().out.split()
    assert [p.rsplit("/", 1)[1] for p in out] == ["fp_vs_bits.png", "fp_vs_bits.pdf", "fp.md", "fp.tex"]


def test_cli_plot_missing_dir(tmp_path, capsys):
    assert main(["plot", str(tmp_path / "nothing")]) == 2
    assert "no results table at" in capsys.readouterr().err


def test_load_adds_labels(results_dir):
    df = analysis.load(results_dir)
    assert {"label", "bytes_per_key"} <= set(df.columns)
    assert set(df[df["sweep"] == "fp_vs_bits"]["label"]) == {"fastlocal", "legacy"}


def test_fp_vs_bits_axes_series_pooling_and_residuals(results_dir):
    fig = plots.fp_vs_bits(analysis.load(results_dir))
    ax, res = fig.axes
    assert ax.get_ylabel() == "false-positive rate (%)" and res.get_xlabel() == "bits per key"
    assert ax.get_yscale() == "log" and res.get_ylabel() == "measured / model"
    # A style key, not one entry per series: each filter once, then the model's line style.
    assert legend_texts(ax) == ["fastlocal", "legacy", "model"]
    measured = ax.get_lines()[0]
    assert list(measured.get_xdata()) == [6, 10, 14]
    # Two seeds of identical counts pool to the same rate over twice the queries, in percent.
    assert measured.get_ydata()[1] == pytest.approx(1.0)
    # The fixture's model is 1.02x the measured rate: the residual panel shows 1/1.02.
    residual = [ln for ln in res.get_lines() if len(ln.get_xdata()) == 3][0]
    assert list(residual.get_ydata()) == pytest.approx([1 / 1.02] * 3)
    assert any("keys" in t.get_text() and "queries per point" in t.get_text() for t in ax.texts)
    plt.close(fig)


def test_fp_vs_keys_separates_hash_widths(results_dir):
    fig = plots.fp_vs_keys(analysis.load(results_dir))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "keys in the filter" and ax.get_xscale() == "log"
    assert legend_texts(ax) == ["fastlocal", "64-bit hash", "32-bit hash", "model"]
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles["fastlocal 32-bit hash"] == "--" and styles["fastlocal 64-bit hash"] == "-"
    assert styles["fastlocal 32-bit hash (model)"] == ":" and styles["fastlocal 64-bit hash (model)"] == ":"
    plt.close(fig)


def test_bytes_vs_fp_plots_overhead_over_the_bound(results_dir):
    df = analysis.load(results_dir)
    fig = plots.bytes_vs_fp(df[df["sweep"] == "fp_vs_bits"])
    ax = fig.axes[0]
    assert ax.get_ylabel() == "space over the bound log2(1/FP) (%)" and ax.get_xlabel() == "false-positive rate (%)"
    assert legend_texts(ax) == ["fastlocal", "legacy"]
    # fastlocal at 10 bits/key: 10.01 bits/key at 1% FP -> 10.01 / log2(100) - 1 = 50.7% over the bound.
    line = ax.containers[0].lines[0]
    points = [y for x, y in zip(line.get_xdata(), line.get_ydata()) if x == pytest.approx(1.0)]
    assert points == [pytest.approx(100 * (10.01 / __import__("math").log2(100) - 1))]
    plt.close(fig)


def test_speed_bars_modes_and_mixes(results_dir):
    fig = plots.speed_bars(analysis.load(results_dir))
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["single-filter queries", "random-filter queries", "random-filter queries, pipelined (groups of 16)"]
    ax = fig.axes[0]
    assert ax.get_xlabel() == "net ns per query" and ax.get_ylabel() == "filter"
    # One legend for the figure, none per panel; filter names are horizontal tick labels.
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["inside", "outside", "mixed"]
    assert all(a.get_legend() is None for a in fig.axes)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["fastlocal", "legacy"]
    # Bars are medians over the three repeats (fixture: 0.9x, 1x, 1.2x of the base), whiskers min..max.
    widths = sorted(round(p.get_width(), 6) for p in ax.patches if p.get_width() > 0)
    assert widths == [16.0, 18.0, 20.0, 40.0, 45.0, 50.0]
    whiskers = [(round(np.nanmin(x), 6), round(np.nanmax(x), 6)) for x in (ln.get_xdata() for ln in ax.get_lines())]
    assert (18.0, 24.0) in whiskers and (45.0, 60.0) in whiskers
    # The slow-phase repeat of legacy's random mixed cell moves its whisker, not its bar (median 225).
    assert 225.0 in [round(p.get_width(), 6) for p in fig.axes[1].patches]
    # Each panel keeps its own scale: pipelined bars are not slivers on the one-at-a-time scale.
    assert fig.axes[2].get_xlim()[1] < fig.axes[1].get_xlim()[1]
    # A note says what the bars are and what pipelined means for variants without a Prefetch hook.
    note = " ".join(t.get_text() for t in fig.texts)
    assert "Prefetch hook" in note and "median of 3 repeats" in note
    plt.close(fig)


def test_speed_bars_several_pipeline_depths_get_one_bar_each(results_dir):
    df = analysis.load(results_dir)
    deeper = df[df["mode"] == "random_pipelined"].assign(pipeline_depth=32,
                                                        net_ns_per_op=lambda d: d["net_ns_per_op"] / 2)
    fig = plots.speed_bars(pd.concat([df, deeper], ignore_index=True))
    ax = fig.axes[2]
    assert ax.get_title() == "random-filter queries, pipelined (mixed)"
    assert legend_texts(ax) == ["groups of 16", "groups of 32"]
    plt.close(fig)


def test_speed_vs_fp_points(results_dir):
    fig = plots.speed_vs_fp(analysis.load(results_dir))
    ax = fig.axes[0]
    assert ax.get_ylabel() == "net ns per query (random filter)" and ax.get_xlabel() == "false-positive rate (%)"
    assert sorted(t.get_text() for t in ax.texts) == ["fastlocal", "legacy"]
    assert legend_texts(ax) == ["one query at a time", "pipelined (groups of 16)"]
    # Medians of the mixed cells: random 90 (fastlocal) and 225 (legacy, despite its 562 ns repeat),
    # pipelined 36 and 90; at the FP rates pooled over the repeats.
    points = sorted((round(x, 6), round(y, 6)) for line in ax.get_lines() if line.get_marker() == "o"
                    for x, y in zip(line.get_xdata(), line.get_ydata()))
    assert points == [(0.95, 36.0), (0.95, 90.0), (1.2, 90.0), (1.2, 225.0)]
    plt.close(fig)


def test_probes_best_against_table(results_dir):
    fig = plots.probes(analysis.load(results_dir))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "bits per key" and ax.get_ylabel() == "probes"
    assert legend_texts(ax) == ["fastlocal best (simulated)", "fastlocal table"]
    assert list(ax.get_lines()[0].get_ydata()) == [4, 6, 9]
    plt.close(fig)


def test_plots_without_their_data_return_none(results_dir):
    df = analysis.load(results_dir)
    only_fp = df[df["command"] == "fp"]
    assert plots.speed_bars(only_fp) is None
    assert plots.probes(only_fp) is None


def test_tables_markdown_and_latex(results_dir):
    t = tables.fp_table(analysis.load(results_dir))
    md, tex = tables.to_markdown(t), tables.to_latex(t)
    assert md.splitlines()[0].startswith("| sweep | filter | bpk |")
    # Two seeds of 1000/100000 pool to 2000/200000; the Wilson 95% interval is
    # close to the Wald one, 1% +- 1.96*sqrt(0.01*0.99/200000) = 0.956..1.044 %.
    assert "| fp_vs_bits | fastlocal | 10.0 | 10000 | 10.01 | 1 | 0.9573..1.045 | 1.02 | 200000 |" in md
    assert "| fp_vs_keys | fastlocal hash=32 |  | 100000000 | 10.01 | 1.36 |" in md
    assert r"\begin{tabular}" in tex and r"FP \%" in tex and r"fp\_vs\_bits" in tex
    s = tables.speed_table(analysis.load(results_dir))
    assert list(s["filter"]) == ["fastlocal"] * 3 + ["legacy"] * 3
    assert s.loc[0, "inside: net ns/op"] == "20.0 (18.0–24.0, n=3)"


def test_bytes_vs_fp_keeps_every_variant_in_its_own_colour(results_dir):
    """The quickstart's shape: a few variants swept over bits/key beside many at 10 bits/key
    only. Each keeps its fixed colour and marker; the 32-bit member of a family is darker."""
    df = analysis.load(results_dir)
    fp = df[df["sweep"] == "fp_vs_bits"]
    singles = pd.concat([fp[(fp["base_filter"] == "fastlocal") & (fp["bpk"] == 10)].assign(
        base_filter=name, label=name) for name in ("sbbf", "ribbon", "xor", "fastlocal hash=32")], ignore_index=True)
    fig = plots.bytes_vs_fp(pd.concat([fp, singles], ignore_index=True))
    ax = fig.axes[0]
    assert legend_texts(ax) == ["fastlocal", "fastlocal hash=32", "legacy", "ribbon", "sbbf", "xor"]
    lines = {c.get_label(): c.lines[0] for c in ax.containers}
    assert lines["sbbf"].get_color() == color("sbbf") != lines["ribbon"].get_color()
    assert color("fastlocal hash=32") != color("fastlocal")
    plt.close(fig)


def test_colours_are_fixed_by_filter_not_by_position():
    assert palette(["legacy", "fastlocal"])["fastlocal"] == palette(["fastlocal"])["fastlocal"] == color("fastlocal")
    assert color("fastlocal:bpk=10") == color("fastlocal")
    assert color("worm:variant=cache_dbl,bpk=10") == color("cache_dbl")
    assert marker("ribbon") != marker("fastlocal")
    # Names that are not filters: stable per name, distinct within one figure.
    p = palette(["readrandom", "readmissing", "fillrandom"])
    assert len(set(p.values())) == 3
    assert palette(["fillrandom", "readrandom"])["fillrandom"] == palette(["fillrandom"])["fillrandom"]


def test_floor_table_pivots_measures_and_notes_the_translation(results_dir):
    t = tables.floor_table(analysis.load(results_dir))
    assert list(t.columns) == ["working set", "latency 2 MiB", "latency 4 KiB", "line read x1 2 MiB",
                               "line read x1 4 KiB"]
    # Only prefetched line reads: the unprefetched ones (3x) are not the floor.
    assert t.iloc[0].tolist() == ["64 MiB", 80.0, 100.0, 10.0, 12.0]
    assert t.attrs["notes"] == ["4 KiB pages translate at 4 KiB", "2048 KiB pages translate at 4 KiB"]


def test_wilson_interval_holds_the_observed_rate():
    # 0 of 2x10^6 (a quick run's fastlocal at 50 bits/key): the lower bound is 0, not the
    # 2e-22 rounding left, which the FP figure drew as a negative error bar and failed on.

    low, high = wilson([0, 19426, 2_000_000], [2_000_000] * 3)
    assert low[0] == 0 and 0 < high[0] < 2e-6
    p = 19426 / 2_000_000
    assert low[1] < p < high[1]  # by hand: centre 0.0097140, half-width 1.96 sqrt(p (1 - p) / n) = 0.000136
    assert low[1] == pytest.approx(0.009578, abs=1e-6) and high[1] == pytest.approx(0.009850, abs=1e-6)
    assert high[2] == 1
