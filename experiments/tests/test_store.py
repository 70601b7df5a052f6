"""store.flatten: JSON records as the table's flat rows."""

from experiments.store import flatten


def test_nested_objects_and_scalar_lists():
    rows = flatten({"a": 1, "b": {"c": 2, "d": {"e": 3}}, "xs": [1, 2], "h": [[0, 5], [1, 7]]})
    assert rows == [{"a": 1, "b_c": 2, "b_d_e": 3, "xs": "1,2", "h": "[[0,5],[1,7]]"}]


def test_one_list_of_objects_gives_one_row_per_element():
    rows = flatten({"benchmark": "readrandom", "levels": [{"level": 0, "files": 2}, {"level": 1, "files": 4}]})
    assert rows == [{"benchmark": "readrandom", "levels_level": 0, "levels_files": 2},
                    {"benchmark": "readrandom", "levels_level": 1, "levels_files": 4}]


def test_every_list_of_objects_is_kept():
    """Two lists of objects: each element is one row (the first list's rows, then the
    second's), none dropped and none repeated."""
    record = {"run": 7, "levels": [{"level": 0}, {"level": 1}],
              "candidates": [{"probes": 5, "fp": 0.01}, {"probes": 6, "fp": 0.008}, {"probes": 7, "fp": 0.009}]}
    rows = flatten(record)
    assert len(rows) == 2 + 3
    assert [r.get("levels_level") for r in rows] == [0, 1, None, None, None]
    assert [r.get("candidates_probes") for r in rows] == [None, None, 5, 6, 7]
    assert all(r["run"] == 7 for r in rows)
    assert not any("levels_level" in r and "candidates_probes" in r for r in rows)
