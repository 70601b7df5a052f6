"""The lsmbench worker through the runner, with tests/fake_lsmbench.py in place
of the engine's tool: db_bench-style command lines, JSON records among text
lines, a scratch database per run, validation of its flags, RocksDB missing
from the build, speed-like runs never overlapping, and the engine configs'
dry runs."""

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.cli import plot_dir
from experiments.config import load_config
from experiments.execute import execute_argv
from experiments.grid import expand
from experiments.workers import WORKERS, worker_argv

from .conftest import FAKE_LSMBENCH, ROOT, run_cli
from .test_config import only, problems_of

HASH = """\
description = "engine test"
claim = "none"
plots = ["hash_index"]
tables = ["hash_index"]

[[sweep]]
name = "hash"
worker = "lsmbench"
filter = ["fastlocal"]
repeats = 1
[sweep.fixed]
bpk = 10
benchmarks = "fillrandom,readrandom,readmissing"
num = 1000
[sweep.grid]
engine = ["filterlab", "rocksdb"]
hash_index = [false, true]
"""


def test_argv_is_db_bench_style(write_config):
    text = HASH.replace('filter = ["fastlocal"]', 'filter = ["fastlocal", "none"]').replace(
        "num = 1000", 'num = 1000\nmemtable_filter = "dynamic:bpk=8"\nutil_ratio = 0.75')
    runs = expand(load_config(write_config(text.replace("repeats = 1", "repeats = 2"))), {}, "b")
    assert len(runs) == 2 * 2 * 2 * 2
    first = runs[0]
    none = next(r for r in runs if r.base_filter == "none")
    assert worker_argv(first.worker, Path("/B"), first.base_filter, first.params, first.seed, threads=None) == [
        "/B/engine/lsmbench", "--filter=fastlocal:bpk=10", "--benchmarks=fillrandom,readrandom,readmissing",
        "--num=1000",
        "--memtable_filter=dynamic:bpk=8", "--util_ratio=0.75", "--engine=filterlab", "--hash_index=false",
        "--seed=0"]
    # "none" is passed as it is: no spec parameters appended.
    assert none.spec == "none"
    assert worker_argv(none.worker, Path("/B"), none.base_filter, none.params, 1, None)[1] == "--filter=none"


MULTIGET = """\
description = "multiget test"
claim = "none"
plots = ["multiget"]
tables = ["multiget"]

[[sweep]]
name = "multiget"
worker = "lsmbench"
filter = ["fastlocal"]
repeats = 2
[sweep.fixed]
bpk = 10
benchmarks = "fillrandom,readrandom,multireadrandom"
num = 1000
[sweep.grid]
batch_size = [1, 16]
multiread_stride = [0, 16]
multiread_batched = [true, false]
"""


def test_multiread_lists_are_passed_whole_to_one_run(write_config):
    runs = expand(load_config(write_config(MULTIGET)), {}, "b")
    assert len(runs) == 2 * 2  # batch sizes x repeats; strides and batched are collapsed
    first = runs[0]
    assert first.params["multiread_stride"] == [0, 16] and first.params["multiread_batched"] == [True, False]
    assert worker_argv(first.worker, Path("/B"), first.base_filter, first.params, first.seed, None) == [
        "/B/engine/lsmbench", "--filter=fastlocal:bpk=10", "--benchmarks=fillrandom,readrandom,multireadrandom",
        "--num=1000", "--multiread_stride=0,16", "--multiread_batched=true,false", "--batch_size=1", "--seed=0"]
    # In fixed, a list is passed whole too, and a single value stays a single value.
    text = MULTIGET.replace("multiread_stride = [0, 16]\n", "").replace(
        "num = 1000", "num = 1000\nmultiread_stride = [256, 4096]").replace(
        "multiread_batched = [true, false]", "multiread_batched = [false]")
    run = expand(load_config(write_config(text)), {}, "b")[0]
    argv = worker_argv(run.worker, Path("/B"), run.base_filter, run.params, run.seed, None)
    assert "--multiread_stride=256,4096" in argv and "--multiread_batched=false" in argv
    text = MULTIGET.replace("multiread_stride = [0, 16]\n", "").replace("num = 1000", "num = 1000\nmultiread_stride = 7")
    run = expand(load_config(write_config(text)), {}, "b")[0]
    assert "--multiread_stride=7" in worker_argv(run.worker, Path("/B"), run.base_filter, run.params, run.seed, None)


def test_multiread_list_entries_are_checked(write_config):
    msg = only(problems_of(write_config(MULTIGET.replace("[true, false]", '[true, "maybe"]'))))
    assert "sweep[0] ('multiget').grid.multiread_batched: got 'maybe' (str); allowed: true or false" in msg
    msg = only(problems_of(write_config(MULTIGET.replace("[0, 16]", "[0, -16]"))))
    assert "grid.multiread_stride: got -16 (int); allowed: an integer in 0..1000000000" in msg
    msg = only(problems_of(write_config(MULTIGET.replace("[0, 16]", "[16, 16]"))))
    assert "grid.multiread_stride: lists 16 twice; each value once" in msg
    # Keys that are not collapsed still take one value in fixed.
    msg = only(problems_of(write_config(MULTIGET.replace("num = 1000", "num = [1000, 2000]"))))
    assert "fixed.num: got [1000, 2000] (list); allowed: an integer" in msg


def test_multiread_passes_of_one_run_become_rows_of_their_own(write_config, tmp_path, lsmbench_build):
    """Through the runner with the fake lsmbench: each run stores one multireadrandom
    record per (stride, batched) pair, whose fields (not the run's comma-joined
    parameters) the MultiGet summary reads."""
    from analysis.engine_data import multiget_summary

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {"FILTERLAB_BUILD": str(lsmbench_build), "FILTERLAB_SCRATCH": str(scratch)}
    out = run_cli("run", write_config(MULTIGET), "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 0, out.stderr
    assert "4 runs" in out.stderr
    table = pd.read_parquet(tmp_path / "r" / "exp" / "results.parquet")
    mg = table[table["benchmark"] == "multireadrandom"].drop_duplicates(["run_key", "record_index"])
    assert len(mg) == 4 * 4  # runs x (stride, batched) pairs
    first = mg[mg["run_key"] == mg["run_key"].iloc[0]]
    assert list(zip(first["stride"], first["multiread_batched"])) == [(0, True), (0, False), (16, True),
                                                                       (16, False)]
    assert set(first["multiread_stride"]) == {"0,16"}  # the run's column: the list as passed
    s = multiget_summary(table)
    assert list(zip(s["batch_size"], s["stride"])) == [(1, 0), (1, 16), (16, 0), (16, 16)]
    assert (s["baseline"] == "Get loop").all() and (s["repeats"] == 2).all()
    # The fake's batched MultiGet is 20% x min(batch, 32)/32 faster with a stride: 1/(1 - 0.1) at batch 16.
    assert s["speedup"].round(4).tolist() == [1.0, round(1 / (1 - 0.2 / 32), 4), 1.0, round(1 / 0.9, 4)]


def test_binary_in_engine_subdirectory_or_at_the_top(tmp_path):
    assert WORKERS["lsmbench"].path(tmp_path) == tmp_path / "engine" / "lsmbench"  # named when missing
    (tmp_path / "lsmbench").touch()
    assert WORKERS["lsmbench"].path(tmp_path) == tmp_path / "lsmbench"
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "lsmbench").touch()
    assert WORKERS["lsmbench"].path(tmp_path) == tmp_path / "engine" / "lsmbench"


def test_records_among_text_lines_and_scratch_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("FILTERLAB_SCRATCH", str(tmp_path))
    argv = [sys.executable, str(FAKE_LSMBENCH), "--benchmarks=fillrandom,readrandom", "--num=10"]
    out = execute_argv(argv, text_output=True, scratch_flag="db")
    assert out["ok"], out["stderr"]
    assert [r["benchmark"] for r in out["records"]] == ["fillrandom", "readrandom"]
    db = out["argv"][-1]
    assert db.startswith(f"--db={tmp_path}/filterlab-run-") and db.endswith("/db")
    assert list(tmp_path.iterdir()) == [], "the scratch directory outlives the run"
    # Without text_output the db_bench lines are an error, as for the sim workers.
    strict = execute_argv(argv, scratch_flag="db")
    assert not strict["ok"] and "non-JSON output line" in strict["stderr"]


def test_unexecutable_worker_is_a_failed_run(tmp_path):
    script = tmp_path / "w"
    script.write_text("#!/bin/sh\necho '{}'\n")  # not executable (a binary being relinked looks alike)
    out = execute_argv([str(script)])
    assert not out["ok"] and out["returncode"] == 126 and "cannot execute" in out["stderr"]


def test_broken_json_line_fails_the_run(tmp_path):
    script = tmp_path / "w"
    script.write_text('#!/bin/sh\necho "readrandom : 1.0 micros/op"\necho \'{"benchmark": "readrandom", \'\n')
    script.chmod(0o755)
    out = execute_argv([str(script)], text_output=True)
    assert not out["ok"] and "non-JSON output line: '{\"benchmark\": \"readrandom\",'" in out["stderr"]


def test_unknown_parameter_lists_the_allowed_ones(write_config):
    msg = only(problems_of(write_config(HASH.replace("num = 1000", "num = 1000\nuse_existing_db = true"))))
    assert "sweep[0] ('hash').fixed.use_existing_db: unknown key; allowed: benchmarks, engine, num, reads, " \
           "key_size, value_size, memtable_filter, memtable_bloom_ratio, hash_index, util_ratio, batch_size, " \
           "multiread_stride, multiread_batched, approx_algorithm, seek_nexts, histogram, block_size, cache_mb, " \
           "write_buffer_mb, target_file_mb, level1_mb, disable_auto_compactions, statistics, bpk, probes, " \
           "hash" in msg


def test_unknown_benchmark_and_engine(write_config):
    text = HASH.replace("fillrandom,readrandom", "fillrandom,readrandm").replace('"rocksdb"]', '"leveldb"]')
    probs = problems_of(write_config(text))
    assert any("fixed.benchmarks: got 'fillrandom,readrandm,readmissing' (str); allowed: a string or a list of "
               "strings from fillseq, fillrandom" in p for p in probs)
    assert any("grid.engine: got 'leveldb' (str); allowed: one of filterlab|rocksdb|memtable" in p for p in probs)


def test_rocksdb_runs_only_its_own_filters(write_config):
    msg = only(problems_of(write_config(HASH.replace('["fastlocal"]', '["fastlocal", "worm64"]'))))
    assert "sweep[0] ('hash').filter: engine=rocksdb builds only RocksDB's own filters; got 'worm64'; " \
           "allowed with rocksdb: fastlocal, none" in msg


def test_spec_parameter_needs_a_filter(write_config):
    msg = only(problems_of(write_config(HASH.replace('filter = ["fastlocal"]\n', ""))))
    assert "sweep[0] ('hash').fixed.bpk: is a filter spec parameter but the sweep names no filter" in msg


def test_none_is_not_a_filter_for_the_sim(write_config):
    from .conftest import SMALL_FP

    msg = only(problems_of(write_config(SMALL_FP.replace('"standard"', '"none"'))))
    assert "'none' (no filter) is for lsmbench only; worker 'sim fp' needs a filter" in msg


def test_memtable_filter_spec_asked_of_registry(write_config, lsmbench_build):
    text = HASH.replace("num = 1000", 'num = 1000\nmemtable_filter = "bogus:bpk=8"')
    msg = only(problems_of(write_config(text), lsmbench_build))
    assert "sweep[0] ('hash') fixed.memtable_filter: the filter registry rejects 'bogus:bpk=8': " \
           "unknown filter variant 'bogus'" in msg


def test_rocksdb_missing_is_reported_once_then_resumed(write_config, tmp_path, lsmbench_build):
    """A build without RocksDB: the first engine=rocksdb run fails with a hint, the
    others are not started; the filterlab runs are stored; a rerun with RocksDB
    does only the rest and draws the config's plot and table."""
    cfg = write_config(HASH)
    log, scratch = tmp_path / "calls.log", tmp_path / "scratch"
    scratch.mkdir()
    env = {"FILTERLAB_BUILD": str(lsmbench_build), "FILTERLAB_SCRATCH": str(scratch),
           "FAKE_LSMBENCH_LOG": str(log), "FAKE_LSMBENCH_NO_ROCKSDB": "1"}
    out = run_cli("run", cfg, "--jobs", "2", "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 1, out.stderr
    assert "run failed (exit 2): hash lsmbench fastlocal:bpk=10 benchmarks=fillrandom,readrandom,readmissing " \
           "num=1000 engine=rocksdb hash_index=False seed=0" in out.stderr
    assert "| lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB" in out.stderr
    assert "hint: this lsmbench was built without RocksDB: install librocksdb-dev" in out.stderr
    assert out.stderr.count("run skipped: hash lsmbench fastlocal:bpk=10") == 1
    assert "not started: lsmbench has no RocksDB (lsmbench: --engine=rocksdb is not available: this" in out.stderr
    assert "2 run(s) failed" in out.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 3  # 2 filterlab runs and 1 rocksdb run
    assert list(scratch.iterdir()) == []
    table = pd.read_parquet(tmp_path / "r" / "exp" / "results.parquet")
    assert set(table["engine"]) == {"filterlab"} and set(table["benchmark"]) == {"fillrandom", "readrandom",
                                                                                 "readmissing"}
    # One row per record, and per level where the record has per-level statistics (3 levels in the fake).
    assert len(table) == 2 * (1 + 3 + 3)
    for col in ("record_index", "micros_per_op", "ops_per_sec", "sst_bytes", "levels_level",
                "levels_filter_useful", "hash_index", "seed", "base_filter"):
        assert col in table, col

    env.pop("FAKE_LSMBENCH_NO_ROCKSDB")
    again = run_cli("run", cfg, "--no-plot", "--results", tmp_path / "r", env=env)
    assert again.returncode == 0, again.stderr
    assert "4 runs, 2 already stored, 2 to run" in again.stderr
    # What `run` does at its end, in this process (importing the plotting stack again costs seconds).
    plot_dir(tmp_path / "r" / "exp")
    assert (tmp_path / "r" / "exp" / "plots" / "hash_index.png").stat().st_size > 1000
    md = (tmp_path / "r" / "exp" / "tables" / "hash_index.md").read_text()
    # The fake's readrandom is 10% faster per op with the index: +11.1% throughput, 1.33 bytes per key more.
    assert "| rocksdb | readrandom ops/s |" in md and "+11.1%" in md and "| 120.00 | 121.33 | +1.1% |" in md


def test_speed_like_workers_never_overlap(write_config, tmp_path, lsmbench_build):
    """sim speed and lsmbench runs with --jobs 2: each holds a lock directory for
    0.2 s and notes when it finds it taken; none ever does."""
    log, lock = tmp_path / "calls.log", tmp_path / "lock"
    sim = lsmbench_build / "sim" / "filterlab-sim"
    sim.unlink(missing_ok=True)
    sim.write_text(f"""#!/bin/sh
if mkdir "{lock}" 2>/dev/null; then o=false; else o=true; fi
echo '{{"argv": "sim", "overlap": '$o'}}' >> "{log}"
sleep 0.2
[ $o = false ] && rmdir "{lock}"
echo '{{"command": "speed", "mode": "single", "mix": "inside", "net_ns_per_op": 1.0}}'
""")
    sim.chmod(0o755)
    cfg = write_config(HASH + """
[[sweep]]
name = "speed"
worker = "sim speed"
filter = ["fastlocal", "legacy"]
[sweep.fixed]
bpk = 10
quick = true
""")
    env = {"FILTERLAB_BUILD": str(lsmbench_build), "FAKE_LSMBENCH_LOG": str(log), "FAKE_LSMBENCH_LOCK": str(lock),
           "FAKE_LSMBENCH_SLEEP": "0.2", "FILTERLAB_SCRATCH": str(tmp_path)}
    out = run_cli("run", cfg, "--jobs", "2", "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 0, out.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 4 + 2
    assert not any(c["overlap"] for c in calls), calls


def engine_configs():
    return sorted((ROOT / "experiments").glob("engine_*.toml"))


def test_engine_configs_exist():
    assert {p.stem for p in engine_configs()} >= {"engine_multiget", "engine_hash_index", "engine_memtable_filter",
                                                  "engine_range_estimates", "engine_filters"}


def expected_runs(name: str, build: Path) -> int:
    """Runs of each engine config, counted from its grid by hand (3 repeats each)."""
    if name == "engine_filters":
        from experiments.registry import example_specs
        from experiments.workers import join_spec, split_spec

        # "all" at bpk=10: each example spec without its bpk, once; then no filter; then RocksDB's 2.
        bases = {join_spec(n, {k: v for k, v in p.items() if k != "bpk"}) for n, p in map(split_spec,
                                                                                          example_specs(build))}
        return 3 * (len(bases) + 1 + 2)
    # engine_multiget: strides and batched/Get loop are collapsed, one run measures all 8 pairs.
    return 3 * {"engine_multiget": 2 * 4,  # engines x batch sizes
                "engine_hash_index": 2 * 2 * 2,  # value sizes x engines x off/on
                "engine_memtable_filter": 2 * 2,  # engines x off/on
                "engine_range_estimates": 5 * 2 + 5}[name]  # widths x new/old, RocksDB's (old) per width


@pytest.mark.parametrize("path", engine_configs(), ids=lambda p: p.stem)
def test_engine_config_dry_run(path, lsmbench_build, monkeypatch, capsys, tmp_path):
    from experiments.cli import main

    monkeypatch.setenv("FILTERLAB_BUILD", str(lsmbench_build))
    assert main(["run", str(path), "--dry-run", "--results", str(tmp_path / "r")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == expected_runs(path.stem, lsmbench_build)
    # lsmbench runs are speed measurements: each has the machine to itself.
    assert all(line.startswith("alone ") for line in lines)
    assert not (tmp_path / "r").exists()
