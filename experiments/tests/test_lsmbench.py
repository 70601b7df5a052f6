"""The lsmbench worker through the runner, with the real lsmbench at small
sizes: one flag style on its command lines, its flags as it describes them,
JSON records on stdout, a scratch database per run, validation by its --check,
RocksDB missing from the build (a wrapper injects that failure), speed-like
runs never overlapping, and the engine configs' dry runs."""

import fcntl
import os
import threading
from pathlib import Path

import pandas as pd
import pytest

from analysis.cli import plot_dir
from analysis.engine_data import multiget_summary
from experiments.cli import main
from experiments.config import load_config
from experiments.execute import execute_argv
from experiments.grid import expand
from experiments.registry import check_specs, example_specs, join
from experiments.validate import plan
from experiments.workers import WORKERS, worker_argv

from .conftest import ROOT, SMALL_FP, run_cli, wrapped_build
from .test_config import only, problems_of


def plan_of(path, build):
    return plan(load_config(path, build), build)

# Loading an lsmbench config reads its flags from the build's lsmbench.
pytestmark = pytest.mark.usefixtures("lsm_build")

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
num = 2000
[sweep.grid]
engine = ["filterlab", "rocksdb"]
hash_index = [false, true]
"""


def test_argv_has_one_flag_style(write_config):
    text = HASH.replace('filter = ["fastlocal"]', 'filter = ["fastlocal", "none"]').replace(
        "num = 2000", 'num = 2000\nmemtable_filter = "dynamic:bpk=8"\nutil_ratio = 0.75')
    runs = expand(load_config(write_config(text.replace("repeats = 1", "repeats = 2"))), {}, "b")
    assert len(runs) == 2 * 2 * 2 * 2
    first = runs[0]
    none = next(r for r in runs if r.base_filter == "none")
    assert worker_argv(first.worker, Path("/B"), first.spec, first.params, first.seed, threads=None) == [
        "/B/engine/lsmbench", "--filter=fastlocal:bpk=10", "--benchmarks=fillrandom,readrandom,readmissing",
        "--num=2000",
        "--memtable_filter=dynamic:bpk=8", "--util_ratio=0.75", "--engine=filterlab", "--hash_index=false",
        "--seed=0"]
    # "none" is passed as it is: no spec parameters appended.
    assert none.spec == "none"
    assert worker_argv(none.worker, Path("/B"), none.spec, none.params, 1, None)[1] == "--filter=none"


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
num = 2000
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
    assert worker_argv(first.worker, Path("/B"), first.spec, first.params, first.seed, None) == [
        "/B/engine/lsmbench", "--filter=fastlocal:bpk=10", "--benchmarks=fillrandom,readrandom,multireadrandom",
        "--num=2000", "--multiread_stride=0,16", "--multiread_batched=true,false", "--batch_size=1", "--seed=0"]
    # In fixed, a list is passed whole too, and a single value stays a single value.
    text = MULTIGET.replace("multiread_stride = [0, 16]\n", "").replace(
        "num = 2000", "num = 2000\nmultiread_stride = [256, 4096]").replace(
        "multiread_batched = [true, false]", "multiread_batched = [false]")
    run = expand(load_config(write_config(text)), {}, "b")[0]
    argv = worker_argv(run.worker, Path("/B"), run.spec, run.params, run.seed, None)
    assert "--multiread_stride=256,4096" in argv and "--multiread_batched=false" in argv
    text = MULTIGET.replace("multiread_stride = [0, 16]\n", "").replace("num = 2000", "num = 2000\nmultiread_stride = 7")
    run = expand(load_config(write_config(text)), {}, "b")[0]
    assert "--multiread_stride=7" in worker_argv(run.worker, Path("/B"), run.spec, run.params, run.seed, None)


def test_allocation_lists_are_passed_whole_to_one_run():
    """engine_allocation: one lsmbench run per (size ratio, levels) fills a tree and measures
    every (budget, policy) pair on it; the sim lsm sweep still expands its grid."""
    runs = expand(load_config(ROOT / "experiments" / "engine_allocation.toml"), {}, "b")
    engine = [r for r in runs if r.worker.name == "lsmbench"]
    assert len(engine) == 2 * 2 and len(runs) == 2 * 2 + 2 * 2
    argv = worker_argv(engine[0].worker, Path("/B"), engine[0].spec, engine[0].params, engine[0].seed, None)
    assert "--filter_policy=uniform,monkey,no_last_level,optimal" in argv
    assert "--filter_budget_bpk=2,3,5,8,12,16" in argv
    assert "--level_multiplier=10" in argv, "T = 10 (the issue's target) runs first"
    assert engine[0].params["filter_policy"] == ["uniform", "monkey", "no_last_level", "optimal"]


def test_multiread_list_entries_are_checked_by_lsmbench(write_config, checked_lsm_build):
    msg = only(problems_of(write_config(MULTIGET.replace("[true, false]", '[true, "maybe"]')), checked_lsm_build))
    assert "sweep 'multiget': run multiget lsmbench fastlocal:bpk=10" in msg
    assert "lsmbench rejects it: " in msg and "maybe" in msg
    msg = only(problems_of(write_config(MULTIGET.replace("[0, 16]", "[0, -16]")), checked_lsm_build))
    assert "lsmbench rejects it: " in msg and "-16" in msg


def test_list_entries_are_checked_before_the_worker(write_config):
    msg = only(problems_of(write_config(MULTIGET.replace("[0, 16]", "[16, 16]"))))
    assert "grid.multiread_stride: lists 16 twice; each value once" in msg
    # Keys that are not collapsed still take one value in fixed.
    msg = only(problems_of(write_config(MULTIGET.replace("num = 2000", "num = [1000, 2000]"))))
    assert "fixed.num: got [1000, 2000] (list); allowed: an integer in 1..10000000000" in msg


def test_multiread_passes_of_one_run_become_rows_of_their_own(write_config, tmp_path, checked_lsm_build):
    """Through the runner with the real lsmbench: each run stores one multireadrandom
    record per (stride, batched) pair, whose fields (not the run's comma-joined
    parameters) the MultiGet summary reads."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {"FILTERLAB_BUILD": str(checked_lsm_build), "FILTERLAB_SCRATCH": str(scratch)}
    out = run_cli("run", write_config(MULTIGET), "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 0, out.stderr
    assert "4 runs" in out.stderr
    assert list(scratch.iterdir()) == [], "scratch databases outlive their runs"
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
    assert (s["speedup"] > 0).all()


def test_binary_in_engine_subdirectory_or_at_the_top(tmp_path):
    assert WORKERS["lsmbench"].path(tmp_path) == tmp_path / "engine" / "lsmbench"  # named when missing
    (tmp_path / "lsmbench").touch()
    assert WORKERS["lsmbench"].path(tmp_path) == tmp_path / "lsmbench"
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "lsmbench").touch()
    assert WORKERS["lsmbench"].path(tmp_path) == tmp_path / "engine" / "lsmbench"


def test_records_on_stdout_and_scratch_removed(tmp_path, monkeypatch, lsm_build):
    """The real lsmbench: JSON records on stdout (its db_bench lines go to stderr), in a
    fresh scratch database that is gone when the run ends."""
    monkeypatch.setenv("FILTERLAB_SCRATCH", str(tmp_path))
    argv = [str(lsm_build / "engine" / "lsmbench"), "--benchmarks=fillrandom,readrandom", "--num=2000"]
    out = execute_argv(argv, scratch_flag="db")
    assert out["ok"], out["stderr"]
    assert [r["benchmark"] for r in out["records"]] == ["fillrandom", "readrandom"]
    assert "micros/op" in out["stderr"]
    db = out["argv"][-1]
    assert db.startswith(f"--db={tmp_path}/filterlab-run-") and db.endswith("/db")
    assert list(tmp_path.iterdir()) == [], "the scratch directory outlives the run"


@pytest.mark.parametrize("stdout, bad_line", [
    ('echo "readrandom : 1.0 micros/op"\necho \'{"benchmark": "readrandom"}\'', "readrandom : 1.0 micros/op"),
    ('echo \'{"benchmark": "readrandom", \'', '{"benchmark": "readrandom",'),
], ids=["text", "broken_json"])
def test_stdout_other_than_json_lines_fails_the_run(tmp_path, stdout, bad_line):
    script = tmp_path / "w"
    script.write_text(f"#!/bin/sh\n{stdout}\n")
    script.chmod(0o755)
    out = execute_argv([str(script)])
    assert not out["ok"] and f"non-JSON output line: {bad_line!r}" in out["stderr"]


def test_unexecutable_worker_is_a_failed_run(tmp_path):
    script = tmp_path / "w"
    script.write_text("#!/bin/sh\necho '{}'\n")  # not executable (a binary being relinked looks alike)
    out = execute_argv([str(script)])
    assert not out["ok"] and out["returncode"] == 126 and "cannot execute" in out["stderr"]


def test_exclusive_run_waits_for_the_machine_lock(tmp_path, monkeypatch):
    lock = tmp_path / "machine.lock"
    monkeypatch.setenv("FILTERLAB_MACHINE_LOCK", str(lock))
    script = tmp_path / "w"
    script.write_text("#!/bin/sh\necho '{\"ok\": 1}'\n")
    script.chmod(0o755)
    held = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)  # another benchmark has the machine
    outcomes = []
    runner = threading.Thread(target=lambda: outcomes.append(execute_argv([str(script)], exclusive=True)))
    runner.start()
    runner.join(timeout=1.0)
    assert runner.is_alive() and not outcomes, "the exclusive run started while the lock was held"
    assert execute_argv([str(script)])["ok"]  # a shared run does not wait
    os.close(held)
    runner.join(timeout=30)
    assert outcomes and outcomes[0]["ok"] and outcomes[0]["records"] == [{"ok": 1}]


def test_unknown_parameter_lists_the_allowed_ones(write_config, lsm_build):
    msg = only(problems_of(write_config(HASH.replace("num = 2000", "num = 2000\nuse_existing_db = true"))))
    assert "sweep[0] ('hash').fixed.use_existing_db: unknown key; allowed: " in msg
    allowed = msg.split("allowed: ")[1].split(", ")
    declared = [f.name for f in WORKERS["lsmbench"].with_flags(lsm_build).flags.values()]
    # Every flag lsmbench declares but those the runner owns (lsmbench's --threads is the config's), then
    # the spec parameters.
    owned = {"filter", "seed", "db", "use_existing_db", "keep_db"}
    assert allowed == [f for f in declared if f not in owned] + ["bpk", "probes", "hash"]


def test_unknown_engine_is_refused_early(write_config):
    msg = only(problems_of(write_config(HASH.replace('"rocksdb"]', '"nosuchdb"]'))))
    assert "grid.engine: got 'nosuchdb' (str); allowed: one of filterlab|memtable|rocksdb|leveldb" in msg


def test_benchmarks_are_checked_against_lsmbench_choices(write_config, checked_lsm_build):
    msg = only(problems_of(write_config(HASH.replace("fillrandom,readrandom", "fillrandom,readrandm"))))
    assert "fixed.benchmarks: got 'fillrandom,readrandm,readmissing' (str); allowed: a string or a list of " \
           "strings: entries from fillseq, fillrandom, " in msg
    # lsmbench allows a benchmark twice (a cold and a warm pass), so the runner does too.
    text = HASH.replace("fillrandom,readrandom,readmissing", "fillrandom,readrandom,readrandom")
    assert plan_of(write_config(text), checked_lsm_build).runs


def test_rocksdb_refuses_a_memtable_filter_as_its_table_filter(write_config, checked_lsm_build):
    # Any static filter runs on RocksDB (its own policies or filterlab's adapter); a dynamic
    # (memtable) filter builds no table filter, and lsmbench's --check says so.
    msg = only(problems_of(write_config(HASH.replace('["fastlocal"]', '["fastlocal", "dynamic"]')), checked_lsm_build))
    assert "run hash lsmbench dynamic:bpk=10 " in msg and "engine=rocksdb" in msg
    assert "lsmbench rejects it: " in msg and "memtable filter" in msg


def test_spec_parameter_needs_a_filter(write_config):
    msg = only(problems_of(write_config(HASH.replace('filter = ["fastlocal"]\n', ""))))
    assert "sweep[0] ('hash').fixed.bpk: is a filter spec parameter but the sweep names no filter" in msg


def test_none_is_not_a_filter_for_the_sim(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace('"standard"', '"none"'))))
    assert "'none' (no filter) is for lsmbench only; worker 'sim fp' needs a filter" in msg


def test_memtable_filter_spec_is_checked_by_lsmbench(write_config, checked_lsm_build):
    text = HASH.replace("num = 2000", 'num = 2000\nmemtable_filter = "bogus:bpk=8"')
    msg = only(problems_of(write_config(text), checked_lsm_build))
    assert "lsmbench rejects it: " in msg and "unknown filter variant 'bogus'" in msg


# A wrapper around the real lsmbench that logs each run (not --describe or
# --check) to $LSM_LOG and, with LSM_NO_ROCKSDB=1, behaves like a build without RocksDB.
NO_ROCKSDB = """
    echo "$*" >> "$LSM_LOG"
    case "$LSM_NO_ROCKSDB: $* " in "1:"*" --engine=rocksdb "*)
      echo "lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB" >&2; exit 2;;
    esac"""


def test_rocksdb_missing_is_reported_once_then_resumed(write_config, tmp_path, checked_lsm_build):
    """A build without RocksDB: the first engine=rocksdb run fails with a hint, the
    others are not started; the filterlab runs are stored; a rerun with RocksDB
    does only the rest and draws the config's plot and table."""
    cfg = write_config(HASH)
    log, scratch = tmp_path / "calls.log", tmp_path / "scratch"
    scratch.mkdir()
    wrapped = wrapped_build(tmp_path, checked_lsm_build, {"engine/lsmbench": NO_ROCKSDB})
    env = {"FILTERLAB_BUILD": str(wrapped), "FILTERLAB_SCRATCH": str(scratch), "LSM_LOG": str(log),
           "LSM_NO_ROCKSDB": "1"}
    out = run_cli("run", cfg, "--jobs", "2", "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 1, out.stderr
    assert "run failed (exit 2): hash lsmbench fastlocal:bpk=10 benchmarks=fillrandom,readrandom,readmissing " \
           "num=2000 engine=rocksdb hash_index=False seed=0" in out.stderr
    assert "| lsmbench: --engine=rocksdb is not available: this lsmbench was built without RocksDB" in out.stderr
    assert "hint: this lsmbench was built without RocksDB: install librocksdb-dev" in out.stderr
    assert out.stderr.count("run skipped: hash lsmbench fastlocal:bpk=10") == 1
    assert "not started: lsmbench has no RocksDB (lsmbench: --engine=rocksdb is not available: this" in out.stderr
    assert "2 run(s) failed" in out.stderr
    assert len(log.read_text().splitlines()) == 3  # 2 filterlab runs and 1 rocksdb run
    assert list(scratch.iterdir()) == []
    table = pd.read_parquet(tmp_path / "r" / "exp" / "results.parquet")
    assert set(table["engine"]) == {"filterlab"} and set(table["benchmark"]) == {"fillrandom", "readrandom",
                                                                                 "readmissing"}
    for col in ("record_index", "micros_per_op", "ops_per_sec", "sst_bytes", "hash_index", "seed", "base_filter"):
        assert col in table, col

    env["LSM_NO_ROCKSDB"] = "0"
    again = run_cli("run", cfg, "--no-plot", "--results", tmp_path / "r", env=env)
    assert again.returncode == 0, again.stderr
    assert "4 runs, 2 already stored, 2 to run" in again.stderr
    plot_dir(tmp_path / "r" / "exp")
    assert (tmp_path / "r" / "exp" / "plots" / "hash_index.png").stat().st_size > 1000
    md = (tmp_path / "r" / "exp" / "tables" / "hash_index.md").read_text()
    assert "| rocksdb | readrandom ops/s |" in md and "| filterlab | readrandom ops/s |" in md


def test_speed_like_workers_never_overlap(write_config, tmp_path, checked_build, checked_lsm_build):
    """sim speed and lsmbench runs with --jobs 2: each holds a lock directory for
    0.2 s and notes when it finds it taken; none ever does."""
    log, lock = tmp_path / "calls.log", tmp_path / "lock"
    hold = f"""
        if mkdir "{lock}" 2>/dev/null; then o=false; else o=true; fi
        echo "$o" >> "{log}"
        sleep 0.2
        [ $o = false ] && rmdir "{lock}"
        """
    # The sim's speed runs are replaced by one fake record: only their scheduling is tested.
    wrapped = wrapped_build(tmp_path, checked_lsm_build, {
        "sim/filterlab-sim": hold + """echo '{"command": "speed", "mode": "single", "net_ns_per_op": 1.0}'; exit 0""",
        "engine/lsmbench": hold})
    cfg = write_config(HASH.replace('engine = ["filterlab", "rocksdb"]', 'engine = ["filterlab"]') + """
[[sweep]]
name = "speed"
worker = "sim speed"
filter = ["fastlocal", "legacy"]
[sweep.fixed]
bpk = 10
quick = true
""")
    env = {"FILTERLAB_BUILD": str(wrapped), "FILTERLAB_SCRATCH": str(tmp_path)}
    out = run_cli("run", cfg, "--jobs", "2", "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 0, out.stderr
    overlaps = log.read_text().split()
    assert overlaps == ["false"] * (2 + 2)


def engine_configs():
    return sorted((ROOT / "experiments").glob("engine_*.toml"))


def test_engine_configs_exist():
    assert {p.stem for p in engine_configs()} >= {"engine_multiget", "engine_hash_index", "engine_memtable_filter",
                                                  "engine_range_estimates", "engine_filters"}


def expected_runs(name: str, build: Path) -> int:
    """Runs of each engine config, counted from its grid by hand (3 repeats each)."""
    if name == "engine_filters":
        # "all" at bpk=10: each example spec without its bpk, once (the variants that take no bpk,
        # XOR and binary fuse, once at their own size); then no filter; then RocksDB with our filters
        # (6 with bpk, XOR and binary fuse, FastLocalBloom through the adapter); then RocksDB's 2.
        answers = check_specs(build, example_specs(build)).values()
        bases = {join(a["variant"], {k: v for k, v in a["params"].items() if k != "bpk"}) for a in answers}
        return 3 * (len(bases) + 1 + 6 + 2 + 1 + 2)
    # engine_allocation: one repeat; lsmbench T x num_levels (policies and budgets are collapsed:
    # one run measures every pair on the tree it filled), then one sim lsm run per (T, levels)
    # drawing the model lines.
    if name.startswith("engine_allocation"):
        return 2 * 2 + 2 * 2
    # engine_block_seek: one gbench run times every block size, index and repetition.
    if name == "engine_block_seek":
        return 1
    # engine_range: the targets at 3 repeats (3 range filters; 2 engines), then one repeat of 8 range
    # filters x 9 range lengths x 2 correlations and of the engine's and RocksDB's prefix Bloom at 9
    # lengths x 2 correlations each.
    if name == "engine_range":
        return 3 * 3 + 3 * 2 + 8 * 9 * 2 + 2 * 9 * 2
    # engine_multiget: strides and batched/Get loop are collapsed, one run measures all 8 pairs.
    return 3 * {"engine_multiget": 2 * 6,  # engines x batch sizes
                "engine_hash_index": 2 * 2 * 2,  # value sizes x engines x off/on
                "engine_hash_util": 2,  # off/on, our engine at util ratio 1
                "engine_memtable_filter": 2 * 2,  # engines x off/on
                "engine_range_estimates": 5 * 2 + 5,  # widths x new/old, RocksDB's (old) per width
                "engine_io": 4 * 3 * 2}[name]  # sweeps (cached, cold x 2 engines) x compression x threads


@pytest.mark.parametrize("path", engine_configs(), ids=lambda p: p.stem)
def test_engine_config_dry_run(path, checked_lsm_build, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("FILTERLAB_BUILD", str(checked_lsm_build))
    assert main(["run", str(path), "--dry-run", "--results", str(tmp_path / "r")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == expected_runs(path.stem, checked_lsm_build)
    # lsmbench runs are speed measurements: each has the machine to itself.
    assert all(line.startswith("alone ") for line in lines if " lsmbench " in line)
    assert not (tmp_path / "r").exists()
