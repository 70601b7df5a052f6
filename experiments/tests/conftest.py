"""Shared fixtures: the build the runner uses (FILTERLAB_BUILD or build/), and
writing small configs into a temporary directory."""

import os
import textwrap
from pathlib import Path

import pytest

from experiments.workers import build_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def build():
    b = build_dir()
    if not (b / "sim" / "filterlab-sim").exists():
        pytest.skip(f"no filterlab-sim in {b} (build it, or set FILTERLAB_BUILD)")
    return b


@pytest.fixture
def write_config(tmp_path):
    def write(text: str, name: str = "exp.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return path

    return write


# A small, valid FP sweep the tests vary.
SMALL_FP = """\
description = "test sweep"
claim = "none"
plots = ["fp_vs_bits"]
tables = ["fp"]

[[sweep]]
name = "fp"
worker = "sim fp"
filter = ["fastlocal", "standard"]
[sweep.fixed]
keys = 2000
queries = 20000
[sweep.grid]
bpk = [6, 10, 14]
"""


def run_cli(*args, env=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "experiments", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


FAKE_LSMBENCH = Path(__file__).resolve().parent / "fake_lsmbench.py"


def make_fake_build(root: Path, build: Path | None) -> Path:
    """A build dir whose lsmbench is tests/fake_lsmbench.py, with the real
    filterlab-tool (the registry) and filterlab-sim linked in when they exist."""
    import sys

    fake = root / "fakebuild"
    (fake / "sim").mkdir(parents=True)
    if build is not None:
        for rel in ("filterlab-tool", "sim/filterlab-sim"):
            if (build / rel).exists():
                (fake / rel).symlink_to(build / rel)
    lsm = fake / "lsmbench"
    lsm.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_LSMBENCH}" "$@"\n')
    lsm.chmod(0o755)
    return fake


@pytest.fixture
def lsmbench_build(tmp_path):
    """make_fake_build for tests that need the registry (filterlab-tool check-spec)."""
    b = build_dir()
    if not (b / "filterlab-tool").exists():
        pytest.skip(f"no filterlab-tool in {b} (build it, or set FILTERLAB_BUILD)")
    return make_fake_build(tmp_path, b)
