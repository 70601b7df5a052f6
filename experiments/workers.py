"""The C++ workers a config can name, and the flags each accepts.

A config's `fixed` and `grid` keys are either *spec parameters* (bpk, probes,
hash: they are appended to each filter spec, `fastlocal` + bpk=10 →
`fastlocal:bpk=10`) or *worker flags*. The tables below are the only place
that knows a worker's command line; they mirror `filterlab-sim COMMAND --help`
and lsmbench's db_bench-style flags (the C++ side re-validates every value).
Two flag styles: the sim's (`keys` → `--keys 1000`, booleans as bare flags)
and db_bench's gflags (`batch_size` → `--batch_size=4`, `--hash_index=true`)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Param:
    """One settable value: its type and what is allowed."""

    kind: str  # "int", "float", "bool", "choice", "csv" (comma-joined strings), "spec" (a filter spec or "none")
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    doc: str = ""
    # A collapsed key (Worker.collapse) that may also be written as a list of
    # such values (one run takes them all); said in the error messages.
    listable: bool = False

    def allowed(self) -> str:
        if self.kind == "choice":
            one = "one of " + "|".join(map(str, self.choices))
            return one + (", or a list of them" if self.listable else "")
        if self.kind == "bool":
            return "true or false"
        if self.kind == "csv":
            what = "a string or a list of strings"
            return what + (f" from {', '.join(self.choices)}" if self.choices else "")
        if self.kind == "spec":
            return f"a filter spec such as \"dynamic:bpk=8\", or \"{NO_FILTER}\""
        word = "an integer" if self.kind == "int" else "a number"
        if self.lo is not None and self.hi is not None:
            return f"{word} in {_num(self.lo)}..{_num(self.hi)}"
        return word

    def check(self, value) -> str | None:
        """None if `value` is allowed, else what is wrong (without the key)."""
        if self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "int":
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, float) and value.is_integer()
            )
        elif self.kind == "float":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
        elif self.kind == "choice":
            ok = value in self.choices and type(value) is type(self.choices[0])
        elif self.kind == "csv":
            items = value if isinstance(value, list) else [value]
            ok = bool(items) and all(isinstance(v, str) and v for v in items)
            if ok and self.choices:
                flat = [p for v in items for p in v.split(",")]
                ok = all(p in self.choices for p in flat)
        elif self.kind == "spec":
            ok = isinstance(value, str) and bool(value.strip())  # the registry checks the rest (validate.py)
        else:
            raise AssertionError(self.kind)
        if ok and self.kind in ("int", "float") and self.lo is not None:
            ok = self.lo <= value <= self.hi
        return None if ok else f"got {value!r} ({type(value).__name__}); allowed: {self.allowed()}"

    def render(self, value) -> str:
        """The value as the worker's command line wants it; a list (a collapsed key's
        values, see Worker.collapse) comma-joined, each value rendered alone."""
        if isinstance(value, list) and self.kind != "csv":
            return ",".join(self.render(v) for v in value)
        if self.kind == "int":
            return str(int(value))
        if self.kind == "csv":
            return ",".join(value) if isinstance(value, list) else value
        if self.kind == "bool":
            return "true" if value else "false"
        return _num(value) if self.kind == "float" else str(value)


def _num(x) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


# The filter "spec" meaning no filter at all (lsmbench: --filter=none,
# --memtable_filter=none); never sent to the registry.
NO_FILTER = "none"

# Spec parameters common to the variants (../shared brief: "Common keys"). The
# registry decides per variant what is really allowed; these bounds only catch
# type errors early.
SPEC_PARAMS = {
    "bpk": Param("float", 0.5, 100, doc="bits per key"),
    "probes": Param("int", 1, 64, doc="probes per key"),
    "hash": Param("choice", choices=(32, 64), doc="hash width in bits"),
}


@dataclass(frozen=True)
class Worker:
    name: str  # as written in configs, e.g. "sim fp"
    binary: str  # relative to the build dir
    command: tuple  # leading arguments
    flags: dict
    # Speed measurements must not share the machine with each other.
    exclusive: bool = False
    # Grid keys passed whole to one run (comma-joined) instead of expanded; in
    # `fixed` too they may be lists (config.py checks each value with the
    # key's Param, Param.render joins them).
    collapse: frozenset = frozenset()
    # Whether runs take a --threads flag the runner sets.
    threaded: bool = False
    # Whether the worker takes --seed (the analytic model does not).
    seeded: bool = True
    seed_param: Param = field(default_factory=lambda: Param("int", 0, 2**62))
    # db_bench-style flags: --key=value, booleans as --key=true|false.
    gflags: bool = False
    # The worker prints human-readable lines besides its JSON records (ignored).
    text_output: bool = False
    # The flag through which the worker gets a fresh scratch directory (its
    # database) that the runner deletes afterwards; None = no scratch.
    scratch_flag: str | None = None
    # Sweeps may omit `filter` (the worker's default) or list NO_FILTER.
    filter_optional: bool = False
    # Other places the binary may be built (relative to the build dir).
    alternatives: tuple = ()

    def path(self, build_dir: Path) -> Path:
        """build_dir/binary, else the first alternative that exists, else build_dir/binary."""
        for rel in (self.binary, *self.alternatives):
            if (build_dir / rel).exists():
                return build_dir / rel
        return build_dir / self.binary

    def flag(self, key: str, rendered: str | None = None) -> list[str]:
        """One flag in this worker's style; rendered=None is a bare boolean flag."""
        if self.gflags:
            return [f"--{key}" if rendered is None else f"--{key}={rendered}"]
        name = "--" + key
        return [name] if rendered is None else [name, rendered]


_INT = lambda lo, hi, doc="": Param("int", lo, hi, doc=doc)  # noqa: E731

# lsmbench --benchmarks (db_bench's names; `lsmbench --help`).
LSMBENCH_BENCHMARKS = ("fillseq", "fillrandom", "filluniquerandom", "overwrite", "readrandom", "readmissing",
                       "readseq", "seekrandom", "multireadrandom", "approximatememtablestats", "readwhilewriting",
                       "flush", "compact", "waitforcompaction", "stats")

WORKERS = {
    "sim fp": Worker(
        "sim fp",
        "sim/filterlab-sim",
        ("fp",),
        {
            "keys": _INT(1, 10**12, "keys per filter"),
            "filters": _INT(1, 10**9, "number of filters"),
            "queries": _INT(1, 10**15, "total outside queries"),
            "hash_source": Param("choice", choices=("synthetic", "keys")),
            "key_size": _INT(16, 48),
            "batch": _INT(1, 2048),
        },
        threaded=True,
    ),
    "sim speed": Worker(
        "sim speed",
        "sim/filterlab-sim",
        ("speed",),
        {
            "working_set_mb": _INT(0, 1048576),
            "average_keys": _INT(10, 10**8),
            "vary_ratio": Param("float", 0, 0.9),
            "key_size": _INT(16, 48),
            "queries": _INT(1000, 10**10),
            "modes": Param("csv", choices=("build", "single", "random", "random_pipelined", "batched", "skewed",
                                           "huge")),
            "mixes": Param("csv", choices=("inside", "outside", "mixed")),
            "batch_sizes": Param("csv"),
            "huge_keys": _INT(1000, 2 * 10**9),
            "huge_pages": Param("choice", choices=("auto", "on", "off")),
            "net_includes_hashing": Param("bool"),
            "quick": Param("bool"),
            "no_floor": Param("bool"),
            # random_pipelined: queries per group (a group's lines are prefetched
            # while the group before it is answered).
            # Collapsed: a list (pipeline_depth = [8, 16, 32]) goes comma-joined to
            # one run, which writes one record per depth (its pipeline_depth field;
            # 0 in the records of other modes).
            "pipeline_depth": Param("choice", choices=(4, 8, 16, 32, 64), listable=True,
                                    doc="random_pipelined: queries per group, prefetched one group ahead"),
            "rounds": _INT(1, 100, "parts per measurement; net and x_floor are medians over parts"),
            "query_path": Param("choice", choices=("view", "object"),
                                doc="view: the harness's per-filter FilterView; object: the Filter's virtual "
                                    "MayContain, as filter_bench"),
        },
        exclusive=True,
        collapse=frozenset({"pipeline_depth"}),
        seed_param=Param("int", 0, 2**32 - 1),
    ),
    "sim model": Worker(
        "sim model",
        "sim/filterlab-sim",
        ("model",),
        {"keys": _INT(1, 10**13, "keys in the filter")},
        seeded=False,
    ),
    "sim probes": Worker(
        "sim probes",
        "sim/filterlab-sim",
        ("probes",),
        {
            "keys": _INT(100, 10**8),
            "filters": _INT(1, 10**6),
            "queries": _INT(1000, 10**11),
            "spread": _INT(0, 10),
            "no_boundaries": Param("bool"),
        },
        collapse=frozenset({"bpk"}),
        threaded=True,
    ),
    # The engine's db_bench-style tool (engine/tools/lsmbench.cc; issue 6). One
    # run = one process on a fresh database: its --benchmarks in order, one JSON
    # record per benchmark (db_bench's text lines beside them are ignored).
    # multiread_stride and multiread_batched are collapsed: lsmbench takes
    # lists of them and runs multireadrandom once per (stride, batched) pair on
    # the one database it filled, each pass a record whose stride and
    # multiread_batched fields say which (store.py: record fields override the
    # run's comma-joined columns), so the fill is paid once per run, not per pair.
    "lsmbench": Worker(
        "lsmbench",
        "engine/lsmbench",
        (),
        {
            "benchmarks": Param("csv", choices=LSMBENCH_BENCHMARKS, doc="run in order on one database"),
            "engine": Param("choice", choices=("filterlab", "rocksdb", "memtable")),
            "num": _INT(1, 10**10, "keys written by fill*"),
            "reads": _INT(1, 10**12, "operations of each read benchmark"),
            "key_size": _INT(8, 65536),
            "value_size": _INT(0, 64 << 20),
            "memtable_filter": Param("spec", doc=f"memtable whole-key filter (a dynamic variant) or {NO_FILTER}"),
            "memtable_bloom_ratio": Param("float", 0.0001, 0.25, doc="memtable filter bits per write-buffer byte / 8"),
            "hash_index": Param("bool", doc="data-block hash index"),
            "util_ratio": Param("float", 0.01, 1, doc="hash index utilisation (keys per bucket)"),
            "batch_size": _INT(1, 10**6, "multireadrandom keys per call; approximatememtablestats range width"),
            "multiread_stride": _INT(0, 10**9, "0 = independent random keys; a list: one multireadrandom pass "
                                     "per stride"),
            "multiread_batched": Param("bool", doc="false: a loop of Get over the same keys (the baseline); "
                                       "[true, false]: both passes"),
            "approx_algorithm": Param("choice", choices=("new", "old"), doc="memtable range estimate"),
            "seek_nexts": _INT(0, 10**6, "seekrandom: Next() calls after each Seek"),
            "histogram": Param("bool", doc="time each call: latency percentiles"),
            "block_size": _INT(256, 64 << 20),
            "cache_mb": _INT(0, 1 << 20, "block cache"),
            "write_buffer_mb": _INT(1, 1 << 16, "memtable size"),
            "target_file_mb": _INT(1, 1 << 16),
            "level1_mb": _INT(1, 1 << 24),
            "disable_auto_compactions": Param("bool"),
            "statistics": Param("bool", doc="rocksdb only: its Statistics tickers"),
        },
        exclusive=True,
        collapse=frozenset({"multiread_stride", "multiread_batched"}),
        seed_param=Param("int", 0, 2**31 - 1),
        gflags=True,
        text_output=True,
        scratch_flag="db",
        filter_optional=True,
        alternatives=("lsmbench",),
    ),
}


def scratch_root() -> Path:
    """Where a run's scratch directory (lsmbench's database) goes: FILTERLAB_SCRATCH, else the temp dir.
    Read on the machine that runs it."""
    return Path(os.environ.get("FILTERLAB_SCRATCH") or tempfile.gettempdir())


def build_dir() -> Path:
    """FILTERLAB_BUILD, else <repo>/build."""
    return Path(os.environ.get("FILTERLAB_BUILD", ROOT / "build")).resolve()


def split_spec(spec: str) -> tuple[str, dict]:
    """'worm:variant=x,bpk=10' → ('worm', {'variant': 'x', 'bpk': '10'})."""
    name, _, rest = spec.partition(":")
    params = {}
    for part in filter(None, rest.split(",")):
        k, _, v = part.partition("=")
        params[k.strip()] = v.strip()
    return name.strip(), params


def join_spec(name: str, params: dict) -> str:
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def worker_argv(worker: Worker, build: Path, base_filter: str | None, params: dict, seed: int,
                threads: int | None) -> list[str]:
    """The command line of one run. `params` maps config keys to values. The
    scratch flag (lsmbench's --db) is added where the run executes (execute.py)."""
    argv = [str(worker.path(build)), *worker.command]
    spec_params = {k: v for k, v in params.items() if k in SPEC_PARAMS}
    if worker.name == "sim probes":
        name, extra = split_spec(base_filter)
        extra.update({k: SPEC_PARAMS[k].render(v) for k, v in spec_params.items() if k != "bpk"})
        argv += ["--filter", join_spec(name, extra)]
        if "bpk" in spec_params:
            bpk = spec_params["bpk"]
            argv += ["--bpk", ",".join(map(_num, bpk if isinstance(bpk, list) else [bpk]))]
    elif base_filter is not None:
        argv += worker.flag("filter", spec_with(base_filter, spec_params))
    for key, value in params.items():
        if key in SPEC_PARAMS:
            continue
        p = worker.flags[key]
        if p.kind == "bool" and not worker.gflags:
            if value:
                argv += worker.flag(key)
        else:
            argv += worker.flag(key, p.render(value))
    if worker.seeded:
        argv += worker.flag("seed", str(seed))
    if worker.threaded and threads is not None:
        argv += worker.flag("threads", str(threads))
    return argv


def spec_with(base_filter: str, spec_params: dict) -> str:
    """The base spec with the sweep's spec parameters set (NO_FILTER stays as it is)."""
    if base_filter == NO_FILTER:
        return base_filter
    name, params = split_spec(base_filter)
    for k, v in spec_params.items():
        params[k] = SPEC_PARAMS[k].render(v)
    return join_spec(name, params)
