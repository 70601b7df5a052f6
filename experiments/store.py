"""Where finished runs live: results/<experiment>/runs/<run key>.json, one
file per run, written atomically the moment the run finishes, so a killed
sweep loses only what was still running. The results table is the
concatenation of the stored runs of the current plan, in plan order."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from .grid import Run


class RunStore:
    def __init__(self, results_dir: Path):
        self.dir = Path(results_dir)
        self.runs_dir = self.dir / "runs"

    def path(self, key: str) -> Path:
        return self.runs_dir / f"{key}.json"

    def has(self, key: str) -> bool:
        return self.path(key).exists()

    def save(self, run: Run, outcome: dict) -> None:
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        doc = {"key": run.key, "identity": run.identity(), "spec": run.spec, "argv": outcome["argv"],
               "seconds": outcome["seconds"], "stderr": outcome["stderr"], "records": outcome["records"]}
        tmp = self.path(run.key).with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        os.replace(tmp, self.path(run.key))

    def load(self, key: str) -> dict:
        return json.loads(self.path(key).read_text())

    def table(self, runs: list[Run]) -> pd.DataFrame:
        """One row per measurement of every stored run of `runs`, in plan order."""
        rows = []
        for run in runs:
            if not self.has(run.key):
                continue
            doc = self.load(run.key)
            for i, record in enumerate(doc["records"]):
                # record_index tells records of one run apart (lsmbench: one per
                # benchmark, and a benchmark may be listed twice).
                for flat in flatten(record):
                    rows.append({**run_columns(run), "record_index": i, **flat})
        return tidy(pd.DataFrame(rows))


def run_columns(run: Run) -> dict:
    """The run's own columns; its parameters under their config names (records may refine them)."""
    cols = {"experiment": run.experiment, "sweep": run.sweep, "worker": run.worker.name, "run_key": run.key,
            "base_filter": run.base_filter, "base_label": run.label or run.base_filter, "seed": run.seed}
    for k, v in run.params.items():
        if isinstance(v, list):
            v = ",".join(map(str, v))
        cols[k] = v
    if "hash" in run.params:
        cols["hash"] = run.params["hash"]
    if "bpk" in run.params and not isinstance(run.params["bpk"], list):
        cols["bpk"] = float(run.params["bpk"])
    return cols


def flatten(record: dict) -> list[dict]:
    """A JSON record as flat rows: nested objects become a_b columns; a list of
    objects (e.g. the probe candidates, lsmbench's per-level statistics) becomes
    one row per element, each with the record's other columns; a list of scalars
    becomes a comma-joined string and a list holding lists (lsmbench's histogram
    of [bucket_low, count]) JSON text. A record with several lists of objects
    gives the rows of each in turn (the other lists' columns absent there), so
    every element is one row and none is counted twice."""
    base, lists = {}, {}

    def walk(prefix, obj):
        for k, v in obj.items():
            name = f"{prefix}{k}"
            if isinstance(v, dict):
                walk(name + "_", v)
            elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                lists[name] = v
            elif isinstance(v, list):
                base[name] = _list_text(v)
            else:
                base[name] = v

    walk("", record)
    if not lists:
        return [base]
    rows = []
    for name, items in lists.items():
        for item in items:
            row = dict(base)
            walk_into(row, name + "_", item)
            rows.append(row)
    return rows


def walk_into(out: dict, prefix: str, obj: dict) -> None:
    for k, v in obj.items():
        if isinstance(v, dict):
            walk_into(out, f"{prefix}{k}_", v)
        else:
            out[f"{prefix}{k}"] = _list_text(v) if isinstance(v, list) else v


def _list_text(v: list) -> str:
    if any(isinstance(x, (list, dict)) for x in v):
        return json.dumps(v, separators=(",", ":"))
    return ",".join(map(str, v))


def tidy(df: pd.DataFrame) -> pd.DataFrame:
    """Column types Parquet can store: mixed-type object columns become strings."""
    for col in df.columns:
        if df[col].dtype == object:
            kinds = {type(v) for v in df[col].dropna()}
            if len(kinds) > 1:
                df[col] = df[col].map(lambda v: None if v is None or v != v else str(v))
    return df
