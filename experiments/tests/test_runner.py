"""The runner end to end on tiny sweeps: resume after a kill, failing runs,
Dask LocalCluster against the local pool, and the files it writes."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from .conftest import ROOT, SMALL_FP, run_cli, wrapped_build

# Columns that measure time or depend on the thread count; everything else is
# a deterministic function of the parameters and seed (sim/README.md).
NONDETERMINISTIC = {"seconds", "build_seconds", "query_seconds", "queries_per_s", "query_cpu_seconds",
                    "queries_per_cpu_s", "threads", "schedule"}

SWEEP12 = SMALL_FP.replace("bpk = [6, 10, 14]", "bpk = [5, 6, 7, 8, 9, 10]")


def deterministic(df: pd.DataFrame) -> pd.DataFrame:
    return df[[c for c in df.columns if c not in NONDETERMINISTIC]].reset_index(drop=True)


def test_resume_after_kill_equals_uninterrupted_run(write_config, tmp_path, checked_build):
    """Kill the runner (SIGKILL, nothing to clean up with) while it waits on its
    6th of 12 runs; the 5 finished runs survive, the worker dies with the runner,
    and resuming gives exactly the table of an uninterrupted run."""
    cfg = write_config(SWEEP12)
    block, pid_file = tmp_path / "block", tmp_path / "sleeper.pid"
    # The wrapper hangs on the 6th run (--jobs 1 runs them in plan order) while `block` exists.
    fake = fake_build(tmp_path, checked_build, hang_on="fastlocal:bpk=10", block=block, pid_file=pid_file)
    env = {**os.environ, "FILTERLAB_BUILD": str(fake)}
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    runs_dir = killed / "exp" / "runs"
    block.touch()
    proc = subprocess.Popen([sys.executable, "-m", "experiments", "run", str(cfg), "--jobs", "1", "--no-plot",
                             "--results", str(killed)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not pid_file.exists():
        time.sleep(0.05)
    assert pid_file.exists(), "the runner never reached the 6th run"
    sleeper = int(pid_file.read_text())
    proc.kill()
    proc.wait()
    # PR_SET_PDEATHSIG: the worker does not outlive the runner.
    while time.monotonic() < deadline and Path(f"/proc/{sleeper}").exists() and \
            "Z" not in Path(f"/proc/{sleeper}/stat").read_text().split()[2]:
        time.sleep(0.05)
    assert not Path(f"/proc/{sleeper}").exists() or "Z" in Path(f"/proc/{sleeper}/stat").read_text().split()[2]
    assert len(list(runs_dir.glob("*.json"))) == 5
    assert not (killed / "exp" / "results.parquet").exists()

    block.unlink()
    resumed = run_cli("run", cfg, "--no-plot", "--results", killed, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert "12 runs, 5 already stored, 7 to run" in resumed.stderr
    uninterrupted = run_cli("run", cfg, "--no-plot", "--results", clean, env=env)
    assert uninterrupted.returncode == 0, uninterrupted.stderr

    a = pd.read_parquet(killed / "exp" / "results.parquet")
    b = pd.read_parquet(clean / "exp" / "results.parquet")
    assert len(a) == 12
    pd.testing.assert_frame_equal(deterministic(a), deterministic(b))

    again = run_cli("run", cfg, "--no-plot", "--results", killed, env=env)
    assert "12 already stored, 0 to run" in again.stderr


def fake_build(tmp_path: Path, build: Path, hang_on="-", block=None, pid_file=None) -> Path:
    """A build dir whose filterlab-sim fails for --keys=1313, hangs (while `block`
    exists, writing its pid) for --filter=`hang_on`, and is the real one otherwise."""
    return wrapped_build(tmp_path, build, {"sim/filterlab-sim": f"""
        case " $* " in *" --keys=1313 "*) echo "simulated failure: the worker broke" >&2; exit 3;; esac
        case " $* " in *" --filter={hang_on} "*)
          if [ -e "{block}" ]; then echo $$ > "{pid_file}.tmp"; mv "{pid_file}.tmp" "{pid_file}"; exec sleep 120; fi;;
        esac"""})


def test_failing_run_is_reported_and_the_rest_complete(write_config, tmp_path, checked_build):
    cfg = write_config(SMALL_FP.replace("keys = 2000\n", "").replace("bpk = [6, 10, 14]", "bpk = [8]\nkeys = [1000, 1313]"))
    env = {"FILTERLAB_BUILD": str(fake_build(tmp_path, checked_build))}
    out = run_cli("run", cfg, "--no-plot", "--results", tmp_path / "r", env=env)
    assert out.returncode == 1
    assert "run failed (exit 3): fp sim fp fastlocal:bpk=8 queries=20000 keys=1313 seed=0" in out.stderr
    assert "| simulated failure: the worker broke" in out.stderr
    assert "2 run(s) failed" in out.stderr
    table = pd.read_parquet(tmp_path / "r" / "exp" / "results.parquet")
    assert sorted(table["keys"]) == [1000, 1000]
    meta = json.loads((tmp_path / "r" / "exp" / "meta.json").read_text())
    assert meta["runs"] == {"planned": 4, "reused": 0, "failed": 2}
    assert "simulated failure" in meta["failures"][0]["stderr"]


def test_meta_json_describes_build_machine_and_config(write_config, tmp_path, checked_build):
    cfg = write_config(SMALL_FP)
    out = run_cli("run", cfg, "--no-plot", "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    meta = json.loads((tmp_path / "exp" / "meta.json").read_text())
    for key in ("commit", "date", "build", "machine", "config", "build_ids"):
        assert meta[key], key
    assert meta["machine"]["cores"] == os.cpu_count()
    assert meta["machine"]["cpu"]
    assert "CMAKE_BUILD_TYPE" in meta["build"]["flags"]
    assert meta["config"] == cfg.read_text()
    table = pd.read_parquet(tmp_path / "exp" / "results.parquet")
    # One row per measurement; every parameter is a column.
    assert len(table) == 6
    for col in ("sweep", "base_filter", "bpk", "keys", "queries", "seed", "fp", "ci_low", "ci_high", "model_fp"):
        assert col in table, col


def test_dry_run_lists_runs_and_runs_nothing(write_config, tmp_path, checked_build):
    out = run_cli("run", write_config(SMALL_FP), "--dry-run", "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 6 and all(line.startswith("pending ") for line in lines)
    assert "fp sim fp standard:bpk=14 keys=2000 queries=20000 seed=0" in out.stdout
    assert not (tmp_path / "exp").exists()


def test_sweep_option_runs_one_sweep_and_later_runs_complete_the_table(write_config, tmp_path, checked_build):
    second = SMALL_FP[SMALL_FP.index("[[sweep]]"):].replace('name = "fp"', 'name = "more"').replace(
        "bpk = [6, 10, 14]", "bpk = [8]")
    cfg = write_config(SMALL_FP + "\n" + second)
    dry = run_cli("run", cfg, "--sweep", "more", "--dry-run", "--results", tmp_path)
    assert [line.split()[0] for line in dry.stdout.splitlines()] == ["other"] * 6 + ["pending"] * 2
    out = run_cli("run", cfg, "--sweep", "more", "--no-plot", "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    assert set(pd.read_parquet(tmp_path / "exp" / "results.parquet")["sweep"]) == {"more"}
    out = run_cli("run", cfg, "--no-plot", "--results", tmp_path)
    assert "8 runs, 2 already stored, 6 to run" in out.stderr
    table = pd.read_parquet(tmp_path / "exp" / "results.parquet")
    assert len(table) == 8 and set(table["sweep"]) == {"fp", "more"}
    bad = run_cli("run", cfg, "--sweep", "typo", "--results", tmp_path)
    assert bad.returncode == 2 and "no sweep named 'typo'" in bad.stderr and "allowed: fp, more" in bad.stderr


def test_invalid_config_exits_2_with_messages(write_config, tmp_path):
    out = run_cli("run", write_config(SMALL_FP.replace("bpk = [6, 10, 14]", "bpk = []")), "--results", tmp_path)
    assert out.returncode == 2
    assert "error: " in out.stderr and "grid.bpk: empty grid" in out.stderr


def test_dask_local_cluster_gives_the_same_table(write_config, tmp_path, checked_build):
    distributed = pytest.importorskip("distributed")
    cfg = write_config(SMALL_FP)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        dask_out = run_cli("run", cfg, "--no-plot", "--cluster", cl.scheduler_address, "--results", tmp_path / "d")
    assert dask_out.returncode == 0, dask_out.stderr
    local_out = run_cli("run", cfg, "--no-plot", "--results", tmp_path / "l")
    assert local_out.returncode == 0, local_out.stderr
    a = pd.read_parquet(tmp_path / "d" / "exp" / "results.parquet")
    b = pd.read_parquet(tmp_path / "l" / "exp" / "results.parquet")
    assert len(a) == 6
    pd.testing.assert_frame_equal(deterministic(a), deterministic(b))
