"""The speed_rocksdb table: our medians beside RocksDB's, ratios as medians of the
per-round ratios (round i of ours against round i of RocksDB's), floors per line."""

import math

import pandas as pd

from analysis.beside_rocksdb import beside_rocksdb_rows, beside_rocksdb_table


def records():
    rows = []
    for seed, (ours_random, peer_random, peer_hot) in enumerate([(80, 130, 9.0), (90, 200, 9.5), (70, 140, 9.2)]):
        rows += [
            {"command": "speed", "label": "legacy", "filter": "legacy:bpk=10", "mode": "build", "seed": seed,
             "ns_per_key": 6.0 + seed},
            {"command": "speed", "label": "legacy", "filter": "legacy:bpk=10", "mode": "single", "mix": "mixed",
             "seed": seed, "net_ns_per_op": 2.0},
            {"command": "speed", "label": "legacy", "filter": "legacy:bpk=10", "mode": "random", "mix": "mixed",
             "seed": seed, "net_ns_per_op": ours_random, "x_floor": ours_random / 11},
            {"command": "speed", "label": "legacy", "filter": "legacy:bpk=10", "mode": "random_pipelined",
             "mix": "mixed", "seed": seed, "net_ns_per_op": 12.0, "x_floor": 1.1, "lines_per_query": 1.0,
             "x_floor_per_line": 1.1, "pipeline_depth": 16},
            {"command": "filter_bench", "filter": "legacy:bpk=10", "mode": "build", "seed": seed, "ns_per_key": 10.0},
            {"command": "filter_bench", "filter": "legacy:bpk=10", "mode": "single", "mix": "mixed", "seed": seed,
             "net_ns_per_op": peer_hot},
            {"command": "filter_bench", "filter": "legacy:bpk=10", "mode": "random", "mix": "mixed", "seed": seed,
             "net_ns_per_op": peer_random},
            {"command": "speed", "label": "xor", "filter": "xor:fingerprint=8", "mode": "random_pipelined",
             "mix": "mixed", "seed": seed, "net_ns_per_op": 40.0, "x_floor": 3.3, "lines_per_query": 3.0,
             "x_floor_per_line": 1.1, "pipeline_depth": 4},
        ]
    return pd.DataFrame(rows)


def test_ratios_are_medians_of_per_round_ratios():
    rows = beside_rocksdb_rows(records()).set_index("filter")
    legacy = rows.loc["legacy"]
    # Rounds 80/130, 90/200, 70/140: ratios 0.615, 0.45, 0.5 -> median 0.5 (the ratio of the medians,
    # 80/140 = 0.571, would mix rounds measured at different times).
    assert math.isclose(legacy["random ns ratio"], 0.5)
    assert legacy["random ns"] == 80 and legacy["rocksdb random ns"] == 140
    assert math.isclose(legacy["build ns/key ratio"], 0.7)
    assert legacy["lines/query"] == 1.0 and math.isclose(legacy["x floor per line"], 1.1)
    # A filter RocksDB lacks has our figures and no ratio.
    assert math.isnan(rows.loc["xor", "random ns ratio"])
    assert rows.loc["xor", "lines/query"] == 3.0
    # The group each filter was pipelined in (sim speed --pipeline_depth auto: 16 / lines per query).
    assert legacy["pipelined group"] == 16 and rows.loc["xor", "pipelined group"] == 4


def test_table_has_a_row_per_filter_and_notes():
    t = beside_rocksdb_table(records())
    assert list(t["filter"]) == ["legacy", "xor"]
    assert t.loc[0, "random ns ratio"] == "0.50"
    assert t.loc[1, "random ns ratio"] == ""
    assert list(t["pipelined group"]) == ["16", "4"]
    assert any("interleaved" in n for n in t.attrs["notes"])
