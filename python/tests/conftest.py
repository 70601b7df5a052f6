"""Shared fixtures of the `filterlab` module's tests: the command-line binaries
the module is compared with (FILTERLAB_BUILD or build/), and the registry's
example specs."""

import json
import subprocess

import pytest

import filterlab
from experiments.workers import ROOT, build_dir


@pytest.fixture(scope="session")
def build():
    b = build_dir()
    for rel in ("sim/filterlab-sim", "filterlab-tool"):
        if not (b / rel).exists():
            pytest.skip(f"no {rel} in {b} (build it, or set FILTERLAB_BUILD)")
    return b


def cli(build, *argv, check=True):
    """Runs build/ARGV[0] with the rest; returns the CompletedProcess."""
    out = subprocess.run([str(build / argv[0]), *map(str, argv[1:])], capture_output=True, text=True, timeout=300)
    if check:
        assert out.returncode == 0, out.stderr
    return out


@pytest.fixture(scope="session")
def check_spec_records(build):
    """filterlab-tool check-spec --json --examples: one record per example spec."""
    out = cli(build, "filterlab-tool", "check-spec", "--json", "--examples")
    return [json.loads(line) for line in out.stdout.splitlines()]


EXAMPLES = [e for v in filterlab.filters()["examples"] for e in v]
