"""dynamic_bloom_latency's readings on a small frame whose answers are exact: the new filter
at 0.8x the old one's ns per key at 2^10 keys and 0.5x at 2^23 (every mode, three repeats at
1.0, 0.9 and 1.1 of each time; the old one with locality at 0.625x the old one's), with sim floor's load latency at both filters' sizes. The
claim kind dynamic_ratio reads one key count through `where`, and refuses to pool several;
the dynamic table has a row per filter and key count; the report's table and values name each
key count by its power of two."""

import pandas as pd
import pytest

from analysis import tables
from analysis.dynamic_data import DYNAMIC_MODES
from analysis.paper.claims import Claim, ClaimsError, measure_all
from analysis.paper.section import Inputs
from analysis.paper.sections.dynamic import dynamic_keys_table_tex, power_word

SMALL, LARGE = 1 << 10, 1 << 23
NEW, OLD, LOCAL = "dynamic:bpk=10", "dynamic_old:bpk=10", "dynamic_old:bpk=10,locality=1"


def _frame() -> pd.DataFrame:
    rows = []
    for keys, new_over_old in ((SMALL, 0.8), (LARGE, 0.5)):
        for spec, scale in ((NEW, new_over_old), (OLD, 1.0), (LOCAL, 0.625)):
            for seed, f in ((0, 1.0), (1, 0.9), (2, 1.1)):
                for i, mode in enumerate(DYNAMIC_MODES):
                    rows.append({"sweep": "dynamic_bloom_latency", "worker": "sim dynamic", "run_key": f"{spec}{keys}{seed}",
                                 "seed": seed, "record_index": i, "command": "dynamic", "filter_arg": spec, "mode": mode,
                                 "keys": keys, "threads": 2 if mode.startswith("parallel") else 1, "rounds": 3,
                                 "bytes": keys * 10 // 8, "ns_per_key": scale * f * (20.0 + i)})
    # sim floor beside them: dependent loads at both filters' sizes (and one size matching neither).
    for ws, ns in ((SMALL * 10 // 8, 1.5), (LARGE * 10 // 8, 40.0), (4 * LARGE, 150.0)):
        for seed, f in ((0, 1.0), (1, 1.2), (2, 0.8)):
            rows.append({"sweep": "latency", "worker": "sim floor", "run_key": f"floor{seed}", "seed": seed,
                         "command": "floor", "measure": "dependent_load", "working_set_bytes": ws,
                         "page_bytes": 2 ** 21, "threads": 1, "ns_per_line": ns * f})
    return pd.DataFrame(rows)


def _store(tmp_path) -> None:
    (tmp_path / "dynamic_bloom_latency").mkdir()
    _frame().to_parquet(tmp_path / "dynamic_bloom_latency" / "results.parquet")


def _claim(mode, where=None):
    ours = {"kind": "dynamic_ratio", "experiment": "dynamic_bloom_latency", "mode": mode, "filter": NEW, "over": OLD}
    if where is not None:
        ours["where"] = where
    return Claim("x", "dynamic", "c", "src", 0.5, "ratio", ours, 0.25)


def test_dynamic_ratio_reads_the_key_count_where_selects(tmp_path):
    _store(tmp_path)
    cs = measure_all([_claim("hit", {"keys": LARGE}), _claim("parallel_hit", {"keys": SMALL}),
                      _claim("hit", {"keys": 12345})], tmp_path)
    large, small, absent = cs
    # Medians 0.5 * 21 over 21; the interval: fastest new (0.9) over slowest old (1.1) and back.
    assert large.measured.value == pytest.approx(0.5)
    assert large.measured.low == pytest.approx(0.5 * 0.9 / 1.1) and large.measured.high == pytest.approx(0.5 * 1.1 / 0.9)
    assert f"{LARGE} keys" in large.measured.detail and large.verdict == "reproduced"
    assert small.measured.value == pytest.approx(0.8)
    assert absent.measured is None and absent.verdict == "not measured"


def test_dynamic_ratio_refuses_to_pool_key_counts(tmp_path):
    _store(tmp_path)
    with pytest.raises(ClaimsError, match=rf"2 key counts \({SMALL}, {LARGE}\).*where = \{{ keys = N \}}"):
        measure_all([_claim("hit")], tmp_path)


def test_dynamic_table_has_a_row_per_filter_and_key_count():
    t = tables.dynamic_table(_frame())
    assert list(t.columns) == ["filter", "keys", *DYNAMIC_MODES]
    assert list(zip(t["keys"], t["filter"])) == [(k, f) for k in (SMALL, LARGE) for f in (NEW, OLD, LOCAL)]
    # hit at 2^23 keys: new 0.5 * 21 ns, repeats 0.9 and 1.1 of it.
    assert t.iloc[3]["hit"].startswith("10.5 (9.5–11.6, n=3)")
    assert "3 rounds per repeat" in t.attrs["notes"][0]


def test_report_table_and_values_per_key_count(tmp_path):
    text, vals = dynamic_keys_table_tex(Inputs(tmp_path))
    assert "not measured" in text and vals["dynKeysCounts"] == "--"
    _store(tmp_path)
    text, vals = dynamic_keys_table_tex(Inputs(tmp_path))
    assert "$2^{10}$" in text and "$2^{23}$" in text
    assert vals["dynKeysCounts"] == "2"
    assert vals["dynHitRatioTen"] == "0.80" and vals["dynHitRatioTwentyThree"] == "0.50"
    assert vals["dynParallelMissRatioTwentyThree"] == "0.50"
    # Over the old filter with locality (0.625 of the old one's times): 0.5 / 0.625.
    assert vals["dynHitOverLocalityTwentyThree"] == "0.80"
    # The load latency at each filter's size (median over the floor's repeats), the size.
    assert vals["dynLatencyTen"] == "1.5" and vals["dynLatencyTwentyThree"] == "40"
    assert vals["dynSizeTwentyThree"] == "10~MiB" and vals["dynSizeTen"] == "1.25~KiB"
    assert (vals["dynHitRatioMax"], vals["dynHitRatioMaxKeys"]) == ("0.80", "$2^{10}$")
    assert (vals["dynHitRatioMin"], vals["dynHitRatioMinKeys"]) == ("0.50", "$2^{23}$")


def test_power_word_names_powers_of_two_only():
    assert [power_word(1 << e) for e in (10, 16, 20, 23, 26, 30)] == [
        "Ten", "Sixteen", "Twenty", "TwentyThree", "TwentySix", "Thirty"]
    assert power_word(1000) is None and power_word(1) is None
