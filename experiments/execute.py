"""Executing runs: a local pool of worker processes (default) or a Dask
distributed cluster (--cluster). Runs that must have the machine to
themselves (speed, or too big to share memory) go one at a time after the
others; runs that can share use all cores between them. Every finished run is
stored at once; a failing run is reported with its parameters and stderr and
the rest continue. A worker's stdout is JSON lines only (its readable lines go
to stderr); workers with a scratch flag get a fresh directory on the machine
that runs them, deleted afterwards."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .cluster import ClusterTarget
from .grid import Run
from .store import RunStore
from .workers import scratch_root, worker_argv


def _die_with_parent() -> None:
    """In the child: get SIGKILL when the runner dies, so killing it leaves no orphans."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


# How lsmbench says --engine=rocksdb is not in this build (CMake found no librocksdb-dev).
ROCKSDB_MISSING = re.compile(r"(built|compiled) without rocksdb|rocksdb[^\n]*(not (built|compiled|available|enabled)"
                             r"|unavailable)", re.I)
ROCKSDB_HINT = ("hint: this lsmbench was built without RocksDB: install librocksdb-dev (Debian) and rebuild "
                "(./filterlab build); the engine=filterlab runs are unaffected")


@contextlib.contextmanager
def machine_lock(exclusive: bool):
    """For a run that must have the machine to itself: an exclusive flock(2) on the file
    FILTERLAB_MACHINE_LOCK names (if set) while it runs, so that runners and hand-run
    benchmarks sharing one machine (`flock FILE COMMAND`, the same lock) take turns.
    The wait is not timed: `seconds` counts from when the lock is held."""
    path = os.environ.get("FILTERLAB_MACHINE_LOCK")
    if not exclusive or not path:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise SystemExit(f"FILTERLAB_MACHINE_LOCK={path}: cannot open the lock file: {e.strerror}") from e
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def execute_argv(argv: list[str], timeout: float | None = None, scratch_flag: str | None = None,
                 exclusive: bool = False) -> dict:
    """Runs one worker command line; returns its JSON records, stderr and status.
    A plain function of plain data, so Dask can ship it to any worker. Every
    non-empty stdout line must be one JSON object.
    scratch_flag: pass --FLAG=DIR/db, DIR a fresh directory under FILTERLAB_SCRATCH
    (else TMPDIR) on this machine, removed when the run ends however it ends.
    exclusive: the run must have the machine to itself (see machine_lock)."""
    with machine_lock(exclusive):
        return _execute_argv(argv, timeout, scratch_flag)


def _execute_argv(argv: list[str], timeout: float | None, scratch_flag: str | None) -> dict:
    start = time.monotonic()
    scratch = None
    if scratch_flag:
        root = scratch_root()
        try:
            scratch = tempfile.mkdtemp(prefix="filterlab-run-", dir=root)
        except OSError as e:
            return {"argv": argv, "ok": False, "returncode": None, "records": [], "seconds": 0.0,
                    "stderr": f"cannot create a scratch directory in {root} (FILTERLAB_SCRATCH): {e.strerror}",
                    "host": os.uname().nodename}
        argv = [*argv, f"--{scratch_flag}={os.path.join(scratch, 'db')}"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except FileNotFoundError as e:
        rc, out, err = 127, "", f"cannot execute {argv[0]}: {e.strerror}"
    except OSError as e:  # not executable, "text file busy" while being relinked, ...
        rc, out, err = 126, "", f"cannot execute {argv[0]}: {e.strerror or e}"
    except subprocess.TimeoutExpired as e:
        rc, out, err = -9, e.stdout or "", f"timed out after {timeout} s\n{e.stderr or ''}"
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    if isinstance(out, bytes):
        out = out.decode(errors="replace")
    if isinstance(err, bytes):
        err = err.decode(errors="replace")
    records, bad_lines = [], []
    for line in (out or "").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad_lines.append(line)
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            bad_lines.append(line)
    ok = rc == 0 and bool(records) and not bad_lines
    if rc == 0 and not records:
        err = (err or "") + "\n(the worker exited 0 but printed no JSON records)"
    if bad_lines:
        err = (err or "") + f"\n(non-JSON output line: {bad_lines[0][:200]!r})"
    return {"argv": argv, "ok": ok, "returncode": rc, "records": records, "stderr": err or "",
            "seconds": time.monotonic() - start, "host": os.uname().nodename}


def must_run_alone(run: Run, jobs: int, mem_limit: int) -> bool:
    """Speed runs, and runs too big to sit in memory `jobs` at a time, run by themselves."""
    return run.exclusive or run.mem_bytes * jobs > mem_limit


@dataclass
class Failure:
    run: Run
    outcome: dict

    def report(self) -> str:
        err = self.outcome["stderr"].strip() or "(no stderr)"
        if self.outcome.get("skipped"):
            return f"run skipped: {self.run.describe()}\n  {err}"
        text = (f"run failed (exit {self.outcome['returncode']}): {self.run.describe()}\n"
                f"  command: {' '.join(self.outcome['argv'])}\n"
                + "\n".join("  | " + line for line in err.splitlines()[-20:]))
        if self.run.params.get("engine") == "rocksdb" and ROCKSDB_MISSING.search(err):
            text += "\n  " + ROCKSDB_HINT
        return text


class Executor:
    """Runs a list of runs with progress; stores successes, collects failures."""

    def __init__(self, store: RunStore, build, jobs: int, cores: int, cluster: ClusterTarget | None = None,
                 console: Console | None = None, timeout: float | None = None):
        self.store, self.build, self.jobs, self.cores = store, build, max(1, jobs), cores
        self.cluster, self.timeout = cluster, timeout
        self.console = console or Console(stderr=True, soft_wrap=True)
        self.failures: list[Failure] = []
        self.done = 0
        # Set once a run shows that lsmbench has no RocksDB: the other
        # engine=rocksdb runs are then reported without being started.
        self.rocksdb_missing: str | None = None

    def argv(self, run: Run, exclusive: bool) -> list[str]:
        if self.cluster:
            threads = 0  # all cores of whichever machine runs it (start workers with --nthreads 1)
        else:
            threads = 0 if exclusive else max(1, self.cores // self.jobs)
        return worker_argv(run.worker, self.build, run.spec, run.params, run.seed, threads)

    def call(self, run: Run, exclusive: bool) -> tuple:
        """execute_argv's arguments for `run`."""
        return (self.argv(run, exclusive), self.timeout, run.worker.scratch_flag, exclusive)

    def skipped(self, run: Run) -> dict | None:
        """An outcome for a run not worth starting, or None."""
        if self.rocksdb_missing and run.params.get("engine") == "rocksdb":
            return {"argv": self.argv(run, True), "ok": False, "skipped": True, "returncode": None, "records": [],
                    "stderr": f"not started: lsmbench has no RocksDB ({self.rocksdb_missing}); {ROCKSDB_HINT}",
                    "seconds": 0.0, "host": os.uname().nodename}
        return None

    def run_all(self, runs: list[Run], mem_limit: int) -> None:
        # Share the machine only when the runs fit in memory side by side.
        shared = [r for r in runs if not must_run_alone(r, self.jobs, mem_limit)]
        alone = [r for r in runs if r not in shared]
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("runs"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
        with Progress(*columns, console=self.console, transient=False) as progress:
            task = progress.add_task("running", total=len(runs))
            if self.cluster:
                self._dask(shared, alone, progress, task)
            else:
                self._local(shared, alone, progress, task)

    def _finish(self, run: Run, outcome: dict, progress, task) -> None:
        if outcome["ok"]:
            self.store.save(run, outcome)
        else:
            missing = ROCKSDB_MISSING.search(outcome["stderr"]) if run.params.get("engine") == "rocksdb" else None
            if missing and not self.rocksdb_missing:
                line = next(x for x in outcome["stderr"].splitlines() if ROCKSDB_MISSING.search(x))
                self.rocksdb_missing = line.strip()[:200]
            f = Failure(run, outcome)
            self.failures.append(f)
            progress.console.print(f.report(), markup=False, highlight=False)
        self.done += 1
        progress.advance(task)

    def _local(self, shared, alone, progress, task) -> None:
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {pool.submit(execute_argv, *self.call(r, False)): r for r in shared}
            for fut in as_completed(futures):
                self._finish(futures[fut], fut.result(), progress, task)
        for r in alone:
            self._finish(r, self.skipped(r) or execute_argv(*self.call(r, True)), progress, task)

    def _dask(self, shared, alone, progress, task) -> None:
        from dask.distributed import Client, as_completed as dask_completed

        with Client(self.cluster.address, security=self.cluster.security()) as client:
            futures = {}
            for r in shared:
                fut = client.submit(execute_argv, *self.call(r, False), pure=False)
                futures[fut] = r
            for fut in dask_completed(list(futures)):
                self._finish(futures[fut], fut.result(), progress, task)
            # One at a time, so two speed runs never share a machine.
            for r in alone:
                outcome = self.skipped(r)
                if outcome is None:
                    outcome = client.submit(execute_argv, *self.call(r, True), pure=False).result()
                self._finish(r, outcome, progress, task)
