"""filterlab.results: an experiment's stored results (``results/<name>/``, written
by ``./filterlab run``) as the analysis reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pandas as pd


class Results(NamedTuple):
    """``table``: one row per measurement (the workers' record fields, the run's
    parameters, ``label`` and ``bytes_per_key`` as analysis.load adds them);
    ``meta``: meta.json (commit, build flags, compiler, CPU, date, failures,
    the config text)."""

    table: pd.DataFrame
    meta: dict


def load(path: str | Path) -> Results:
    """Reads ``results.parquet`` and ``meta.json`` from an experiment's results folder
    (e.g. ``results/quickstart``): ``table, meta = filterlab.results.load(dir)``."""
    from analysis.load import load as load_table

    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if not (folder / "results.parquet").exists():
        raise FileNotFoundError(f"no results table at {folder / 'results.parquet'} (run the experiment first: "
                                f"./filterlab run CONFIG)")
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    return Results(load_table(folder), meta)
