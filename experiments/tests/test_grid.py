"""Grid expansion: lists, linear and log ranges, products, seeds, run keys."""

from pathlib import Path

import pytest

from experiments.config import load_config
from experiments.grid import expand
from experiments.workers import worker_argv

# Loading a config reads the workers' flags from the build's binaries.
pytestmark = pytest.mark.usefixtures("build")

BASE = """\
description = "grid"
claim = "none"
[[sweep]]
name = "s"
worker = "{worker}"
filter = ["fastlocal", "legacy"]
{extra}
[sweep.grid]
{grid}
"""


def cfg(write_config, grid, worker="sim fp", extra=""):
    return load_config(write_config(BASE.format(worker=worker, grid=grid, extra=extra)))


def test_log_range_keys_1e3_to_1e9(write_config):
    c = cfg(write_config, "keys = {from = 1e3, to = 1e9, per_decade = 1}")
    assert c.sweeps[0].grid["keys"] == [10**3, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9]
    assert all(isinstance(k, int) for k in c.sweeps[0].grid["keys"])


def test_log_range_three_per_decade_rounds_to_integers(write_config):
    c = cfg(write_config, "keys = {from = 1000, to = 10000, per_decade = 3}")
    assert c.sweeps[0].grid["keys"] == [1000, 2154, 4642, 10000]


def test_log_range_from_a_rounded_half_decade_reaches_to(write_config):
    # 3162278 is 10^6.5 rounded; the range must still end at exactly 10^9.
    c = cfg(write_config, "keys = {from = 3162278, to = 1e9, per_decade = 2}")
    assert c.sweeps[0].grid["keys"] == [3162278, 10000001, 31622780, 100000011, 316227800, 10**9]


def test_count_range_log_and_linear(write_config):
    c = cfg(write_config, "keys = {from = 100, to = 10000, count = 3, log = true}\n"
                          "bpk = {from = 4, to = 5, count = 3}")
    assert c.sweeps[0].grid["keys"] == [100, 1000, 10000]
    assert c.sweeps[0].grid["bpk"] == [4.0, 4.5, 5.0]


def test_linear_range_inclusive_and_fractional_step(write_config):
    c = cfg(write_config, "bpk = {from = 6, to = 7, step = 0.1}")
    assert c.sweeps[0].grid["bpk"] == [6.0, 6.1, 6.2, 6.3, 6.4, 6.5, 6.6, 6.7, 6.8, 6.9, 7.0]


def test_product_of_filters_grid_and_seeds(write_config):
    c = cfg(write_config, "bpk = [8, 10]\nkeys = [100, 1000, 10000]", extra="repeats = 2\n[sweep.fixed]\nqueries = 5000")
    runs = expand(c, {}, "build-a")
    assert len(runs) == 2 * 2 * 3 * 2
    assert {r.seed for r in runs} == {0, 1}
    first = runs[0]
    assert first.spec == "fastlocal:bpk=8"
    assert first.params == {"queries": 5000, "bpk": 8, "keys": 100}
    assert len({r.key for r in runs}) == len(runs)


def test_run_key_depends_on_params_and_build_only(write_config):
    c = cfg(write_config, "bpk = [8, 10]")
    a, b = expand(c, {}, "build-a"), expand(c, {}, "build-a")
    assert [r.key for r in a] == [r.key for r in b]
    other = expand(c, {}, "build-b")
    assert not {r.key for r in a} & {r.key for r in other}


def test_argv_of_fp_run(write_config):
    c = cfg(write_config, "bpk = [9.5]\nhash_source = [\"keys\"]", extra="[sweep.fixed]\nkeys = 1e6")
    run = expand(c, {}, "b")[0]
    argv = worker_argv(run.worker, Path("/B"), run.spec, run.params, run.seed, threads=1)
    assert argv == ["/B/sim/filterlab-sim", "fp", "--filter=fastlocal:bpk=9.5", "--keys=1000000",
                    "--hash_source=keys", "--seed=0", "--threads=1"]


def test_probes_worker_takes_the_whole_bpk_list_in_one_run(write_config):
    c = cfg(write_config, "bpk = {from = 4, to = 6, step = 1}", worker="sim probes",
            extra="[sweep.fixed]\nkeys = 1000\nno_boundaries = true")
    runs = expand(c, {}, "b")
    assert len(runs) == 2
    argv = worker_argv(runs[0].worker, Path("/B"), runs[0].spec, runs[0].params, 0, threads=None)
    assert argv == ["/B/sim/filterlab-sim", "probes", "--filter=fastlocal", "--keys=1000", "--no_boundaries=true",
                    "--bpk=4,5,6", "--seed=0"]


def test_speed_sweeps_run_repeat_major_and_fp_sweeps_keep_repeats_together(write_config):
    speed = expand(cfg(write_config, "bpk = [8, 10]", worker="sim speed", extra="repeats = 3"), {}, "b")
    configs = [r.spec for r in speed if r.seed == 0]
    assert len(configs) == len(speed) // 3 >= 2
    # Every configuration's first repeat, then every second, then every third.
    assert [(r.seed, r.spec) for r in speed] == [(s, c) for s in (0, 1, 2) for c in configs]
    fp = expand(cfg(write_config, "bpk = [8, 10]", extra="repeats = 3"), {}, "b")
    assert [(r.seed, r.spec) for r in fp] == [(s, c) for c in configs for s in (0, 1, 2)]
