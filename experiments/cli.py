"""`python -m experiments run CONFIG [--jobs N] [--cluster ADDRESS] [--resume | --no-resume] [--dry-run] [--sweep NAME]`
(what `./filterlab run` calls). Exit status: 0 all runs done, 1 some runs
failed (the others are stored and in the table), 2 the config is invalid."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console

from .cluster import ClusterError, cluster_target
from .config import ConfigError, load_config
from .execute import Executor, must_run_alone
from .meta import at_start, write_meta
from .store import RunStore
from .validate import mem_available, plan as make_plan
from .workers import ROOT, build_dir

DEFAULT_CONFIG = ROOT / "experiments" / "quickstart.toml"

CLUSTER_HELP = """\
Running on a Dask cluster (--cluster ADDRESS): every machine needs the same
checkout and build at the same path (the runs call FILTERLAB_BUILD's binaries),
and its Dask from the checkout's .venv (where the runner is installed). Over
TLS, with a CA of the cluster's own (README, "Running on a Dask cluster"):
  once:             ./filterlab cluster-certs certs     (copy certs/ to every machine)
  on one machine:   .venv/bin/dask scheduler --host 127.0.0.1 --protocol tls --tls-ca-file certs/ca.pem \\
                        --tls-cert certs/scheduler.pem --tls-key certs/scheduler-key.pem
                    (127.0.0.1 admits this machine only: give --host its network address for others)
  on each machine:  .venv/bin/dask worker tls://HOST:8786 --nthreads 1 --nworkers 1 --tls-ca-file certs/ca.pem \\
                        --tls-cert certs/worker.pem --tls-key certs/worker-key.pem
  then:             ./filterlab run CONFIG --cluster tls://HOST:8786 --tls-ca-file certs/ca.pem \\
                        --tls-cert certs/client.pem --tls-key certs/client-key.pem
Plain tcp:// is accepted to this machine only (127.0.0.1, localhost); to
another address it needs --insecure, since anyone who reaches the scheduler
can run code on every worker.
--nthreads 1 gives each machine one run at a time; FP runs then use all its cores.
Speed runs (sim speed, lsmbench) are submitted one at a time, so no two ever
overlap. lsmbench databases go to FILTERLAB_SCRATCH (default: the temp dir) of
the machine running them."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m experiments", description="filterlab's experiment runner",
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=CLUSTER_HELP)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="validate, expand and run a config", epilog=CLUSTER_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("config", nargs="?", default=str(DEFAULT_CONFIG),
                   help="experiment config (TOML); default experiments/quickstart.toml")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="runs at a time on the local pool (default: cores); FP runs share the cores between them")
    r.add_argument("--cluster", metavar="ADDRESS",
                   help="run on the Dask scheduler at ADDRESS: tls://HOST:PORT, or tcp://127.0.0.1:PORT")
    r.add_argument("--tls-ca-file", metavar="FILE", help="the cluster's CA certificate (tls://; cluster-certs)")
    r.add_argument("--tls-cert", metavar="FILE", help="this client's certificate (tls://)")
    r.add_argument("--tls-key", metavar="FILE", help="this client's private key (tls://)")
    r.add_argument("--insecure", action="store_true",
                   help="allow plain tcp:// to a scheduler on another machine (anyone who reaches it can run code "
                        "on every worker)")
    r.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True,
                   help="skip runs already stored for this build (default: on)")
    r.add_argument("--dry-run", action="store_true", help="validate and list the runs, run nothing")
    r.add_argument("--quick", action="store_true",
                   help="reduced sizes from the config's [quick] table; results go to <name>-quick/")
    r.add_argument("--results", metavar="DIR", default=str(ROOT / "results"),
                   help="results root; the experiment writes DIR/<name>/ (default: results/)")
    r.add_argument("--no-plot", action="store_true", help="do not draw the plots at the end")
    r.add_argument("--timeout", type=float, default=None, help="seconds before a run is killed (default: none)")
    r.add_argument("--sweep", action="append", metavar="NAME",
                   help="run only this sweep's runs (repeatable); the results file still holds every run "
                        "of the config stored for this build, so later runs of the other sweeps complete it "
                        "(runs stored by another build are not in it: a run's key names its worker binary)")
    sub.add_parser("cluster-certs", add_help=False,
                   help="write a CA and certificates for a TLS cluster (cluster_certs.py; DIR --help)")
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["cluster-certs"]:
        from .cluster_certs import main as cluster_certs_main

        return cluster_certs_main(argv[1:])
    args = parser().parse_args(argv)
    console = Console(stderr=True, highlight=False, soft_wrap=True)  # long commands stay one line
    if args.jobs < 1:
        console.print(f"--jobs: got {args.jobs}; allowed: an integer >= 1", markup=False)
        return 2
    cluster = None
    given_tls = [o for o, v in (("--tls-ca-file", args.tls_ca_file), ("--tls-cert", args.tls_cert),
                                ("--tls-key", args.tls_key), ("--insecure", args.insecure)) if v]
    if given_tls and not args.cluster:
        console.print(f"{', '.join(given_tls)}: only with --cluster ADDRESS", markup=False)
        return 2
    if args.cluster:
        try:
            cluster = cluster_target(args.cluster, args.tls_ca_file, args.tls_cert, args.tls_key, args.insecure)
        except ClusterError as e:
            console.print(f"error: {e}", markup=False)
            return 2
        if cluster.warning:
            console.print(cluster.warning, markup=False)
    try:
        config = load_config(args.config, quick=args.quick)
        plan = make_plan(config, build_dir())
    except ConfigError as e:
        for problem in e.problems:
            console.print(f"error: {problem}", markup=False)
        return 2
    out_dir = Path(args.results) / config.name
    store = RunStore(out_dir)
    if args.sweep:
        names = [s.name for s in config.sweeps]
        unknown = [n for n in args.sweep if n not in names]
        if unknown:
            console.print(f"--sweep: no sweep named {', '.join(map(repr, unknown))} in {args.config}; "
                          f"allowed: {', '.join(names)}", markup=False)
            return 2
    stored = {r.key for r in plan.runs if store.has(r.key)} if args.resume else set()
    selected = [r for r in plan.runs if not args.sweep or r.sweep in args.sweep]
    pending = [r for r in selected if r.key not in stored]
    for note in plan.notes:
        console.print(f"note: {note}", markup=False)
    console.print(f"{config.name}: {len(plan.runs)} runs, {len(stored)} already stored, "
                  f"{len(pending)} to run ({'cluster ' + args.cluster if args.cluster else f'{args.jobs} jobs'})",
                  markup=False)
    if args.dry_run:
        mem = mem_available()
        for r in plan.runs:
            alone = must_run_alone(r, 1 if args.cluster else args.jobs, mem)
            state = "stored " if r.key in stored else ("other  " if r not in selected else
                                                        "alone  " if alone else "pending")
            print(f"{state} {r.key} {r.describe()}")
        return 0
    start = at_start()
    executor = Executor(store, plan.build, args.jobs, os.cpu_count() or 1, cluster, console, args.timeout)
    try:
        executor.run_all(pending, mem_available())
    except OSError as e:  # the cluster refused us or could not be reached (what finished is stored)
        console.print(f"error: the Dask scheduler at {cluster.address if cluster else '?'}: {e} "
                      f"(a TLS cluster admits only certificates its CA signed: --tls-cert, --tls-key)", markup=False)
        return 1

    table = store.table(plan.runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    if len(table):
        tmp = out_dir / "results.parquet.tmp"
        table.to_parquet(tmp, index=False)
        os.replace(tmp, out_dir / "results.parquet")
    write_meta(out_dir / "meta.json", plan, executor, start, len(stored), cluster.address if cluster else None)
    console.print(f"{len(table)} rows from {len(plan.runs) - len(executor.failures)} runs -> "
                  f"{out_dir / 'results.parquet'}", markup=False)
    if executor.failures:
        console.print(f"{len(executor.failures)} run(s) failed (listed above and in meta.json); "
                      "rerun the same command to retry only them", markup=False)
    if len(table) and not args.no_plot and (config.plots or config.tables):
        # Here, not at the top: analysis loads matplotlib and seaborn, which every other use of the
        # runner (validate, --dry-run, a run with --no-plot) would otherwise wait for.
        from analysis.cli import plot_dir

        for path in plot_dir(out_dir):
            console.print(f"wrote {path}", markup=False)
    return 1 if executor.failures else 0
