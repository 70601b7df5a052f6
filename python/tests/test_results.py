"""filterlab.results.load: an experiment's table (as analysis reads it) and meta."""

import json

import pandas as pd
import pytest

import filterlab


def test_load_gives_the_table_and_its_meta(tmp_path):
    rows = pd.DataFrame({"command": ["fp", "fp"], "base_filter": ["fastlocal", "legacy"], "bits_per_key": [10.0, 10.0],
                         "fp": [0.0085, 0.0105], "seed": [0, 0]})
    rows.to_parquet(tmp_path / "results.parquet", index=False)
    (tmp_path / "meta.json").write_text(json.dumps({"commit": "abc123", "config": {"name": "exp"}}))
    table, meta = filterlab.results.load(tmp_path)
    assert meta["commit"] == "abc123"
    assert list(table["label"]) == ["fastlocal", "legacy"]  # analysis.load's derived columns
    assert list(table["bytes_per_key"]) == [1.25, 1.25]
    assert filterlab.results.load(tmp_path / "results.parquet").meta == meta


def test_a_folder_without_results_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match="run the experiment first"):
        filterlab.results.load(tmp_path)
