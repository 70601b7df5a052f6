"""Plots and tables from the small results fixture: files exist and are not
empty; axes carry the expected labels, scales and series."""

import matplotlib.pyplot as plt
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
    assert legend_texts(ax) == ["fastlocal 32-bit hash", "fastlocal 32-bit hash (model)",
                                "fastlocal 64-bit hash", "fastlocal 64-bit hash (model)"]
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
    assert titles == ["single-filter queries", "random-filter queries"]
    ax = fig.axes[0]
    assert ax.get_ylabel() == "net ns per query"
    assert legend_texts(ax) == ["inside", "outside", "mixed"]
    assert len(ax.patches) >= 6  # 2 filters x 3 mixes
    plt.close(fig)


def test_speed_vs_fp_points(results_dir):
    fig = plots.speed_vs_fp(analysis.load(results_dir))
    ax = fig.axes[0]
    assert ax.get_ylabel() == "net ns per query (random filter)"
    assert sorted(t.get_text() for t in ax.texts) == ["fastlocal", "legacy"]
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
    assert list(s["filter"]) == ["fastlocal", "legacy"]
    assert s.loc[0, "single inside ns/op"] == "20.0"
