"""Shared fixtures: the build the runner uses (FILTERLAB_BUILD or build/), its
workers' --check support, wrappers around the real binaries for the tests
that inject failures, and writing small configs into a temporary directory."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from experiments.workers import build_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def build():
    b = build_dir()
    for rel in ("sim/filterlab-sim", "filterlab-tool"):
        if not (b / rel).exists():
            pytest.skip(f"no {rel} in {b} (build it, or set FILTERLAB_BUILD)")
    return b


@pytest.fixture(scope="session")
def lsm_build(build):
    if not (build / "engine" / "lsmbench").exists():
        pytest.skip(f"no engine/lsmbench in {build} (build it, or set FILTERLAB_BUILD)")
    return build


def check_unhonored(argv: list[str]) -> str | None:
    """Why `argv --check` shows that the worker does not honor --check (it must
    return 0 at once, printing nothing), or None if it does. argv describes a run
    far too long to finish within the timeout, so a worker that runs it is caught."""
    try:
        out = subprocess.run([*argv, "--check"], capture_output=True, text=True, timeout=5)
    except subprocess.TimeoutExpired:
        return f"{Path(argv[0]).name} ran instead of checking (--check not yet honored in this build)"
    if out.returncode != 0 or out.stdout:
        return (f"{Path(argv[0]).name} --check exited {out.returncode} printing {len(out.stdout)} bytes on stdout "
                f"(--check not yet honored in this build): {out.stderr.strip()[:200]}")
    return None


@pytest.fixture(scope="session")
def checked_build(build):
    """The build, if its filterlab-sim honors --check (validation runs every run's --check)."""
    why = check_unhonored([str(build / "sim" / "filterlab-sim"), "fp", "--filter=fastlocal:bpk=10", "--keys=1000",
                           "--queries=1e15"])
    if why:
        pytest.skip(why)
    return build


@pytest.fixture(scope="session")
def checked_lsm_build(lsm_build, tmp_path_factory):
    """The build, if its lsmbench honors --check."""
    db = tmp_path_factory.mktemp("check") / "db"
    why = check_unhonored([str(lsm_build / "engine" / "lsmbench"), "--benchmarks=fillrandom", "--num=1e10",
                           f"--db={db}"])
    if why:
        pytest.skip(why)
    return lsm_build


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
    return subprocess.run([sys.executable, "-m", "experiments", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def wrapped_build(root: Path, build: Path, wrappers: dict[str, str]) -> Path:
    """A build dir at root/wrapped whose binaries are the real ones, except that
    each `wrappers` entry (path relative to the build, e.g. "sim/filterlab-sim")
    is a shell script: its text runs first (for failure injection) and then execs
    the real binary. --describe and --check always reach the real binary, so the
    runner sees the real contract; CMakeCache.txt is linked so the run's meta
    describes the build."""
    wrapped = root / "wrapped"
    for rel in ("filterlab-tool", "sim/filterlab-sim", "engine/lsmbench", "CMakeCache.txt"):
        if not (build / rel).exists():
            continue
        (wrapped / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel not in wrappers:
            (wrapped / rel).symlink_to(build / rel)
            continue
        (wrapped / rel).write_text(f"""#!/bin/sh
case " $* " in *" --describe "*|*" --check "*) exec "{build / rel}" "$@";; esac
{textwrap.dedent(wrappers[rel])}
exec "{build / rel}" "$@"
""")
        (wrapped / rel).chmod(0o755)
    return wrapped
