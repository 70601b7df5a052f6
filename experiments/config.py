"""Loading and checking an experiment config (TOML), before anything runs.

A config answers one question:

    description = "..."        # what it measures (required)
    claim = "..."              # the published claim it tests, or "none" (required)
    plots = ["fp_vs_bits"]     # figures analysis draws (see PLOT_KINDS)
    tables = ["fp"]            # tables analysis writes (see TABLE_KINDS)

    [[sweep]]                  # one or more sweeps, each one worker
    name = "fp"
    worker = "sim fp"          # see workers.WORKERS; keys: the worker's flags (BINARY --describe)
    filter = ["fastlocal", "legacy"]   # base specs, or "all" = every registered example
                               # (lsmbench: may be omitted, and may list "none")
    repeats = 3                # or seeds = [0, 1, 2] / a range table
    [sweep.fixed]              # one value per key
    keys = 100000
    [sweep.grid]               # lists or ranges; the runs are their product
    bpk = {from = 6, to = 50, step = 1}
    keys = {from = 1e3, to = 1e9, per_decade = 2}   # log scale

Every problem found is reported at once, each naming the file, the key and
what is allowed (ConfigError)."""

from __future__ import annotations

import difflib
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .describe import DescribeError
from .workers import NO_FILTER, SPEC_PARAMS, WORKERS, Flag, Worker, build_dir

# The figure and table kinds analysis draws (analysis.plots.KINDS, analysis.tables.KINDS).
PLOT_KINDS = ("fp_vs_bits", "fp_vs_keys", "bytes_vs_fp", "speed_bars", "speed_vs_fp", "probes",
              "multiget", "hash_index", "memtable_filter", "range_estimates", "engine_filters", "engine_io",
              "engine_allocation", "pareto", "range_fp_vs_bits", "range_fp_vs_correlation", "range_lemma", "range_speed",
              "range_seeks", "range_memento_growth")
TABLE_KINDS = ("fp", "speed", "probes", "floor", "multiget", "hash_index", "memtable_filter", "range_estimates",
               "engine_filters", "pareto", "dynamic", "block_seek", "beside_rocksdb", "range_seeks")
TOP_KEYS = ("name", "description", "claim", "plots", "tables", "quick", "sweep")
SWEEP_KEYS = ("name", "worker", "filter", "repeats", "seeds", "fixed", "grid")
RANGE_KEYS = ("from", "to", "step", "per_decade", "count", "log")
# A guard against typos such as step = 0.0001: more runs than this is refused.
MAX_RUNS_PER_SWEEP = 20000


class ConfigError(Exception):
    """All problems of one config; str() lists them one per line."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass
class Sweep:
    name: str
    worker: Worker
    filters: list[str] | None  # None for workers without filters; "all" resolved later
    all_filters: bool
    fixed: dict
    grid: dict  # key -> list of values (ranges expanded)
    seeds: list[int]
    # The index of this sweep in the file, for messages ("sweep[1]").
    index: int = 0

    def where(self, key: str = "") -> str:
        return f"sweep[{self.index}] ('{self.name}')" + (f" {key}" if key else "")


@dataclass
class Config:
    path: Path
    name: str
    description: str
    claim: str
    plots: list[str]
    tables: list[str]
    sweeps: list[Sweep]
    text: str = field(repr=False, default="")


def load_config(path: str | Path, build: Path | None = None, quick: bool = False) -> Config:
    """Parses and checks a config against its workers' flags (as the binaries in
    `build`, default build_dir(), describe them); raises ConfigError listing every problem.
    quick: apply the config's [quick] table (reduced sizes, see _apply_quick); the
    experiment is then named <name>-quick so its results never replace the full ones."""
    path = Path(path)
    build = build_dir() if build is None else Path(build)
    try:
        text = path.read_text()
    except OSError as e:
        raise ConfigError([f"{path}: cannot read the config: {e.strerror}"]) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError([f"{path}: not valid TOML: {e}"]) from None
    problems: list[str] = []

    def bad(key: str, what: str) -> None:
        problems.append(f"{path}: {key}: {what}")

    _unknown_keys(raw, TOP_KEYS, "", bad)
    name = raw.get("name", path.stem)
    if not isinstance(name, str) or not name or "/" in name:
        bad("name", f"got {name!r}; allowed: a non-empty string without '/' (default: the file name)")
        name = path.stem
    strings = {}
    for key in ("description", "claim"):
        v = raw.get(key)
        if not isinstance(v, str) or not v.strip():
            hint = " (the published claim this config tests, or \"none\")" if key == "claim" else ""
            bad(key, f"required: a non-empty string{hint}; got {v!r}")
        strings[key] = v if isinstance(v, str) else ""
    plots = _kind_list(raw, "plots", PLOT_KINDS, bad)
    tables = _kind_list(raw, "tables", TABLE_KINDS, bad)

    sweeps_raw = raw.get("sweep")
    if quick:
        sweeps_raw = _apply_quick(raw.get("quick"), sweeps_raw, bad)
        name = f"{name}-quick"
    elif "quick" in raw and not isinstance(raw["quick"], dict):
        bad("quick", f"got {raw['quick']!r}; allowed: a table of parameter = value")
    sweeps: list[Sweep] = []
    if not isinstance(sweeps_raw, list) or not sweeps_raw or not all(isinstance(s, dict) for s in sweeps_raw):
        bad("sweep", "required: one or more [[sweep]] tables (each: name, worker, filter, fixed, grid)")
    else:
        names = set()
        for i, s in enumerate(sweeps_raw):
            sweep = _load_sweep(i, s, build, bad)
            if sweep is None:
                continue
            if sweep.name in names:
                bad(f"sweep[{i}].name", f"'{sweep.name}' is used by an earlier sweep; names must be unique")
            names.add(sweep.name)
            sweeps.append(sweep)
    if problems:
        raise ConfigError(problems)
    return Config(path, name, strings["description"], strings["claim"], plots, tables, sweeps, text)


def _apply_quick(quick, sweeps_raw, bad):
    """The sweeps with the [quick] table applied: `repeats = N` replaces every sweep's
    repeats; any other key replaces that parameter, fixed or grid, in every sweep that
    sets it (a key no sweep sets is an error, so a typo cannot leave a size unreduced).
    A sub-table named after a sweep ([quick.NAME]) applies to that sweep only, after the
    common keys, for sweeps that must shrink differently (e.g. two ranges of key counts).
    A quick run measures the same things at sizes that finish in minutes."""
    if quick is None:
        bad("quick", "--quick needs a [quick] table in the config (reduced sizes: parameter = value)")
        return sweeps_raw
    if not isinstance(quick, dict) or not isinstance(sweeps_raw, list):
        if not isinstance(quick, dict):
            bad("quick", f"got {quick!r}; allowed: a table of parameter = value")
        return sweeps_raw
    names = {s.get("name") for s in sweeps_raw if isinstance(s, dict)}
    common = {k: v for k, v in quick.items() if k not in names}
    per_sweep = {k: v for k, v in quick.items() if k in names}
    for name, table in per_sweep.items():
        if not isinstance(table, dict):
            bad(f"quick.{name}", f"got {table!r}; allowed: a table of parameter = value for sweep {name!r}")
            per_sweep[name] = {}
    out, used = [], set()
    for s in sweeps_raw:
        if not isinstance(s, dict):
            out.append(s)
            continue
        s = {**s, "fixed": dict(s.get("fixed", {})), "grid": dict(s.get("grid", {}))}
        for prefix, table in (("", common), (f"{s.get('name')}.", per_sweep.get(s.get("name"), {}))):
            for key, value in table.items():
                if key == "repeats":
                    if "repeats" in s:
                        s["repeats"], _ = value, used.add(prefix + key)
                elif key in s["fixed"]:
                    s["fixed"][key], _ = value, used.add(prefix + key)
                elif key in s["grid"]:
                    s["grid"][key], _ = value, used.add(prefix + key)
        out.append(s)
    wanted = list(common) + [f"{n}.{k}" for n, t in per_sweep.items() for k in t]
    for key in wanted:
        if key not in used:
            bad(f"quick.{key}", "no sweep sets this parameter (or repeats), so it reduces nothing")
    return out


def _unknown_keys(table: dict, allowed, prefix: str, bad) -> None:
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            bad(f"{prefix}{key}", f"unknown key{hint}; allowed: {', '.join(allowed)}")


def _kind_list(raw, key, kinds, bad) -> list[str]:
    v = raw.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        bad(key, f"got {v!r}; allowed: a list of names from {', '.join(kinds)}")
        return []
    for x in v:
        if x not in kinds:
            bad(key, f"unknown kind '{x}'; allowed: {', '.join(kinds)}")
    return [x for x in v if x in kinds]


def _load_sweep(i: int, s: dict, build: Path, bad) -> Sweep | None:
    """One [[sweep]] table, checked phase by phase: its name and worker (whose
    flags the worker's binary describes), its filters, its fixed and grid
    values, its seeds, and what the whole sweep adds up to."""
    _unknown_keys(s, SWEEP_KEYS, f"sweep[{i}].", bad)
    name = s.get("name")
    if not isinstance(name, str) or not name:
        bad(f"sweep[{i}].name", f"required: a non-empty string; got {name!r}")
        name = f"sweep{i}"
    pre = f"sweep[{i}] ('{name}')."
    worker = _sweep_worker(s.get("worker"), build, pre, bad)
    if worker is None:
        return None
    filters, all_filters = _sweep_filters(s.get("filter"), worker, pre, bad)
    fixed, grid = _sweep_values(s, worker, pre, bad)
    seeds = _sweep_seeds(s, worker, pre, bad)
    sweep = Sweep(name, worker, filters, all_filters, fixed, grid, seeds, i)
    _check_sweep_size(sweep, "filter" in s, pre, bad)
    return sweep


def _sweep_worker(wname, build: Path, pre: str, bad) -> Worker | None:
    worker = WORKERS.get(wname) if isinstance(wname, str) else None
    if worker is None:
        bad(pre + "worker", f"got {wname!r}; allowed: {', '.join(repr(w) for w in WORKERS)}")
        return None
    try:
        return worker.with_flags(build)
    except DescribeError as e:
        bad(pre + "worker", f"'{wname}' cannot be used: {e}")
        return None


def _sweep_filters(f, worker: Worker, pre: str, bad) -> tuple[list[str] | None, bool]:
    """(base specs or None for the worker's default, whether "all" was asked)."""
    optional = worker.filter_optional
    if f == "all":
        return None, True
    if f is None and optional:
        return None, False  # the worker's default filter
    if isinstance(f, list) and f and all(isinstance(x, str) and x.strip() for x in f):
        filters = [x.strip() for x in f]
        if len(set(filters)) != len(filters):
            bad(pre + "filter", "lists a spec twice; each filter once")
        if NO_FILTER in filters and not optional:
            bad(pre + "filter", f"'{NO_FILTER}' (no filter) is for lsmbench only; worker '{worker.name}' "
                "needs a filter")
        return filters, False
    extra = f", \"{NO_FILTER}\" in the list, or no filter key (lsmbench's default)" if optional else ""
    bad(pre + "filter", f"got {f!r}; allowed: a non-empty list of filter specs such as "
        f"[\"fastlocal\", \"worm:variant=worm64\"], or \"all\" (every registered variant's examples){extra}")
    return None, False


def _sweep_values(s: dict, worker: Worker, pre: str, bad) -> tuple[dict, dict]:
    """The fixed values and the grid's lists, each checked against the key's flag
    (or spec parameter): one value per fixed key, except collapsed keys, which may
    be lists as in the grid."""
    allowed = {**worker.settable, **SPEC_PARAMS}
    fixed_raw, grid_raw = s.get("fixed", {}), s.get("grid", {})
    for sect, table in (("fixed", fixed_raw), ("grid", grid_raw)):
        if not isinstance(table, dict):
            bad(pre + sect, f"got {table!r}; allowed: a table of keys ({', '.join(allowed)})")
        else:
            _unknown_keys(table, tuple(allowed), f"{pre}{sect}.", bad)
    fixed, grid = {}, {}
    for key, value in (fixed_raw.items() if isinstance(fixed_raw, dict) else ()):
        if key not in allowed:
            continue
        if key in worker.collapse and isinstance(value, (list, dict)):
            vals = _grid_values(value, allowed[key], f"{pre}fixed.{key}", bad)
            if vals is not None:
                fixed[key] = vals
            continue
        why = allowed[key].check(value)
        if why:
            bad(f"{pre}fixed.{key}", why)
        else:
            fixed[key] = allowed[key].value(value)
    for key, value in (grid_raw.items() if isinstance(grid_raw, dict) else ()):
        if key not in allowed:
            continue
        if isinstance(fixed_raw, dict) and key in fixed_raw:
            bad(f"{pre}grid.{key}", "is also in fixed; give each key in one place")
            continue
        vals = _grid_values(value, allowed[key], f"{pre}grid.{key}", bad)
        if vals is not None:
            grid[key] = vals
    return fixed, grid


def _sweep_seeds(s: dict, worker: Worker, pre: str, bad) -> list[int]:
    seeds = [0]
    if "seeds" in s and "repeats" in s:
        bad(pre + "seeds", "give either seeds or repeats, not both")
    elif "seeds" in s:
        seed_flag = worker.flags.get("seed", Flag("seed", "int", 0, 0))
        seeds = _grid_values(s["seeds"], seed_flag, pre + "seeds", bad) or [0]
    elif "repeats" in s:
        r = s["repeats"]
        if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 1000:
            bad(pre + "repeats", f"got {r!r}; allowed: an integer in 1..1000 (seeds 0..repeats-1)")
        else:
            seeds = list(range(r))
    if not worker.seeded and len(seeds) > 1:
        bad(pre + ("seeds" if "seeds" in s else "repeats"),
            f"worker '{worker.name}' is deterministic and takes no seed; allowed: one repeat")
    return seeds


def _check_sweep_size(sweep: Sweep, names_filter: bool, pre: str, bad) -> None:
    """Spec parameters need a filter to go into; the runs must stay countable."""
    spec_keys = [k for k in SPEC_PARAMS if k in sweep.fixed or k in sweep.grid]
    if not names_filter and sweep.worker.filter_optional and spec_keys:
        bad(f"{pre}{'fixed' if spec_keys[0] in sweep.fixed else 'grid'}.{spec_keys[0]}",
            "is a filter spec parameter but the sweep names no filter; allowed: add filter = [...]")
    n_runs = len(sweep.seeds) * (len(sweep.filters) if sweep.filters else 1)
    for key, vals in sweep.grid.items():
        if key not in sweep.worker.collapse:
            n_runs *= len(vals)
    if n_runs > MAX_RUNS_PER_SWEEP:
        bad(pre + "grid", f"expands to {n_runs} runs; allowed: at most {MAX_RUNS_PER_SWEEP} per sweep")


def _grid_values(value, param: Flag, key: str, bad) -> list | None:
    """A grid entry (a list, or a range table) as its list of values."""
    if isinstance(value, dict):
        vals = _range_values(value, param, key, bad)
        if vals is None:
            return None
    elif isinstance(value, list):
        if not value:
            bad(key, f"empty grid: give at least one value ({param.allowed()})")
            return None
        vals = value
    else:
        bad(key, f"got {value!r}; allowed: a list of values ({param.allowed()}) or a range table "
            "{from, to, step} / {from, to, per_decade} (log scale) / {from, to, count[, log]}")
        return None
    out = []
    for v in vals:
        why = param.check(v)
        if why:
            bad(key, why)
            return None
        v = param.value(v)  # bpk = 6 and bpk = 6.0 are one run (one key)
        if v in out:
            bad(key, f"lists {v!r} twice; each value once")
            return None
        out.append(v)
    return out


def _range_values(r: dict, param: Flag, key: str, bad) -> list | None:
    shapes = "{from, to, step} (linear), {from, to, per_decade} (log scale) or {from, to, count[, log = true]}"
    unknown = [k for k in r if k not in RANGE_KEYS]
    if unknown:
        bad(key, f"unknown range key '{unknown[0]}'; allowed: {shapes}")
        return None
    if param.type not in ("int", "number"):
        bad(key, f"a range needs a numeric key; allowed: a list ({param.allowed()})")
        return None
    lo, hi = r.get("from"), r.get("to")
    nums = [x for x in (lo, hi) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)]
    if len(nums) != 2:
        bad(key, f"a range needs numeric 'from' and 'to'; got from={lo!r}, to={hi!r}; allowed: {shapes}")
        return None
    if lo > hi:
        bad(key, f"empty range: from={lo!r} is above to={hi!r}")
        return None
    steps = [k for k in ("step", "per_decade", "count") if k in r]
    if len(steps) != 1:
        bad(key, f"a range needs exactly one of step, per_decade, count; got {steps or 'none'}; allowed: {shapes}")
        return None
    how, n = steps[0], r[steps[0]]
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not n > 0 or (how != "step" and int(n) != n):
        bad(f"{key}.{how}", f"got {n!r}; allowed: a positive {'number' if how == 'step' else 'integer'}")
        return None
    log = r.get("log", how == "per_decade")
    if not isinstance(log, bool) or (how == "step" and log):
        bad(f"{key}.log", f"got {log!r}; allowed: true or false, and only with count (per_decade is always log)")
        return None
    if log and lo <= 0:
        bad(key, f"a log-scale range needs from > 0; got from={lo!r}")
        return None
    if how == "step":
        count = int(math.floor((hi - lo) / n + 1e-9)) + 1
        vals = [lo + i * n for i in range(count)]
    elif how == "per_decade":
        # A `from` written rounded (3162278 for 10^6.5) leaves the last step a
        # hair short of `to`: points within a relative 1e-6 of `to` are `to`.
        decades = math.log10(hi / lo)
        count = int(math.floor(decades * n + 1e-6)) + 1
        vals = [lo * 10 ** (i / n) for i in range(count)]
        vals = [hi if abs(v - hi) <= 1e-6 * hi else v for v in vals]
    else:
        n = int(n)
        if n == 1:
            vals = [lo]
        elif log:
            vals = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
        else:
            vals = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
    if len(vals) > MAX_RUNS_PER_SWEEP:
        bad(key, f"range has {len(vals)} values; allowed: at most {MAX_RUNS_PER_SWEEP}")
        return None
    # Clean floating-point noise (0.1 steps, 10^(i/3)) so values print and hash stably.
    if param.type == "int":
        vals = [int(round(v)) for v in vals]
    else:
        vals = [float(f"{v:.10g}") for v in vals]
    seen = []
    for v in vals:
        if v not in seen:
            seen.append(v)
    return seen
