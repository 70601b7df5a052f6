"""The claim kinds of the kernel and block-seek claims on small frames whose answers are
exact: speed_ratio between two query mixes of one filter (over_mix), gbench_change over
gbench records as the runner stores them (store.flatten of the worker's JSON), the
"lower" tolerance, and the block_seek table and summary."""

import pandas as pd
import pytest

from analysis import engine_tables
from analysis.engine_data import block_seek_summary
from analysis.load import with_labels
from analysis.paper.claims import Claim, measure_all
from analysis.paper.section import Inputs
from analysis.paper.sections.fastlocal import kernel_values
from analysis.paper.sections.range import block_seek_table_tex, block_seek_values
from experiments.store import tidy

from .conftest import _speed_row, gbench_frame


def _kernel_frame() -> pd.DataFrame:
    # Scalar: outside 30 ns against inside 20 (1.5x); AVX2 12 against 12; three repeats
    # at 1.0, 0.9 and 1.1 of each time.
    rows = []
    for base, inside, outside in (("fastlocal:kernel=scalar", 20.0, 30.0), ("fastlocal:kernel=avx2", 12.0, 12.0)):
        for seed, f in ((0, 1.0), (1, 0.9), (2, 1.1)):
            rows.append(_speed_row(base, "single", "inside", inside * f, seed=seed))
            rows.append(_speed_row(base, "single", "outside", outside * f, fp=0.01, seed=seed))
    df = pd.DataFrame(rows)
    df["base_label"] = df["base_filter"]
    return with_labels(df)


def _gbench_frame() -> pd.DataFrame:
    return tidy(gbench_frame())


def _claim(ours, published, tolerance):
    return Claim("x", "s", "c", "src", published, "ratio", ours, tolerance)


def test_speed_ratio_between_two_mixes_of_one_filter(tmp_path):
    (tmp_path / "speed_scalar").mkdir()
    _kernel_frame().to_parquet(tmp_path / "speed_scalar" / "results.parquet")
    mixes = {"experiment": "speed_scalar", "kind": "speed_ratio", "mode": "single", "mix": "outside",
             "over_mix": "inside"}
    scalar, avx2, too_high = measure_all([
        _claim({**mixes, "filter": "fastlocal:kernel=scalar", "over": "fastlocal:kernel=scalar"}, 1.1, "lower"),
        _claim({**mixes, "filter": "fastlocal:kernel=avx2", "over": "fastlocal:kernel=avx2"}, 1.0, 0.1),
        _claim({**mixes, "filter": "fastlocal:kernel=scalar", "over": "fastlocal:kernel=scalar"}, 2.0, "lower"),
    ], tmp_path)
    assert scalar.measured.value == pytest.approx(1.5)
    # The interval from the repeats' extremes: 27/22 .. 33/18.
    assert scalar.measured.low == pytest.approx(27 / 22) and scalar.measured.high == pytest.approx(33 / 18)
    assert scalar.verdict == "reproduced"
    assert avx2.measured.value == pytest.approx(1.0) and avx2.verdict == "reproduced"
    # "lower": reproduced only if ours (counting its interval) reaches the bound; 33/18 < 2.
    assert too_high.verdict == "diverges, unexplained"


def test_gbench_change_reads_the_flattened_records(tmp_path):
    (tmp_path / "engine_block_seek").mkdir()
    _gbench_frame().to_parquet(tmp_path / "engine_block_seek" / "results.parquet")
    base = {"kind": "gbench_change", "experiment": "engine_block_seek", "family": "BM_DataBlockSeekForGet"}
    seek, absent = measure_all([
        _claim({**base, "args": {"records": 32, "hash": 1, "util_pct": 75},
                "over": {"records": 32, "hash": 0, "util_pct": 100}}, -0.218, {"absolute": 0.05}),
        _claim({**base, "args": {"records": 500, "hash": 1, "util_pct": 75},
                "over": {"records": 500, "hash": 0, "util_pct": 100}}, -0.218, {"absolute": 0.05}),
    ], tmp_path)
    assert seek.measured.value == pytest.approx(-0.2)
    assert seek.measured.low == pytest.approx(80 * 0.95 / 105 - 1)
    assert seek.measured.high == pytest.approx(80 * 1.05 / 95 - 1)
    assert seek.verdict == "reproduced"
    assert absent.verdict == "not measured" and "no rows" in absent.missing


def test_block_seek_summary_and_table():
    df = _gbench_frame()
    s = block_seek_summary(df)
    assert list(s["hash"]) == [0, 1]
    assert s.loc[s["hash"] == 1, "change"].iloc[0] == pytest.approx(-0.2)
    assert s.loc[s["hash"] == 1, "fallback_ratio"].iloc[0] == pytest.approx(0.1)
    t = engine_tables.KINDS["block_seek"](df)
    row = t.iloc[0]
    assert row["entries"] == 32 and row["binary ns"].startswith("100.0 (95.0-105.0)")
    assert row["hash 0.75 change"] == "-20.0%" and row["hash 0.75 B/key"] == "1.36"
    assert block_seek_summary(pd.DataFrame({"command": ["speed"]})) is None


def test_kernel_and_block_seek_values_for_the_text(tmp_path):
    # Without results every value is "--" (the text still builds).
    assert set(kernel_values(Inputs(tmp_path)).values()) == {"--"}
    assert set(block_seek_values(Inputs(tmp_path)).values()) == {"--"}
    for name, frame in (("speed_scalar", _kernel_frame()), ("engine_block_seek", _gbench_frame())):
        (tmp_path / name).mkdir()
        frame.to_parquet(tmp_path / name / "results.parquet")
    k = kernel_values(Inputs(tmp_path))
    assert (k["kernelScalarSingleInside"], k["kernelScalarSingleOutside"], k["kernelScalarSingleRatio"]) == (
        "20", "30", "1.50")
    assert k["kernelAvxTwoSingleRatio"] == "1.00" and k["kernelDefaultSingleRatio"] == "--"
    b = block_seek_values(Inputs(tmp_path))
    assert b["blockSeekSmallBinary"] == "100" and b["blockSeekSmallHash"] == "80"
    assert b["blockSeekSmallFallback"] == "10\\%" and b["blockSeekBestChange"] == "-20.0\\%"
    assert b["blockSeekEntries"] == "32"
    assert "$100$ & $80$ ($-20.0\\%$)" in block_seek_table_tex(Inputs(tmp_path))


def test_trie_bits_per_node_counts_every_edge_and_the_root(tmp_path):
    # 10 sparse + 5 dense edges: 16 nodes; 40 bytes are 320 bits, 20 bits per node.
    (tmp_path / "range_filters").mkdir()
    layout = "surf:keys=8,suffix=none,bits=0,edges=10,nodes=4,dense_nodes=1,dense_edges=5"
    pd.DataFrame([{"command": "rangefp", "sweep": "s", "filter": "surf:x", "range_length": 32,
                   "correlation": None, "bytes": 40.0, "keys": 8, "layout": layout}]).to_parquet(
        tmp_path / "range_filters" / "results.parquet")
    ours = {"experiment": "range_filters", "kind": "trie_bits_per_node", "sweep": "s", "filter": "surf:x",
            "range_length": 32}
    near, far = measure_all([_claim(ours, 19.0, 0.1), _claim(ours, 10.0, 0.1)], tmp_path)
    assert near.measured.value == pytest.approx(20.0) and near.verdict == "reproduced"
    assert far.verdict == "diverges, unexplained"
