"""Plots and tables from the small results fixture: files exist and are not
empty; axes carry the expected labels, scales and series."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import analysis
from analysis import plots, tables
from analysis.cli import main, plot_dir


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


def test_fp_vs_bits_axes_series_and_pooling(results_dir):
    fig = plots.fp_vs_bits(analysis.load(results_dir))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "bits per key" and ax.get_ylabel() == "false-positive rate"
    assert ax.get_yscale() == "log"
    assert legend_texts(ax) == ["fastlocal", "fastlocal (model)", "legacy", "legacy (model)"]
    measured = ax.get_lines()[0]
    assert list(measured.get_xdata()) == [6, 10, 14]
    # Two seeds of identical counts pool to the same rate over twice the queries.
    assert measured.get_ydata()[1] == pytest.approx(0.01)
    assert len(ax.collections) == 2  # one confidence band per variant
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


def test_bytes_vs_fp_has_the_bound(results_dir):
    fig = plots.bytes_vs_fp(analysis.load(results_dir))
    ax = fig.axes[0]
    assert ax.get_ylabel() == "bytes per key" and ax.get_xlabel() == "false-positive rate"
    assert "bound log2(1/FP) bits" in legend_texts(ax)
    bound = [line for line in ax.get_lines() if line.get_label() == "bound log2(1/FP) bits"][0]
    x, y = bound.get_xdata(), bound.get_ydata()
    assert y[0] == pytest.approx(-__import__("math").log2(x[0]) / 8)
    plt.close(fig)


def test_speed_bars_modes_and_mixes(results_dir):
    fig = plots.speed_bars(analysis.load(results_dir))
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["single-filter queries", "random-filter queries", "random-filter queries, pipelined (groups of 16)"]
    ax = fig.axes[0]
    assert ax.get_ylabel() == "net ns per query" and ax.get_xlabel() == "filter"
    assert legend_texts(ax) == ["inside", "outside", "mixed"]
    assert len(ax.patches) >= 6  # 2 filters x 3 mixes
    # Bars are medians over the three repeats (fixture: 0.9x, 1x, 1.2x of the base), whiskers min..max.
    heights = sorted(round(p.get_height(), 6) for p in ax.patches if p.get_height() > 0)
    assert heights == [16.0, 18.0, 20.0, 40.0, 45.0, 50.0]
    whiskers = [(round(np.nanmin(y), 6), round(np.nanmax(y), 6)) for y in (ln.get_ydata() for ln in ax.get_lines())]
    assert (18.0, 24.0) in whiskers and (45.0, 60.0) in whiskers
    # The slow-phase repeat of legacy's random mixed cell moves its whisker, not its bar (median 225).
    random_ax = fig.axes[1]
    assert 225.0 in [round(p.get_height(), 6) for p in random_ax.patches]
    # The two random-filter panels share their y range, so pipelined and one-at-a-time compare by eye.
    assert fig.axes[1].get_ylim() == fig.axes[2].get_ylim()
    # A caption says what pipelined means for variants without a Prefetch hook.
    assert any("Prefetch hook" in t.get_text() for t in fig.texts)
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
    assert ax.get_ylabel() == "net ns per query (random filter)" and ax.get_xlabel() == "false-positive rate"
    assert sorted(t.get_text() for t in ax.texts) == ["fastlocal", "legacy"]
    assert legend_texts(ax) == ["one query at a time", "pipelined (groups of 16)"]
    # Medians of the mixed cells: random 90 (fastlocal) and 225 (legacy, despite its 562 ns repeat),
    # pipelined 36 and 90; at the FP rates pooled over the repeats.
    points = sorted((round(x, 6), round(y, 6)) for line in ax.get_lines() if line.get_marker() == "o"
                    for x, y in zip(line.get_xdata(), line.get_ydata()))
    assert points == [(0.0095, 36.0), (0.0095, 90.0), (0.012, 90.0), (0.012, 225.0)]
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


def test_bytes_vs_fp_groups_many_single_point_variants(results_dir):
    """The quickstart's shape: a few variants swept over bits/key beside many at 10 bits/key only;
    the single points become one grey series so the legend stays readable."""
    df = analysis.load(results_dir)
    fp = df[df["sweep"] == "fp_vs_bits"]
    singles = pd.concat([fp[(fp["base_filter"] == "fastlocal") & (fp["bpk"] == 10)].assign(
        base_filter=f"variant{i}", label=f"variant{i}") for i in range(6)], ignore_index=True)
    fig = plots.bytes_vs_fp(pd.concat([fp, singles], ignore_index=True))
    texts = legend_texts(fig.axes[0])
    assert texts == ["fastlocal", "legacy", "6 other variants at 10 bits/key (see the FP table)",
                     "bound log2(1/FP) bits"]
    plt.close(fig)
    # Few variants: each keeps its own entry.
    fig = plots.bytes_vs_fp(pd.concat([fp, singles[singles["label"] == "variant0"]], ignore_index=True))
    assert legend_texts(fig.axes[0]) == ["fastlocal", "legacy", "variant0", "bound log2(1/FP) bits"]
    plt.close(fig)
