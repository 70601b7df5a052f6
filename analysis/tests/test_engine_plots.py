"""The engine's figures and tables from the lsmbench rows of the fixture
(conftest.engine_frame, flattened by the runner's store): axes, series,
annotated values and table cells are the ratios the fixture was built with."""

import matplotlib.pyplot as plt
import pandas as pd
import pytest

import analysis
from analysis import engine_plots, engine_tables, tables
from analysis.engine_data import multiget_summary, space_summary
from experiments.store import tidy

from .conftest import engine_frame, fixture_frame, multiget_collapsed_frame


@pytest.fixture(scope="module")
def df(tmp_path_factory):
    path = tmp_path_factory.mktemp("engine") / "results.parquet"
    tidy(pd.concat([fixture_frame(), engine_frame()], ignore_index=True)).to_parquet(path, index=False)
    return analysis.load(path)


def texts(ax):
    return [t.get_text() for t in ax.texts]


def ticks(ax):
    return [t.get_text() for t in ax.get_xticklabels()]


def fig_legend(fig):
    return [t.get_text() for t in fig.legends[0].get_texts()]


def test_multiget_heat_maps_against_get_loop(df):
    fig = engine_plots.multiget(df)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["filterlab: Get loop µs per key", "filterlab: MultiGet µs per key",
                      "filterlab: speedup vs Get loop"]
    for ax in fig.axes:
        assert ax.get_xlabel() == "batch size" and ax.get_ylabel() == "stride (0 = random keys)"
        assert ticks(ax) == ["1", "4"]
        assert [t.get_text() for t in ax.get_yticklabels()] == ["0", "16"]
    # Rows are strides 0, 16; columns batch 1, 4: only stride 16 at batch 4 is faster (3.0 / 2.4).
    assert texts(fig.axes[1]) == ["3.000", "3.000", "3.000", "2.400"]
    assert texts(fig.axes[2]) == ["1.00x", "1.00x", "1.00x", "1.25x"]
    plt.close(fig)


def test_multiget_without_get_loop_compares_with_readrandom(df):
    only_batched = df[~((df["benchmark"] == "multireadrandom") & (df["multiread_batched"].astype(str) == "False"))]
    fig = engine_plots.multiget(only_batched)
    assert [ax.get_title() for ax in fig.axes] == ["filterlab: MultiGet µs per key",
                                                   "filterlab: speedup vs readrandom (3.3 µs/op)"]
    assert texts(fig.axes[1]) == ["1.10x", "1.10x", "1.10x", "1.38x"]  # 3.3/3.0 and 3.3/2.4
    plt.close(fig)


def test_multiget_from_collapsed_runs_reads_the_records(tmp_path):
    """One run per batch size measuring every (stride, batched) pair (the runner's
    collapsed lists) gives the same summary and heat maps as one run per pair."""
    path = tmp_path / "results.parquet"
    tidy(multiget_collapsed_frame()).to_parquet(path, index=False)
    collapsed = analysis.load(path)
    per_pair = engine_frame()
    per_pair = per_pair[per_pair["sweep"] == "multiget"]
    got, want = multiget_summary(collapsed), multiget_summary(per_pair)
    pd.testing.assert_frame_equal(got, want)
    assert got["speedup"].round(2).tolist() == [1.0, 1.0, 1.0, 1.25] and (got["repeats"] == 2).all()
    fig = engine_plots.multiget(collapsed)
    assert texts(fig.axes[2]) == ["1.00x", "1.00x", "1.00x", "1.25x"]
    plt.close(fig)


def test_hash_index_throughput_and_space(df):
    fig = engine_plots.hash_index(df)
    assert [ax.get_title() for ax in fig.axes] == ["readrandom throughput", "readmissing throughput", "space"]
    assert fig_legend(fig) == ["hash index off", "hash index on"]
    readrandom, readmissing, space = fig.axes
    assert readrandom.get_ylabel() == "operations per second" and space.get_ylabel() == "SST bytes per key"
    assert ticks(readrandom) == ["filterlab", "rocksdb"] and readrandom.get_xlabel() == "engine"
    assert texts(readrandom) == ["+10.0%", "+10.0%"]
    assert texts(readmissing) == ["+5.0%", "+5.0%"]
    assert texts(space) == ["+4.6%", "+4.6%"]
    # Medians of the three seeds (jittered +-1%): off 100000, on 110000.
    heights = sorted(p.get_height() for p in readrandom.patches)
    assert heights == pytest.approx([100000, 100000, 110000, 110000])
    plt.close(fig)


def test_memtable_filter_readmissing_and_fillrandom(df):
    fig = engine_plots.memtable_filter(df)
    assert [ax.get_title() for ax in fig.axes] == ["readmissing throughput", "fillrandom throughput"]
    assert fig_legend(fig) == ["memtable filter off", "memtable filter on"]
    assert texts(fig.axes[0]) == ["+33.3%"] and texts(fig.axes[1]) == ["-1.5%"]
    plt.close(fig)


def test_range_estimates_new_beside_old_per_width(df):
    fig = engine_plots.range_estimates(df)
    assert [ax.get_title() for ax in fig.axes] == ["true count 10: new", "true count 10: old",
                                                   "true count 1000: new", "true count 1000: old"]
    new10, old10, new1000, old1000 = fig.axes
    for ax, width in ((new10, 10), (old10, 10), (new1000, 1000), (old1000, 1000)):
        assert ax.get_xlabel() == "range estimate (entries)" and ax.get_xscale() == "log"
        true = [line for line in ax.get_lines() if line.get_label() == "true count"]
        assert len(true) == 1 and list(true[0].get_xdata()) == [width, width]
    assert new1000.get_ylabel() == "share of estimates"
    assert [p.get_height() for p in new1000.patches] == pytest.approx([0.2, 0.6, 0.2])
    # The zero bucket (13 of 100) cannot sit on a log axis: it is in the text instead.
    assert [p.get_height() for p in old1000.patches] == pytest.approx([0.3, 0.4, 0.17])
    assert "zero estimates 13.0%" in texts(old1000)[0]
    assert "sd 20% of true" in texts(new1000)[0]
    # No histogram reported: the summary statistics are drawn instead.
    assert [t.get_text() for t in old10.get_legend().get_texts()] == ["min..max", "mean ± sd", "p50", "p99",
                                                                      "true count"]
    plt.close(fig)


def test_engine_filters_lookups_and_fp_per_level(df):
    fig = engine_plots.engine_filters(df)
    speed, fp = fig.axes
    assert ticks(speed) == ["fastlocal", "legacy", "no filter"] == ticks(fp)
    assert speed.get_ylabel() == "µs per lookup" and "at 10 bits/key" in speed.get_title()
    assert [t.get_text() for t in speed.get_legend().get_texts()] == ["readrandom", "readmissing"]
    assert fp.get_yscale() == "log" and fp.get_ylabel() == "false-positive rate (%)"
    assert [t.get_text() for t in fp.get_legend().get_texts()] == ["L0", "L1"]
    # L0 bars in percent: fastlocal 1%, legacy 1.2%; "no filter" checked no filter, so no bar (NaN).
    l0 = [p.get_height() for p in fp.patches[:3]]
    assert l0[:2] == pytest.approx([1.0, 1.2]) and l0[2] != l0[2]
    plt.close(fig)


def test_engine_plots_without_their_rows_return_none(df):
    sim_only = df[df["worker"] != "lsmbench"]
    for kind in engine_plots.KINDS.values():
        assert kind(sim_only) is None


def test_engine_tables(df):
    md = {kind: tables.to_markdown(tables.KINDS[kind](df))
          for kind in ("multiget", "hash_index", "memtable_filter", "range_estimates", "engine_filters")}
    assert "| filterlab | 16 | speedup | 1.00x | 1.25x |" in md["multiget"]
    assert "| filterlab | readrandom ops/s | 100000 | 110000 | +10.0% | 3/3 |" in md["hash_index"]
    assert "| rocksdb | SST bytes/key | 120.00 | 125.52 | +4.6% | 3/3 |" in md["hash_index"]
    assert "| filterlab | readmissing ops/s | 90000 | 120000 | +33.3% | 3/3 |" in md["memtable_filter"]
    assert "| filterlab | fillrandom ops/s | 200000 | 197000 | -1.5% | 3/3 |" in md["memtable_filter"]
    # Zeros only where the histogram shows them; the estimate costs 1.0 / 0.5 = 2 point lookups.
    old = "| old | 1000 | 100 | 2300 | 2600.0 | 0 | 900 | 12600 | 835000 | 13.00 | 1.000 | 2.00 |"
    assert old in md["range_estimates"]
    assert "| new | 10 | 100 | 10 | 0.0 | 10 | 10 | 10 | 10 | 0.00 | 1.000 | 2.00 |" in md["range_estimates"]
    assert md["engine_filters"].splitlines()[0] == \
        "| filter | readrandom µs/op | readmissing µs/op | L0 FP % | L1 FP % |"
    assert "| legacy | 2.500 | 1.250 | 1.200 | 1.200 |" in md["engine_filters"]
    assert "| no filter | 4.000 | 2.000 |  |  |" in md["engine_filters"]
    tex = tables.to_latex(tables.KINDS["multiget"](df))
    assert r"\begin{tabular}" in tex and "speedup" in tex


def test_engine_io_panels_from_cold_and_cached_runs(df):
    fig = engine_plots.engine_io(df)
    rr, rm, reads, space = fig.axes
    assert ticks(rr) == ["cached\n1 thread", "cached\n2 threads", "cold\n1 thread", "cold\n2 threads"]
    # One legend for the four panels, and every bar coloured as its legend entry, the table-bytes
    # panel's too (which groups by compression rather than by engine).
    assert all(ax.get_legend() is None for ax in fig.axes)
    (legend,) = fig.legends
    entries = {t.get_text(): h.get_facecolor() for t, h in zip(legend.get_texts(), legend.legend_handles)}
    assert list(entries) == ["filterlab none", "filterlab lz4", "rocksdb none", "rocksdb lz4"]
    assert len({tuple(c) for c in entries.values()}) == 4
    assert rr.patches[0].get_facecolor() == pytest.approx(entries["filterlab none"])
    # space's bars: filterlab at none, lz4, then rocksdb at none, lz4.
    assert space.patches[1].get_facecolor() == pytest.approx(entries["filterlab lz4"])
    assert space.patches[2].get_facecolor() == pytest.approx(entries["rocksdb none"])
    # filterlab none: 1e6/2 and 1e6/1 ops/s cached, 1e6/80 and 1e6/40 cold (conftest.engine_io_rows).
    assert [p.get_height() for p in rr.patches[:4]] == pytest.approx([5e5, 1e6, 12500, 25000])
    assert [p.get_height() for p in reads.patches[:4]] == pytest.approx([0, 0, 0.6, 0.6])
    assert ticks(space) == ["none", "lz4"]
    assert [p.get_height() for p in space.patches[:2]] == pytest.approx([240, 150])
    plt.close(fig)


def test_space_per_stored_entry_not_per_num():
    # fillrandom draws --num keys with repeats: the compacted tables hold fewer entries than
    # --num, and bytes per key must count what they hold (two levels of entries per record).


    rows = []
    for run, on, sst in (("a", False, 2_000_000), ("b", True, 2_063_000)):
        for level, entries in ((1, 20_000), (2, 43_000)):
            rows.append({"run_key": run, "record_index": 0, "benchmark": "compact", "engine": "filterlab",
                         "hash_index": on, "num": 100_000, "sst_bytes": sst, "levels_entries": entries,
                         "seed": 0})
    t = space_summary(pd.DataFrame(rows), "hash_index")
    assert t is not None and len(t) == 1
    r = t.iloc[0]
    assert r["median_off"] == pytest.approx(2_000_000 / 63_000)
    assert r["median_on"] - r["median_off"] == pytest.approx(63_000 / 63_000)


def _seekempty(run, sweep, rf, us, filtered, match, data, ops=1000, corr=-1.0, prefix=None, length=1024.0,
               engine="filterlab"):
    return {"run_key": run, "benchmark": "seekempty", "sweep": sweep, "engine": engine, "range_filter": rf,
            "prefix_extractor": prefix, "range_size": length, "range_correlation": corr, "micros_per_op": us,
            "ops": ops, "seek_stats_total_filtered": filtered, "seek_stats_total_filter_match": match,
            "seek_stats_total_data": data}


def test_range_seeks_table_pools_the_seek_fp_and_takes_medians():
    rows = [_seekempty("a", "t", "grafite:bpk=16", 5.0, 900, 100, 100),
            _seekempty("b", "t", "grafite:bpk=16", 7.0, 700, 300, 300),
            _seekempty("c", "t", "grafite:bpk=16", 6.0, 1000, 0, 200),
            _seekempty("d", "t", "none", 20.0, 0, 0, 1500),
            # A second row of run "d" (one per tree level, as the store flattens records) counts once.
            _seekempty("d", "t", "none", 20.0, 0, 0, 1500)]
    md = tables.to_markdown(engine_tables.range_seeks_table(pd.DataFrame(rows)))
    # Seek FP pooled: (100 + 300 + 0) / 3000; data blocks per seek: median of 0.1, 0.3, 0.2.
    assert "| t | filterlab | grafite:bpk=16 |  | 1024 | none | 3 | 6.00 (5.00–7.00) | 0.200 | 0.1333 |" in md
    # No filter asked: no seek FP rate.
    assert "| t | filterlab | none |  | 1024 | none | 1 | 20.00 (20.00–20.00) | 1.500 |  |" in md
    assert engine_tables.range_seeks_table(pd.DataFrame([{**rows[0], "benchmark": "readrandom"}])) is None


def test_range_seeks_figure_draws_us_and_data_blocks_against_the_range_length():
    rows = []
    for i, length in enumerate((1.0, 1024.0, 65536.0)):
        rows += [_seekempty(f"g{i}", "range_filters", "grafite:bpk=16", 1.0 + i, 900, 100, 100 * (i + 1), length=length),
                 _seekempty(f"n{i}", "range_filters", "none", 10.0, 0, 0, 1500, length=length),
                 _seekempty(f"c{i}", "range_filters", "grafite:bpk=16", 2.0, 500, 500, 500, length=length, corr=0.8),
                 _seekempty(f"r{i}", "prefix_bloom_rocksdb", None, 4.0, 10, 0, 0, length=length, prefix="fixed:6",
                            engine="rocksdb"),
                 # The target sweeps hold other key counts: not drawn.
                 _seekempty(f"t{i}", "target_empty_ranges", "rosetta:bpk=16,range=1024", 99.0, 1, 1, 1, length=length)]
    fig = engine_plots.range_seeks(pd.DataFrame(rows))
    us, data = fig.axes[0], fig.axes[2]
    assert [fig.axes[0].get_title(), fig.axes[1].get_title()] == ["uncorrelated", "correlated, d = 0.8"]
    assert fig_legend(fig) == ["grafite:bpk=16", "none", "RocksDB prefix Bloom (fixed:6)"]
    grafite_us = us.lines[0].get_data()
    assert list(grafite_us[0]) == [1.0, 1024.0, 65536.0] and list(grafite_us[1]) == [1.0, 2.0, 3.0]
    assert list(data.lines[0].get_ydata()) == pytest.approx([0.1, 0.2, 0.3])  # data blocks / ops
    assert us.get_xscale() == "log" and data.get_xlabel() == "range length l"
    assert all(99.0 not in line.get_ydata() for ax in fig.axes for line in ax.lines)
    plt.close(fig)
    # One range length only (the quick config): no figure.
    assert engine_plots.range_seeks(pd.DataFrame([r for r in rows if r["range_size"] == 1024.0])) is None
