"""The "sim speed" worker through the runner: random_pipelined among the modes,
pipeline_depth (a value, or a list passed whole to one run, which writes one
record per depth), query_path, and the command lines they give; its flags are
the ones `filterlab-sim speed --describe` declares."""

import json
import subprocess
from pathlib import Path

import pytest

from experiments.config import ConfigError, load_config
from experiments.grid import expand
from experiments.store import run_columns
from experiments.validate import plan
from experiments.workers import WORKERS, worker_argv

pytestmark = pytest.mark.usefixtures("build")

SPEED = """\
description = "speed"
claim = "none"
tables = ["speed"]

[[sweep]]
name = "speed"
worker = "sim speed"
filter = ["fastlocal", "legacy"]
repeats = 3
[sweep.fixed]
bpk = 10
modes = "build,single,random,random_pipelined"
mixes = ["inside", "outside", "mixed"]
queries = 4000000
{extra}
"""


def load(write_config, extra=""):
    return load_config(write_config(SPEED.format(extra=extra)))


def problems(write_config, extra, build=None):
    with pytest.raises(ConfigError) as e:
        plan(load(write_config, extra), build or Path("/nonexistent"))
    return e.value.problems


def argv_of(run):
    return worker_argv(run.worker, Path("/B"), run.spec, run.params, run.seed, None)


def test_random_pipelined_mode_and_one_depth(write_config):
    runs = expand(load(write_config, "pipeline_depth = 32\nquery_path = \"object\""), {}, "b")
    assert len(runs) == 2 * 3
    assert argv_of(runs[0]) == ["/B/sim/filterlab-sim", "speed", "--filter=fastlocal:bpk=10",
                                "--modes=build,single,random,random_pipelined", "--mixes=inside,outside,mixed",
                                "--queries=4000000", "--pipeline_depth=32", "--query_path=object", "--seed=0"]


def test_several_depths_go_to_one_run(write_config):
    runs = expand(load(write_config, "pipeline_depth = [8, 16, 64]"), {}, "b")
    assert len(runs) == 2 * 3  # not x3: the sim measures every depth in one run
    assert runs[0].params["pipeline_depth"] == [8, 16, 64]
    assert argv_of(runs[0])[-2:] == ["--pipeline_depth=8,16,64", "--seed=0"]
    assert run_columns(runs[0])["pipeline_depth"] == "8,16,64"  # the records' pipeline_depth refines it


def test_depths_in_the_grid_are_collapsed_too(write_config):
    text = SPEED.format(extra="") + "[sweep.grid]\npipeline_depth = [4, 32]\n"
    runs = expand(load_config(write_config(text)), {}, "b")
    assert len(runs) == 2 * 3 and "--pipeline_depth=4,32" in argv_of(runs[0])


@pytest.mark.parametrize("value", ["12", "[8, 12]", '"8,12"'])
def test_bad_pipeline_depth_is_refused_by_the_sim(write_config, value, checked_build):
    """The sim's --check refuses the depth; the runner names the config, sweep, run and the sim's reason."""
    probs = problems(write_config, f"pipeline_depth = {value}", checked_build)
    assert len(probs) == 1, probs
    assert "exp.toml: sweep 'speed': run speed sim speed fastlocal:bpk=10" in probs[0]
    assert "(and 5 more run(s) of this sweep): sim speed rejects it: " in probs[0]
    assert "pipeline_depth" in probs[0] and "12" in probs[0]


def test_bad_mode_is_refused_with_the_sims_choices(write_config):
    text = SPEED.format(extra="").replace("build,single,random,random_pipelined", "build,pipelined")
    with pytest.raises(ConfigError) as e:
        load_config(write_config(text))
    assert "fixed.modes: got 'build,pipelined' (str); allowed: a string or a list of strings: distinct entries " \
           "from build, single, random, random_pipelined, batched, skewed, huge" in e.value.problems[0]


def test_flags_are_the_sims(build):
    """The runner's speed worker takes exactly the flags `filterlab-sim speed --describe` declares."""
    out = subprocess.run([str(build / "sim" / "filterlab-sim"), "speed", "--describe"], capture_output=True,
                         text=True, timeout=60)
    declared = {f["name"] for f in json.loads(out.stdout)["flags"]}
    worker = WORKERS["sim speed"].with_flags(build)
    assert set(worker.flags) == declared
    assert set(worker.settable) == declared - {"filter", "seed", "threads"}


def test_rounds_go_to_the_sim_and_are_checked(write_config):
    runs = expand(load(write_config, "rounds = 7"), {}, "b")
    assert "--rounds=7" in argv_of(runs[0])
    with pytest.raises(ConfigError) as e:
        load(write_config, "rounds = 0")
    assert "fixed.rounds: got 0 (int); allowed: an integer in 1..100" in e.value.problems[0]
