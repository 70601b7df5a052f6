"""filterlab.sim runs the simulator's commands in-process: the same records as
`filterlab-sim COMMAND`'s JSON lines for the same flags, as DataFrames."""

import json

import pandas as pd
import pytest

import filterlab

from .conftest import cli

# Time and thread-dependent fields (sim/README.md); the rest is a function of flags and seed.
TIMED = {"build_seconds", "query_seconds", "query_cpu_seconds", "seconds", "queries_per_s", "queries_per_cpu_s",
         "threads", "schedule"}


def cli_records(build, command, flags):
    out = cli(build, "sim/filterlab-sim", command, *filterlab.sim.command_line(command, flags))
    return pd.DataFrame([json.loads(line) for line in out.stdout.splitlines()])


@pytest.mark.parametrize("command, flags", [
    ("fp", {"filter": ["fastlocal:bpk=10", "binary_fuse:arity=4"], "keys": 20000, "queries": 200000, "seed": 3,
            "filters": 2}),
    ("fp", {"filter": "ribbon:bpk=8", "keys": 1e4, "queries": 1e5, "hash_source": "keys"}),
    ("model", {"filter": ["fastlocal:bpk=10", "standard:bpk=10"], "bpk": "6,10,16", "keys": "1e4,1e6"}),
])
def test_records_equal_the_command_lines(build, command, flags):
    ours = filterlab.sim.run(command, **flags)
    theirs = cli_records(build, command, flags)
    assert list(ours.columns) == list(theirs.columns)
    keep = [c for c in ours.columns if c not in TIMED]
    pd.testing.assert_frame_equal(ours[keep], theirs[keep])
    assert len(ours) >= 1


def test_speed_records_have_the_declared_fields():
    df = filterlab.sim.speed(filter="fastlocal:bpk=10", modes="build,single", queries=20000, average_keys=2000,
                             working_set_mb=1, rounds=1, no_floor=True)
    declared = [f["name"] for f in filterlab.sim.describe("speed")["fields"]]
    assert set(df.columns) <= set(declared)
    assert set(df["mode"]) == {"build", "single"}


def test_flags_render_as_the_command_line_takes_them():
    argv = filterlab.sim.command_line("fp", {"filter": ["a", "b"], "keys": 1e6, "vary_ratio": 0.5, "seed": None})
    assert argv == ["--filter=a", "--filter=b", "--keys=1000000", "--vary_ratio=0.5"]
    assert filterlab.sim.command_line("speed", {"modes": ["build", "single"], "no_floor": False}) == [
        "--modes=build,single", "--no_floor=false"]


def test_docstrings_list_every_flag_and_field():
    for command in filterlab.sim.COMMANDS:
        doc = getattr(filterlab.sim, command).__doc__
        d = filterlab.sim.describe(command)
        for f in d["flags"] + d["fields"]:
            assert f"    {f['name']} (" in doc, (command, f["name"])


def test_model_gives_a_row_per_point():
    df = filterlab.sim.model(filter="fastlocal:bpk=10", keys="1000")
    assert len(df) == 1 and "model_fp" in df


def test_commands_are_the_simulators(build):
    """Every filterlab-sim command is reachable from Python, and no other."""
    listed = cli(build, "sim/filterlab-sim", "--help").stdout
    names = [line.split()[0] for line in listed.split("commands:\n")[1].splitlines() if line.startswith("  ")]
    assert sorted(filterlab.sim.COMMANDS) == sorted(names)


def test_rangefp_gives_grafite_within_its_bound():
    df = filterlab.sim.rangefp(filter="grafite:bpk=12", keys=2000, queries=2000, range_log2="4")
    assert len(df) == 1 and bool(df["within_model"].iloc[0])
