"""The C++ workers a config can name, and how a run becomes a command line.

What a worker accepts is read from the binary itself: `BINARY --describe`
prints every command's flags (name, type, default, range or choices, help)
and record fields (common/flags.h), and describe.py caches that per build.
What is written here is only what the runner knows beyond the flags: which
binary and command a config's worker name means, which keys are filter-spec
parameters (appended to each spec), which keys one run takes whole as a
list, which flags the runner sets itself, and how runs are scheduled.

One flag style: every flag is rendered `--name=value`, booleans
`--name=true|false`, a list value comma-joined, a repeatable flag once per
value."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from .describe import command_description

ROOT = Path(__file__).resolve().parents[1]

# The filter "spec" meaning no filter at all (lsmbench: --filter=none,
# --memtable_filter=none); never sent to the registry.
NO_FILTER = "none"


@dataclass(frozen=True)
class Flag:
    """One settable value as a binary describes it (or a spec parameter)."""

    name: str
    type: str  # int, number, string, choice, choice_list, list, bool (common/flags.h Description)
    min: float | None = None
    max: float | None = None
    choices: tuple = ()
    help: str = ""
    default: object = None
    # choice_list: whether an entry may be listed more than once (lsmbench's benchmarks).
    repeats: bool = False
    # A collapsed key (Worker.collapse): it may also be a list of values that one run takes whole.
    listable: bool = False

    @classmethod
    def described(cls, d: dict) -> "Flag":
        return cls(d["name"], d["type"], d.get("min"), d.get("max"), tuple(d.get("choices", ())), d.get("help", ""),
                   d.get("default"), bool(d.get("repeats")))

    def allowed(self) -> str:
        many = ", or a list of them" if self.listable else ""
        if self.type == "choice":
            return "one of " + "|".join(map(str, self.choices)) + many
        if self.type == "bool":
            return "true or false" + many
        if self.type == "choice_list":
            entries = "entries" if self.repeats else "distinct entries"
            return f"a string or a list of strings: {entries} from " + ", ".join(self.choices)
        if self.type == "list":
            return "a string or a list of strings"
        if self.type == "string":
            return "a string, a number or a list of them (the worker checks it)"
        word = "an integer" if self.type == "int" else "a number"
        if self.min is not None and self.max is not None:
            return f"{word} in {_num(self.min)}..{_num(self.max)}" + many
        return word + many

    def check(self, value) -> str | None:
        """None if `value` is allowed, else what is wrong (without the key)."""
        t = self.type
        if t == "bool":
            ok = isinstance(value, bool)
        elif t == "int":
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, float) and value.is_integer())
        elif t == "number":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
        elif t == "choice":
            ok = isinstance(value, str) and value in self.choices
        elif t in ("choice_list", "list"):
            items = value if isinstance(value, list) else [value]
            ok = bool(items) and all(isinstance(v, str) and v for v in items)
            if ok and t == "choice_list":
                flat = [p for v in items for p in v.split(",")]
                ok = all(p in self.choices for p in flat) and (self.repeats or len(set(flat)) == len(flat))
        elif t == "string":
            # Text the worker reads itself (a number, or a comma-separated list such as
            # modes or pipeline_depth); a list is comma-joined.
            items = value if isinstance(value, list) else [value]
            ok = bool(items) and all(isinstance(v, (str, int, float)) and v == v for v in items)
        else:
            raise AssertionError(f"flag --{self.name}: unknown type {t!r} in the worker's --describe")
        if ok and t in ("int", "number") and self.min is not None:
            ok = self.min <= value <= self.max
        return None if ok else f"got {value!r} ({type(value).__name__}); allowed: {self.allowed()}"

    def value(self, value):
        """The checked TOML value in its canonical Python form (bpk = 6 and 6.0 are one run)."""
        if self.type == "int":
            return int(value)
        if self.type == "number":
            return float(value)
        if self.type == "string" and isinstance(value, float) and value.is_integer():
            return int(value)  # keys = 1e6 for a list-or-range flag: 1000000
        return value

    def render(self, value) -> str:
        """The value as text for `--name=`; a list (a collapsed key's values) comma-joined."""
        if isinstance(value, list):
            return ",".join(self.render(v) for v in value)
        if isinstance(value, bool):
            return "true" if value else "false"
        if self.type == "int":
            return str(int(value))
        return _num(value) if isinstance(value, (int, float)) else str(value)

    def args(self, value) -> list[str]:
        """The command-line arguments setting this flag to `value`."""
        if self.type == "list":
            return [f"--{self.name}={v}" for v in (value if isinstance(value, list) else [value])]
        return [f"--{self.name}={self.render(value)}"]


def _num(x) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


# Keys appended to each filter spec (`fastlocal` + bpk=10 → `fastlocal:bpk=10`).
# The registry checks their values per variant (validate.py); these types only
# catch a string where a number belongs before the registry is asked.
SPEC_PARAMS = {
    "bpk": Flag("bpk", "number", help="bits per key"),
    "probes": Flag("probes", "int", help="probes per key"),
    "hash": Flag("hash", "int", help="hash width in bits"),
}

# Flags the runner sets itself on every worker that has them; a config cannot.
# "threads" only on the threaded workers (the runner divides the cores among
# their runs); an exclusive worker such as lsmbench takes it from the config.
RUNNER_FLAGS = ("filter", "seed", "threads")


@dataclass(frozen=True)
class Worker:
    name: str  # as written in configs, e.g. "sim fp"
    binary: str  # relative to the build dir
    command: str | None  # the subcommand; None: the program's only command
    # Speed measurements must not share the machine with each other.
    exclusive: bool = False
    # Keys passed whole to one run (comma-joined) instead of expanded; in
    # `fixed` too they may be lists.
    collapse: frozenset = frozenset()
    # Whether the runner divides the cores between runs through --threads.
    threaded: bool = False
    # The flag through which the worker gets a fresh scratch directory (its
    # database) that the runner deletes afterwards; None = no scratch.
    scratch_flag: str | None = None
    # Flags a config may not set because the runner owns what they control
    # (lsmbench: the scratch database).
    withheld: tuple = ()
    # Sweeps may omit `filter` (the worker's default) or list NO_FILTER.
    filter_optional: bool = False
    # Other places the binary may be built (relative to the build dir).
    alternatives: tuple = ()
    # A peer program the worker runs, found through this environment variable
    # unless the config sets the flag of the same purpose (`peer_flag`): without
    # either, the sweep is skipped with a note rather than failing the config.
    peer_env: str | None = None
    peer_flag: str | None = None
    # name -> Flag, from the binary's --describe (with_flags); empty until then.
    flags: dict = field(default_factory=dict, compare=False)

    def path(self, build_dir: Path) -> Path:
        """build_dir/binary, else the first alternative that exists, else build_dir/binary."""
        for rel in (self.binary, *self.alternatives):
            if (build_dir / rel).exists():
                return build_dir / rel
        return build_dir / self.binary

    def with_flags(self, build_dir: Path) -> "Worker":
        """This worker with its flags as its binary describes them (describe.py raises
        DescribeError when the binary is missing or cannot describe itself)."""
        desc = command_description(self.path(build_dir), self.command)
        flags = {}
        for d in desc["flags"]:
            f = Flag.described(d)
            flags[f.name] = replace(f, listable=f.name in self.collapse)
        return replace(self, flags=flags)

    @property
    def seeded(self) -> bool:
        """Whether the worker takes --seed (the analytic model does not)."""
        return "seed" in self.flags

    @property
    def settable(self) -> dict:
        """The flags a config may set: every described flag but the runner's own."""
        runner = RUNNER_FLAGS if self.threaded else tuple(f for f in RUNNER_FLAGS if f != "threads")
        own = (*runner, *self.withheld, *([self.scratch_flag] if self.scratch_flag else []))
        return {k: f for k, f in self.flags.items() if k not in own}


# Runner-level knowledge of each worker; its flags come from the binary.
# lsmbench: one run = one process on a fresh database, its --benchmarks in
# order, one JSON record per benchmark. multiread_stride and
# multiread_batched are collapsed: lsmbench runs multireadrandom once per
# (stride, batched) pair on the one database it filled, each pass a record
# whose stride and multiread_batched fields say which (store.py: record
# fields refine the run's comma-joined columns). filter_policy and
# filter_budget_bpk likewise: lsmbench fills one tree and runs the
# benchmarks from its first rewritefilters on once per (budget, policy)
# pair, each record's filter_policy and filter_budget_bpk saying which.
# sim speed's pipeline_depth likewise: one record per depth.
WORKERS = {
    "sim fp": Worker("sim fp", "sim/filterlab-sim", "fp", threaded=True),
    "sim speed": Worker("sim speed", "sim/filterlab-sim", "speed", exclusive=True,
                        collapse=frozenset({"pipeline_depth"})),
    "sim model": Worker("sim model", "sim/filterlab-sim", "model"),
    "sim probes": Worker("sim probes", "sim/filterlab-sim", "probes", collapse=frozenset({"bpk"}), threaded=True),
    "sim floor": Worker("sim floor", "sim/filterlab-sim", "floor", exclusive=True, filter_optional=True),
    "sim lsm": Worker("sim lsm", "sim/filterlab-sim", "lsm"),
    "sim dynamic": Worker("sim dynamic", "sim/filterlab-sim", "dynamic", exclusive=True),
    "sim rangefp": Worker("sim rangefp", "sim/filterlab-sim", "rangefp"),
    "sim rangespeed": Worker("sim rangespeed", "sim/filterlab-sim", "rangespeed", exclusive=True),
    # RocksDB's own filter_bench (a release build outside the repo) with speed's parameters.
    "sim filter_bench": Worker("sim filter_bench", "sim/filterlab-sim", "filter_bench", exclusive=True,
                               peer_env="FILTERLAB_FILTER_BENCH", peer_flag="filter_bench"),
    "lsmbench": Worker("lsmbench", "engine/lsmbench", None, exclusive=True,
                       collapse=frozenset({"multiread_stride", "multiread_batched", "filter_policy",
                                                 "filter_budget_bpk"}), scratch_flag="db",
                       withheld=("use_existing_db", "keep_db"), filter_optional=True, alternatives=("lsmbench",)),
    # Google Benchmark binaries in their runner mode (common/gbench_main.cc): one record per
    # benchmark repetition, the name's arguments as args.* columns. No filter (filter_optional).
    "gbench engine": Worker("gbench engine", "engine/engine_bench", None, exclusive=True, filter_optional=True),
    "gbench filters": Worker("gbench filters", "filterlab_bench", None, exclusive=True, filter_optional=True),
}


def scratch_root() -> Path:
    """Where a run's scratch directory (lsmbench's database) goes: FILTERLAB_SCRATCH, else the temp dir.
    Read on the machine that runs it."""
    return Path(os.environ.get("FILTERLAB_SCRATCH") or tempfile.gettempdir())


def build_dir() -> Path:
    """FILTERLAB_BUILD, else <repo>/build."""
    return Path(os.environ.get("FILTERLAB_BUILD", ROOT / "build")).resolve()


def spec_params_of(worker: Worker, params: dict, *, collapsed: bool) -> dict:
    """The run's spec parameters that go into the spec (collapsed=False) or to their own flag (True)."""
    return {k: v for k, v in params.items() if k in SPEC_PARAMS and (k in worker.collapse) == collapsed}


def worker_argv(worker: Worker, build: Path, spec: str | None, params: dict, seed: int,
                threads: int | None) -> list[str]:
    """The command line of one run. `spec` is the filter spec with the run's
    spec parameters in it (Run.spec); `params` maps config keys to values. The
    scratch flag (lsmbench's --db) is added where the run executes (execute.py)."""
    argv = [str(worker.path(build)), *([worker.command] if worker.command else [])]
    if spec is not None:
        argv.append(f"--filter={spec}")
    for key, value in params.items():
        if key in SPEC_PARAMS:
            if key in worker.collapse:
                argv += SPEC_PARAMS[key].args(value)  # e.g. probes' --bpk=1,2,...,60
            continue
        argv += worker.flags[key].args(value)
    if worker.seeded:
        argv.append(f"--seed={seed}")
    if worker.threaded and threads is not None:
        argv.append(f"--threads={threads}")
    return argv
