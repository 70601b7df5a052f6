"""The "sim speed" worker's flags: random_pipelined among the modes, pipeline_depth
(one of 4, 8, 16, 32, 64, or a list of them passed whole to one run, which writes
one record per depth), query_path, and the command lines they give. The flags
are checked against `filterlab-sim speed --help` where the build has the sim."""

import subprocess
from pathlib import Path

import pytest

from experiments.config import ConfigError, load_config
from experiments.grid import expand
from experiments.store import run_columns
from experiments.workers import WORKERS, worker_argv

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


def problems(write_config, extra):
    with pytest.raises(ConfigError) as e:
        load(write_config, extra)
    return e.value.problems


def argv_of(run):
    return worker_argv(run.worker, Path("/B"), run.base_filter, run.params, run.seed, None)


def test_random_pipelined_mode_and_one_depth(write_config):
    runs = expand(load(write_config, "pipeline_depth = 32\nquery_path = \"object\""), {}, "b")
    assert len(runs) == 2 * 3
    assert argv_of(runs[0]) == ["/B/sim/filterlab-sim", "speed", "--filter", "fastlocal:bpk=10", "--modes",
                                "build,single,random,random_pipelined", "--mixes", "inside,outside,mixed",
                                "--queries", "4000000", "--pipeline_depth", "32", "--query_path", "object",
                                "--seed", "0"]


def test_several_depths_go_to_one_run(write_config):
    runs = expand(load(write_config, "pipeline_depth = [8, 16, 64]"), {}, "b")
    assert len(runs) == 2 * 3  # not x3: the sim measures every depth in one run
    assert runs[0].params["pipeline_depth"] == [8, 16, 64]
    assert argv_of(runs[0])[-4:] == ["--pipeline_depth", "8,16,64", "--seed", "0"]
    assert run_columns(runs[0])["pipeline_depth"] == "8,16,64"  # the records' pipeline_depth refines it


def test_depths_in_the_grid_are_collapsed_too(write_config):
    text = SPEED.format(extra="") + "[sweep.grid]\npipeline_depth = [4, 32]\n"
    runs = expand(load_config(write_config(text)), {}, "b")
    assert len(runs) == 2 * 3 and "--pipeline_depth" in argv_of(runs[0])
    assert argv_of(runs[0])[argv_of(runs[0]).index("--pipeline_depth") + 1] == "4,32"


@pytest.mark.parametrize("value, got", [("12", "12 (int)"), ("[8, 12]", "12 (int)"), ('"8,16"', "'8,16' (str)"),
                                        ("16.0", "16.0 (float)")])
def test_bad_pipeline_depth_names_the_key_and_what_is_allowed(write_config, value, got):
    probs = problems(write_config, f"pipeline_depth = {value}")
    assert len(probs) == 1, probs
    assert "exp.toml: sweep[0] ('speed').fixed.pipeline_depth: got " + got in probs[0]
    assert "allowed: one of 4|8|16|32|64, or a list of them" in probs[0]


def test_bad_mode_lists_random_pipelined_among_the_allowed(write_config):
    text = SPEED.format(extra="").replace("build,single,random,random_pipelined", "build,pipelined")
    with pytest.raises(ConfigError) as e:
        load_config(write_config(text))
    msg = e.value.problems[0]
    assert "fixed.modes: got 'build,pipelined' (str)" in msg
    assert "from build, single, random, random_pipelined, batched, skewed, huge" in msg


def test_repeated_depth_is_refused(write_config):
    probs = problems(write_config, "pipeline_depth = [16, 16]")
    assert "fixed.pipeline_depth: lists 16 twice; each value once" in probs[0]


def test_flags_match_the_sims_help(build):
    """Every flag the runner can send is one `filterlab-sim speed --help` lists, and the
    allowed modes and depths are the sim's."""
    out = subprocess.run([str(build / "sim" / "filterlab-sim"), "speed", "--help"], capture_output=True,
                         text=True, timeout=60)
    text = out.stdout + out.stderr
    worker = WORKERS["sim speed"]
    for key in worker.flags:
        assert "--" + key + " " in text or "--" + key + "\n" in text, key
    assert "build,single,random,random_pipelined,batched,skewed,huge" in text
    assert worker.flags["modes"].choices == ("build", "single", "random", "random_pipelined", "batched", "skewed",
                                             "huge")
    assert "a list of 4, 8, 16, 32, 64" in text
    assert worker.flags["pipeline_depth"].choices == (4, 8, 16, 32, 64)


def test_rounds_go_to_the_sim_and_are_checked(write_config):
    runs = expand(load(write_config, "rounds = 7"), {}, "b")
    argv = argv_of(runs[0])
    assert argv[argv.index("--rounds") + 1] == "7"
    found = " ".join(problems(write_config, "rounds = 0"))
    assert "rounds" in found and "1" in found and "100" in found
