"""`./filterlab table`: a quick table of every registered example (or the
given specs) from the simulator's own records, with no config. The specs
come from `filterlab-sim model` (which applies --bpk through the registry),
the FP columns from `filterlab-sim fp`, the times from `filterlab-sim speed`
(build ns/key from its build mode; query ns/op from its huge mode: one filter
of --keys keys, one query at a time and in batches of --batch). Every sim
command line is checked (--check) before any of them runs.

    python -m analysis.quick_table --sim build/sim/filterlab-sim [--bpk B] [--keys N] ...
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pandas as pd

from . import tables

# Query timings use at most this many queries per measurement: enough for a
# stable ns/op, and keeps the table quick however many FP queries are asked.
MAX_TIMED_QUERIES = 2_000_000


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _count(lo: int, hi: int):
    def parse(text: str) -> int:
        value = _number(text)
        if value is None or not value.is_integer() or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text} is not allowed; give an integer in [{lo}, {hi}]")
        return int(value)
    return parse


def _bpk(text: str) -> float:
    value = _number(text)
    if value is None or not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; give a positive number (the variant checks its range)")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="./filterlab table", description=__doc__.split("\n\n")[0])
    p.add_argument("--sim", required=True, help=argparse.SUPPRESS)  # the filterlab-sim binary, from ./filterlab
    p.add_argument("--bpk", type=_bpk, help="bits per key of every spec (default: the examples' 10; "
                                            "--filter specs keep their own unless given)")
    p.add_argument("--keys", type=_count(1000, 1_000_000_000), default=1_000_000, help="keys per filter")
    p.add_argument("--queries", type=_count(1000, 100_000_000_000), default=10_000_000,
                   help="outside queries for the FP rate")
    p.add_argument("--batch", type=_count(2, 64), default=64, help="batch size of the batched queries")
    p.add_argument("--filter", action="append", default=[], help="a spec instead of the examples (repeatable)")
    return p


def sim_commands(args) -> dict[str, list[str]]:
    """The sim command lines the table is made from (without the binary)."""
    model = ["model", "--keys", "1"]
    if args.bpk is not None or not args.filter:
        model += ["--bpk", f"{args.bpk if args.bpk is not None else 10:g}"]
    for spec in args.filter:
        model += ["--filter", spec]
    timed = str(min(args.queries, MAX_TIMED_QUERIES))
    return {
        "model": model,
        "fp": ["fp", "--keys", str(args.keys), "--queries", str(args.queries)],
        "speed": ["speed", "--modes", "build,huge", "--average_keys", str(args.keys), "--vary_ratio", "0",
                  "--working_set_mb", "1", "--huge_keys", str(args.keys), "--batch_sizes", str(args.batch),
                  "--queries", timed, "--no_floor"],
    }


def quick_table(records: list[dict], batch: int) -> pd.DataFrame:
    """One row per fp record's spec, in the order measured: the FP columns of
    tables.fp_table, bytes/key, and the speed records' ns."""
    fp = pd.DataFrame([r for r in records if r.get("command") == "fp"])
    if fp.empty:
        raise ValueError("no fp records")
    fp = fp.assign(sweep="table", label=fp["filter"])
    t = tables.fp_table(fp).drop(columns=["sweep", "keys", "queries"], errors="ignore")
    t = t.set_index("filter").loc[list(dict.fromkeys(fp["filter"]))].reset_index()
    bits = fp.drop_duplicates("filter").set_index("filter")["bits_per_key"]
    t.insert(2, "bytes/key", [f"{bits[f] / 8:.4f}" for f in t["filter"]])

    def ns(mode: str, field: str, batch_size: int | None = None) -> dict[str, str]:
        out = {}
        for r in records:
            if r.get("command") == "speed" and r.get("mode") == mode and (batch_size is None or r.get("batch") == batch_size):
                out[r["filter"]] = tables._num(r[field])
        return out

    build, single, batched = ns("build", "ns_per_key"), ns("huge", "net_ns_per_op", 1), ns("huge", "net_ns_per_op", batch)
    t["build ns/key"] = [build.get(f, "") for f in t["filter"]]
    t["query ns/op"] = [single.get(f, "") for f in t["filter"]]
    t[f"batch {batch} ns/op"] = [batched.get(f, "") for f in t["filter"]]
    return t


def _run(sim: str, argv: list[str]) -> list[dict]:
    r = subprocess.run([sim, *argv], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip() or f"{sim} {' '.join(argv)} failed with exit {r.returncode}")
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    cmds = sim_commands(args)
    try:
        specs = [r["filter"] for r in _run(args.sim, cmds["model"])]
        spec_flags = [x for s in specs for x in ("--filter", s)]
        for name in ("fp", "speed"):
            _run(args.sim, [*cmds[name], *spec_flags, "--check"])
        records = _run(args.sim, [*cmds["fp"], *spec_flags]) + _run(args.sim, [*cmds["speed"], *spec_flags])
    except RuntimeError as e:
        print(f"table: {e}", file=sys.stderr)
        return 1
    print(f"{args.keys} keys per filter; FP over {args.queries} outside queries (filterlab-sim fp, 95% Wilson "
          f"interval); ns: filterlab-sim speed net ns (build mode; huge mode, one filter of {args.keys} keys, "
          f"batch {args.batch})\n")
    print(tables.to_markdown(quick_table(records, args.batch)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
