"""The "sim filter_bench" worker (RocksDB's own filter_bench beside "sim speed"):
its sweep is skipped with a note on a machine that was given no filter_bench,
its command line carries speed's parameters, and speed runs of both sweeps
come in interleaved rounds (every sweep's first repeat, then every second)."""

from pathlib import Path

import pytest

from experiments.config import load_config
from experiments.validate import plan
from experiments.workers import worker_argv

pytestmark = pytest.mark.usefixtures("build")

BESIDE = """\
description = "beside"
claim = "none"

[[sweep]]
name = "ours"
worker = "sim speed"
filter = ["legacy:bpk=10", "xor:fingerprint=8"]
repeats = 2
[sweep.fixed]
modes = "build,single,random"
mixes = "mixed"
working_set_mb = 200
queries = 4000000

[[sweep]]
name = "rocksdb"
worker = "sim filter_bench"
filter = ["legacy:bpk=10"]
repeats = 2
[sweep.fixed]
working_set_mb = 200
queries = 4000000
"""

# What filter_bench -quick prints (the lines filterlab-sim reads).
FAKE_OUTPUT = """\
Build avg ns/key: 10.5
Number of filters: 16639
Total size (MB): 200.018
Bits/key stored: 10.0754
  Single filter net ns/op: 9.29
  Random filter net ns/op: 132.0
    Average FP rate %: 1.17
"""


@pytest.fixture
def fake_filter_bench(tmp_path):
    path = tmp_path / "filter_bench"
    path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{FAKE_OUTPUT}EOF\n")
    path.chmod(0o755)
    return path


def test_peer_sweep_is_skipped_with_a_note_without_filter_bench(write_config, checked_build, monkeypatch):
    monkeypatch.delenv("FILTERLAB_FILTER_BENCH", raising=False)
    p = plan(load_config(write_config(BESIDE)), checked_build)
    assert {r.sweep for r in p.runs} == {"ours"}
    assert any("sweep 'rocksdb' skipped" in n and "FILTERLAB_FILTER_BENCH" in n for n in p.notes), p.notes


def test_peer_runs_interleave_with_ours_repeat_by_repeat(write_config, checked_build, monkeypatch,
                                                         fake_filter_bench):
    monkeypatch.setenv("FILTERLAB_FILTER_BENCH", str(fake_filter_bench))
    p = plan(load_config(write_config(BESIDE)), checked_build)
    assert [(r.seed, r.sweep, r.spec) for r in p.runs] == [
        (0, "ours", "legacy:bpk=10"), (0, "ours", "xor:fingerprint=8"), (0, "rocksdb", "legacy:bpk=10"),
        (1, "ours", "legacy:bpk=10"), (1, "ours", "xor:fingerprint=8"), (1, "rocksdb", "legacy:bpk=10")]
    peer = next(r for r in p.runs if r.sweep == "rocksdb")
    assert peer.exclusive
    assert worker_argv(peer.worker, Path("/B"), peer.spec, peer.params, peer.seed, None) == [
        "/B/sim/filterlab-sim", "filter_bench", "--filter=legacy:bpk=10", "--working_set_mb=200",
        "--queries=4000000", "--seed=0"]


def test_a_filter_rocksdb_lacks_is_refused_by_the_check(write_config, checked_build, monkeypatch,
                                                        fake_filter_bench):
    from experiments.config import ConfigError
    monkeypatch.setenv("FILTERLAB_FILTER_BENCH", str(fake_filter_bench))
    text = BESIDE.replace('filter = ["legacy:bpk=10"]\nrepeats', 'filter = ["xor:fingerprint=8"]\nrepeats')
    with pytest.raises(ConfigError) as e:
        plan(load_config(write_config(text)), checked_build)
    assert any("no xor filter" in m for m in e.value.problems), e.value.problems
