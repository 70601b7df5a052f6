"""Executing runs: a local pool of worker processes (default) or a Dask
distributed cluster (--cluster). Runs that must have the machine to
themselves (speed, or too big to share memory) go one at a time after the
others; runs that can share use all cores between them. Every finished run is
stored at once; a failing run is reported with its parameters and stderr and
the rest continue."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .grid import Run
from .store import RunStore
from .workers import worker_argv


def _die_with_parent() -> None:
    """In the child: get SIGKILL when the runner dies, so killing it leaves no orphans."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def execute_argv(argv: list[str], timeout: float | None = None) -> dict:
    """Runs one worker command line; returns its JSON records, stderr and status.
    A plain function of plain data, so Dask can ship it to any worker."""
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except FileNotFoundError as e:
        rc, out, err = 127, "", f"cannot execute {argv[0]}: {e.strerror}"
    except subprocess.TimeoutExpired as e:
        rc, out, err = -9, e.stdout or "", f"timed out after {timeout} s\n{e.stderr or ''}"
    records, bad_lines = [], []
    for line in (out or "").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
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
        return (f"run failed (exit {self.outcome['returncode']}): {self.run.describe()}\n"
                f"  command: {' '.join(self.outcome['argv'])}\n"
                + "\n".join("  | " + line for line in err.splitlines()[-20:]))


class Executor:
    """Runs a list of runs with progress; stores successes, collects failures."""

    def __init__(self, store: RunStore, build, jobs: int, cores: int, cluster: str | None = None,
                 console: Console | None = None, timeout: float | None = None):
        self.store, self.build, self.jobs, self.cores = store, build, max(1, jobs), cores
        self.cluster, self.timeout = cluster, timeout
        self.console = console or Console(stderr=True)
        self.failures: list[Failure] = []
        self.done = 0

    def argv(self, run: Run, exclusive: bool) -> list[str]:
        if self.cluster:
            threads = 0  # all cores of whichever machine runs it (start workers with --nthreads 1)
        else:
            threads = 0 if exclusive else max(1, self.cores // self.jobs)
        return worker_argv(run.worker, self.build, run.base_filter, run.params, run.seed, threads)

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
            f = Failure(run, outcome)
            self.failures.append(f)
            progress.console.print(f.report(), markup=False, highlight=False)
        self.done += 1
        progress.advance(task)

    def _local(self, shared, alone, progress, task) -> None:
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = {pool.submit(execute_argv, self.argv(r, False), self.timeout): r for r in shared}
            for fut in as_completed(futures):
                self._finish(futures[fut], fut.result(), progress, task)
        for r in alone:
            self._finish(r, execute_argv(self.argv(r, True), self.timeout), progress, task)

    def _dask(self, shared, alone, progress, task) -> None:
        from dask.distributed import Client, as_completed as dask_completed

        with Client(self.cluster) as client:
            futures = {}
            for r in shared:
                fut = client.submit(execute_argv, self.argv(r, False), self.timeout, pure=False)
                futures[fut] = r
            for fut in dask_completed(list(futures)):
                self._finish(futures[fut], fut.result(), progress, task)
            # One at a time, so two speed runs never share a machine.
            for r in alone:
                fut = client.submit(execute_argv, self.argv(r, True), self.timeout, pure=False)
                self._finish(r, fut.result(), progress, task)
