"""The "gbench" workers: the Google Benchmark binaries' runner mode (common/gbench_main.cc),
their --describe and --check, one record per repetition with the name's arguments as
args, and the runner storing a tiny sweep's records (args_* and counters_* columns).
The records' times are not checked (no timings in tests), only their shape."""

import json
import subprocess

import pandas as pd
import pytest

from experiments.cli import main
from experiments.describe import command_description
from experiments.workers import WORKERS

ONE = "^BM_DataBlockSeekForGet/records:16/hash:1/util_pct:75$"


@pytest.fixture(scope="module")
def engine_bench(build):
    path = WORKERS["gbench engine"].path(build)
    if not path.exists():
        pytest.skip(f"no {path} (build engine_bench)")
    return path


def _run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120)


def test_describe_and_check(engine_bench):
    d = command_description(engine_bench, None)
    assert {f["name"] for f in d["flags"]} == {"benchmarks", "repetitions", "min_time"}
    assert {"benchmark", "args", "cpu_ns", "counters"} <= {f["name"] for f in d["fields"]}
    ok = _run(engine_bench, f"--benchmarks={ONE}", "--check")
    assert ok.returncode == 0 and ok.stdout == "", ok.stderr
    none = _run(engine_bench, "--benchmarks=^nothing$", "--check")
    assert none.returncode == 2 and "selects no benchmark" in none.stderr
    bad = _run(engine_bench, "--repetitions=0")
    assert bad.returncode == 2 and "repetitions" in bad.stderr


def test_one_record_per_repetition_with_the_arguments(engine_bench):
    out = _run(engine_bench, f"--benchmarks={ONE}", "--repetitions=2", "--min_time=0.01")
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["repetition"] for r in records] == [0, 1]
    r = records[0]
    assert r["command"] == "gbench" and r["family"] == "BM_DataBlockSeekForGet"
    assert r["args"] == {"records": 16, "hash": 1, "util_pct": 75}
    assert r["iterations"] > 0 and r["cpu_ns"] > 0 and r["real_ns"] > 0
    assert set(r["counters"]) == {"block_bytes", "fallback_ratio", "index_bytes_per_key"}


def test_runner_stores_a_sweep(engine_bench, build, tmp_path, monkeypatch):
    cfg = tmp_path / "seek.toml"
    cfg.write_text('description = "tiny"\nclaim = "none"\ntables = ["block_seek"]\n'
                   '[[sweep]]\nname = "seek"\nworker = "gbench engine"\n'
                   '[sweep.fixed]\nbenchmarks = "^BM_DataBlockSeekForGet/records:16/"\nrepetitions = 2\n'
                   'min_time = 0.01\n')
    monkeypatch.setenv("FILTERLAB_BUILD", str(build))
    assert main(["run", str(cfg), "--results", str(tmp_path / "r")]) == 0
    df = pd.read_parquet(tmp_path / "r" / "seek" / "results.parquet")
    # binary search, the index at util 0.75 and 1: 3 benchmarks x 2 repetitions.
    assert len(df) == 6 and set(df["args_util_pct"]) == {75, 100}
    assert "counters_fallback_ratio" in df and (tmp_path / "r" / "seek" / "tables" / "block_seek.md").exists()
