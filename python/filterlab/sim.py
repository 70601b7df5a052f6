"""filterlab.sim: the simulator's commands (``filterlab-sim fp``, ``model``, ``speed``,
...) run in-process, their records as pandas DataFrames with the fields of the
command line's JSON lines.

Flags are keyword arguments named as the command declares them
(``filterlab-sim COMMAND --help``): ``sim.fp(filter="fastlocal:bpk=10",
keys=10**6, queries=10**7)``. A list is one comma-joined value, or one flag per
value for a repeatable flag (``filter=["fastlocal:bpk=10", "legacy:bpk=10"]``);
booleans are true/false. A bad flag or spec raises ValueError with the message
``filterlab-sim`` prints. The run releases the GIL.

Each function's docstring lists its flags and record fields from the command's
own ``--describe``, so it is never out of date; ``sim.pyi`` (checked by the
tests) gives editors the same."""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pandas as pd

from . import _native

COMMANDS = ("fp", "model", "speed", "floor", "probes", "lsm", "dynamic", "filter_bench", "rangefp", "rangespeed",
            "rangeworkload")


@functools.cache
def describe(command: str) -> dict:
    """The command's ``--describe``: its flags (name, type, default, range or choices,
    help) and record fields (name, type, help)."""
    _, text = _native.run_sim(command, ["--describe"])
    return json.loads(text)


def _render(value: Any) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return ",".join(_render(v) for v in value)
    return str(value)


def command_line(command: str, flags: dict[str, Any]) -> list[str]:
    """The command line ``run`` hands the command for these keyword flags."""
    declared = {f["name"]: f for f in describe(command)["flags"]}
    argv = []
    for name, value in flags.items():
        if value is None:
            continue
        if declared.get(name, {}).get("repeatable") and isinstance(value, (list, tuple)):
            argv += [f"--{name}={_render(v)}" for v in value]
        else:
            argv.append(f"--{name}={_render(value)}")
    return argv


def run(command: str, **flags: Any) -> pd.DataFrame:
    """Runs ``filterlab-sim COMMAND`` with these flags; one row per record."""
    if command not in COMMANDS:
        raise ValueError(f"unknown simulator command {command!r}; allowed: {', '.join(COMMANDS)}")
    records, _ = _native.run_sim(command, command_line(command, flags))
    fields = [f["name"] for f in describe(command)["fields"]]
    rows = [json.loads(r) for r in records]
    return pd.DataFrame(rows, columns=fields if not rows else None)


def _doc(command: str, lead: str) -> str:
    d = describe(command)
    lines = [lead, "", d.get("summary", ""), "", "Flags (keyword arguments):"]
    for f in d["flags"]:
        allowed = ""
        if "choices" in f:
            allowed = f" one of {'|'.join(map(str, f['choices']))};"
        elif "min" in f or "max" in f:
            allowed = f" {f.get('min', '')}..{f.get('max', '')};"
        lines.append(f"    {f['name']} ({f['type']}{', repeatable' if f.get('repeatable') else ''};{allowed} "
                     f"default {f.get('default')!r}): {f.get('help', '')}")
    lines += ["", "Returns a DataFrame, one row per record, with the fields:"]
    lines += [f"    {f['name']} ({f['type']}): {f.get('help', '')}" for f in d["fields"]]
    return "\n".join(lines)


def fp(**flags: Any) -> pd.DataFrame:
    return run("fp", **flags)


def model(**flags: Any) -> pd.DataFrame:
    return run("model", **flags)


def speed(**flags: Any) -> pd.DataFrame:
    return run("speed", **flags)


def floor(**flags: Any) -> pd.DataFrame:
    return run("floor", **flags)


def probes(**flags: Any) -> pd.DataFrame:
    return run("probes", **flags)


def lsm(**flags: Any) -> pd.DataFrame:
    return run("lsm", **flags)


def dynamic(**flags: Any) -> pd.DataFrame:
    return run("dynamic", **flags)


def filter_bench(**flags: Any) -> pd.DataFrame:
    return run("filter_bench", **flags)


def rangefp(**flags: Any) -> pd.DataFrame:
    return run("rangefp", **flags)


def rangespeed(**flags: Any) -> pd.DataFrame:
    return run("rangespeed", **flags)


def rangeworkload(**flags: Any) -> pd.DataFrame:
    return run("rangeworkload", **flags)


_LEADS = {
    "fp": "Sampled FP rates: filters built from generated keys, outside queries counted (filterlab-sim fp).",
    "model": "A policy's analytic FP rate over bits/key, probes and keys (filterlab-sim model).",
    "speed": "filter_bench-style build and query timings (filterlab-sim speed).",
    "floor": "The machine's memory floors: dependent-load latency, random line throughput (filterlab-sim floor).",
    "probes": "The best probe count per bits/key by simulation (filterlab-sim probes).",
    "lsm": "Filter memory per LSM level by allocation policy (filterlab-sim lsm).",
    "dynamic": "A memtable filter's add, hit and miss times (filterlab-sim dynamic).",
    "filter_bench": "RocksDB's own filter_bench (a release build you point at) with speed's parameters "
                    "(filterlab-sim filter_bench).",
    "rangefp": "Range filters' FP rate on empty ranges per length and correlation (filterlab-sim rangefp).",
    "rangespeed": "Range filters' build and query timings (filterlab-sim rangespeed).",
    "rangeworkload": "rangefp's keys and queries written as SOSD binary files (filterlab-sim rangeworkload).",
}
for _name in COMMANDS:
    globals()[_name].__doc__ = _doc(_name, _LEADS[_name])
