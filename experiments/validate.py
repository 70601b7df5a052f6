"""The checks that need the build and the machine: every filter spec is
accepted by the C++ registry, every run's command line is accepted by its
worker (`WORKER ... --check`: the binary runs every check it would run before
measuring, and prints nothing), and no run needs more memory (or, for
lsmbench's databases, more scratch disk) than this machine has. Like
config.py, every problem is reported at once."""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .config import Config, ConfigError, Sweep
from .grid import Run, expand, interleave_repeats
from .registry import RegistryUnavailable, check_specs, example_specs, join, label, with_params
from .workers import NO_FILTER, SPEC_PARAMS, scratch_root, worker_argv

# Bytes a worker needs besides its data (binary, stacks, buffers).
BASE_MEM = 64 << 20


@dataclass
class Plan:
    """A validated config, ready to run."""

    config: Config
    build: Path
    runs: list[Run]
    # Informational notes, e.g. combinations "all" skipped because the registry rejects them.
    notes: list[str] = field(default_factory=list)
    build_ids: dict = field(default_factory=dict)


def mem_available() -> int:
    """MemAvailable from /proc/meminfo in bytes (a large number where unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 50


def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def estimate_mem(run: Run, bits_per_key: float, cores: int) -> int:
    """Peak bytes of one run (sim/README.md: a filter being built needs 8 bytes of hashes per key);
    settings the run leaves out are the worker's declared defaults."""
    v, w = run.setting, run.worker.name
    if w == "sim fp":
        keys, filters = v("keys"), v("filters")
        builders = min(filters, cores) if filters >= 4 * cores else 1
        return BASE_MEM + int(filters * keys * bits_per_key / 8 + builders * keys * 8)
    if w == "sim speed":
        mem = (v("working_set_mb") or 256) << 20  # 0 = 4x the last-level cache; 256 MiB stands for it
        modes = v("modes")
        modes = ",".join(modes) if isinstance(modes, list) else str(modes)
        if "huge" in modes.split(",") and not v("quick"):
            mem += int(v("huge_keys") * (bits_per_key / 8 + 8))
        return BASE_MEM + mem
    if w == "sim filter_bench":
        # filter_bench holds its filters, the builder's hashes and its readers (sim/filter_bench_command.cc).
        return BASE_MEM + 3 * (v("working_set_mb") << 20)
    if w == "sim probes":
        keys, filters, spread = v("keys"), v("filters"), v("spread")
        return BASE_MEM + int((2 * spread + 1) * keys * bits_per_key / 8 * min(filters, cores) + keys * 8 * cores)
    if w == "lsmbench":
        # Block cache (at most the data), two memtables (one flushing), filter
        # and index blocks and per-key overhead.
        num = v("num")
        raw = num * (v("key_size") + v("value_size"))
        cache = min(v("cache_mb") << 20, raw)
        return BASE_MEM + cache + 2 * int(v("write_buffer_mb") * (1 << 20)) + int(num * (bits_per_key / 8 + 16))
    return BASE_MEM


def estimate_disk(run: Run) -> int:
    """Scratch bytes of one run (lsmbench: the raw data, twice over for WAL and compaction output)."""
    if run.worker.scratch_flag is None:
        return 0
    v = run.setting
    return 2 * v("num") * (v("key_size") + v("value_size") + 16)


def plan(config: Config, build: Path, cores: int | None = None, mem_limit: int | None = None) -> Plan:
    """Checks `config` against the build and this machine and expands it; raises ConfigError."""
    cores = cores or os.cpu_count() or 1
    mem_limit = mem_limit if mem_limit is not None else mem_available()
    path = config.path
    problems, notes = [], []
    build_ids = {}
    for sweep in config.sweeps:
        binary = sweep.worker.path(build)
        if not binary.exists():
            problems.append(f"{path}: {sweep.where('worker')}: '{sweep.worker.name}' needs {binary}, which does "
                            f"not exist; build it (./filterlab build) or point FILTERLAB_BUILD at a build dir")
        else:
            build_ids[sweep.worker.binary] = file_hash(binary)
    if problems:
        raise ConfigError(problems)

    try:
        filters_by_sweep, labels, ignored = _resolve_filters(config, build, problems, notes)
    except RegistryUnavailable as e:
        raise ConfigError([f"{path}: cannot ask the filter registry: {e}"]) from None
    if problems:
        raise ConfigError(problems)

    runs = []
    for sweep in config.sweeps:
        peer = sweep.worker.peer_env
        if peer and not os.environ.get(peer) and sweep.worker.peer_flag not in sweep.fixed:
            notes.append(f"{sweep.where('worker')}: sweep '{sweep.name}' skipped: '{sweep.worker.name}' runs a peer "
                         f"program this machine was not given (set {peer}, or {sweep.worker.peer_flag} in the "
                         "sweep's fixed values)")
            continue
        bid = build_ids[sweep.worker.binary]
        sweep_runs = expand(_only(config, sweep), {sweep.name: filters_by_sweep[sweep.name]}, bid, ignored)
        for run in sweep_runs:
            run.label = labels.get(run.base_filter)
            bpk = run.params.get("bpk", 10)
            bpk = max(bpk) if isinstance(bpk, list) else bpk
            run.mem_bytes = estimate_mem(run, float(bpk), cores)
        too_big = [r for r in sweep_runs if r.mem_bytes > mem_limit]
        if too_big:
            worst = max(too_big, key=lambda r: r.mem_bytes)
            sized = [k for k in ("keys", "filters", "huge_keys", "working_set_mb", "bpk") if k in worst.params]
            problems.append(
                f"{path}: {sweep.where('/'.join(f'{k}' for k in sized) or 'grid')}: {len(too_big)} run(s) need more "
                f"memory than this machine has available, e.g. {worst.describe()} needs about "
                f"{worst.mem_bytes / 2**30:.1f} GiB; allowed: at most {mem_limit / 2**30:.1f} GiB per run "
                f"(MemAvailable); a filter of n keys at b bits/key needs about n*(8 + b/8) bytes while it is built")
        runs += sweep_runs
    disk = max((estimate_disk(r) for r in runs), default=0)
    if disk:
        root = scratch_root()
        try:
            free = shutil.disk_usage(root).free
        except OSError as e:
            free = None
            problems.append(f"{path}: lsmbench needs a scratch directory for its databases, but {root} is not "
                            f"usable ({e.strerror}); allowed: set FILTERLAB_SCRATCH to a writable directory")
        if free is not None and disk > free:
            worst = max(runs, key=estimate_disk)
            problems.append(f"{path}: {worst.sweep}: num: {worst.describe()} needs about {disk / 2**30:.1f} GiB of "
                            f"scratch disk for its database; allowed: at most {free / 2**30:.1f} GiB (free in {root}; "
                            "set FILTERLAB_SCRATCH to use another disk)")
    if problems:
        raise ConfigError(problems)
    problems += check_runs(config, build, runs)
    if problems:
        raise ConfigError(problems)
    runs = interleave_repeats(runs, config)
    keys = [r.key for r in runs]
    if len(set(keys)) != len(keys):
        raise ConfigError([f"{path}: two runs have identical parameters (e.g. a filter listed in two ways); "
                           "each run must differ"])
    return Plan(config, build, runs, notes, build_ids)


def _only(config: Config, sweep: Sweep) -> Config:
    return Config(config.path, config.name, config.description, config.claim, config.plots, config.tables, [sweep])


def _resolve_filters(config: Config, build: Path, problems: list, notes: list) -> tuple[dict, dict, dict]:
    """Base filter specs per sweep, with "all" expanded, every combination checked
    by the registry; each base spec's label (registry.label); and, per sweep, the
    spec parameters an "all" base does not take (a fingerprint filter sized by its
    layout has no bpk): such a base runs once per setting of the other keys, at
    its own size, instead of being dropped or failing the sweep."""
    path = config.path
    out, answers = {}, {}
    ignored: dict[str, dict[str, tuple]] = {}  # sweep -> base -> spec keys it does not take
    wanted: dict[str, list] = {}  # full spec -> [(sweep, base, params)]
    for sweep in config.sweeps:
        set_here = [k for k in SPEC_PARAMS if k in sweep.fixed or k in sweep.grid]
        if sweep.filters is None and not sweep.all_filters:
            out[sweep.name] = None  # the worker's default filter (lsmbench)
            continue
        if sweep.all_filters:
            # Each example without the parameters the sweep sets, once.
            examples = check_specs(build, example_specs(build))
            bases = list(dict.fromkeys(join(a["variant"], {k: v for k, v in a["params"].items() if k not in set_here})
                                       for a in examples.values()))
            for a in examples.values():
                base = join(a["variant"], {k: v for k, v in a["params"].items() if k not in set_here})
                skip = tuple(k for k in set_here if a["keys"] is not None and k not in a["keys"])
                if skip and base not in ignored.setdefault(sweep.name, {}):
                    ignored[sweep.name][base] = skip
                    notes.append(f"{sweep.where('filter')} = \"all\": '{base}' takes no {', '.join(skip)}; "
                                 "it runs once per setting of the other keys, at its own size")
        else:
            bases = list(sweep.filters)
            parsed = check_specs(build, [b for b in bases if b != NO_FILTER])
            for base, a in parsed.items():
                clash = [k for k in set_here if k in a["params"]]
                if clash:
                    problems.append(f"{path}: {sweep.where('filter')}: '{base}' sets {clash[0]}, which the sweep's "
                                    f"fixed/grid also sets; allowed: set each parameter in one place")
        out[sweep.name] = bases
        for base in bases:
            if base == NO_FILTER:
                continue
            for combo in _spec_param_combos(sweep, ignored.get(sweep.name, {}).get(base, ())):
                spec = with_params(base, {k: SPEC_PARAMS[k].render(v) for k, v in combo.items()})
                wanted.setdefault(spec, []).append((sweep, base, combo))
    if problems:
        return out, {}, ignored
    answers = check_specs(build, list(wanted))
    bases = [b for bs in out.values() if bs for b in bs if b != NO_FILTER]
    labels = {b: label(a) for b, a in check_specs(build, bases).items()}
    rejected: dict[tuple, list] = {}
    for spec, uses in wanted.items():
        err = answers[spec]["error"]
        if err is None:
            continue
        for sweep, base, combo in uses:
            rejected.setdefault((sweep.name, base), []).append((spec, combo, err))
    for sweep in config.sweeps:
        if out[sweep.name] is None:
            continue
        keep = []
        for base in out[sweep.name]:
            bad = rejected.get((sweep.name, base))
            if not bad:
                keep.append(base)
                continue
            combos = _spec_param_combos(sweep, ignored.get(sweep.name, {}).get(base, ()))
            if sweep.all_filters:
                if len(bad) == len(combos):
                    notes.append(f"{sweep.where('filter')} = \"all\": skipped '{base}': {bad[0][2]}")
                    continue
                problems.append(f"{path}: {sweep.where('grid')}: the registry rejects '{bad[0][0]}' (from \"all\"): "
                                f"{bad[0][2]}")
                continue
            spec, combo, err = bad[0]
            where = "filter" if len(bad) == len(combos) else "grid"
            extra = f" ({len(bad)} of {len(combos)} grid combinations fail)" if len(bad) > 1 else ""
            problems.append(f"{path}: {sweep.where(where)}: the filter registry rejects '{spec}'{extra}: {err}")
        out[sweep.name] = keep
        if not keep and not problems:
            problems.append(f"{path}: {sweep.where('filter')}: no filter left to run")
    return out, labels, ignored


def _spec_param_combos(sweep: Sweep, skip: tuple = ()) -> list[dict]:
    """Every combination of spec parameters the sweep will put into a spec (a
    collapsed one, e.g. the probes worker's bpk, goes to its own flag instead;
    `skip`: keys the base does not take)."""
    keys = [k for k in SPEC_PARAMS if (k in sweep.fixed or k in sweep.grid) and k not in sweep.worker.collapse
            and k not in skip]
    lists = []
    for k in keys:
        v = sweep.grid.get(k, sweep.fixed.get(k))
        lists.append(v if isinstance(v, list) else [v])
    return [dict(zip(keys, c)) for c in itertools.product(*lists)]


# Wall seconds one `--check` may take. A check needs milliseconds of CPU, but on a loaded machine
# (a runner at low priority beside builds: load 19 on 2 cores was seen) its process can wait many
# seconds for a core; 10 s failed a valid config there. A worker that measures instead of checking is
# caught by its output, so the limit only has to catch a hang.
CHECK_TIMEOUT = 120


def check_argv(run: Run, build: Path, spec: str | None = None) -> list[str]:
    """The run's command line with --check (threads and scratch, which the executor adds, left out);
    `spec` in place of the run's own where given (check_runs: its canonical form)."""
    return [*worker_argv(run.worker, build, spec or run.spec, run.params, run.seed, None), "--check"]


def _checks_canonical(run: Run) -> bool:
    """Whether the run's --check may name its spec's canonical form (check_runs says why): not for a
    peer, whose mapping to the peer's flags reads the spec as written, nor where a spec key goes to
    its own flag (sim probes' bpk list), which the canonical form would set a second time."""
    return (run.spec is not None and run.spec != NO_FILTER and run.worker.peer_env is None
            and not any(k in SPEC_PARAMS for k in run.worker.collapse))


def _check_one(argv: list[str]) -> str | None:
    """None if the worker accepts argv, else its message."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"--check did not return within {CHECK_TIMEOUT} s (does this build honor --check? rebuild)"
    except OSError as e:
        return f"cannot execute {argv[0]}: {e.strerror or e}"
    if out.returncode == 0 and out.stdout.strip():
        return ("it ran instead of checking (printed records for --check); this build does not honor --check: "
                "rebuild (./filterlab build)")
    if out.returncode == 0:
        return None
    return out.stderr.strip() or out.stdout.strip() or f"exit {out.returncode}"


def check_runs(config: Config, build: Path, runs: list[Run], jobs: int | None = None) -> list[str]:
    """Each distinct command line checked by its worker (`--check`, in parallel);
    per sweep and message, the first run it rejects and how many more.

    A spec is checked in its canonical form (the registry's answer, which plan() has already asked
    for), the same filter with every parameter explicit: a worker given a model-optimal worm variant
    without its probe count searches the FP model for it at start-up, 30-150 ms a process, which
    was most of the 20 s fp_vs_bits' 1401 checks took on 2 cores; with the count given it starts in
    ~4 ms."""
    canonical: dict[str, str] = {}
    specs = list(dict.fromkeys(run.spec for run in runs if _checks_canonical(run)))
    if specs:
        try:
            canonical = {s: a["canonical"] for s, a in check_specs(build, specs).items() if a["error"] is None}
        except RegistryUnavailable:
            canonical = {}  # each run is checked with its spec as written
    argvs = {}
    for run in runs:
        spec = canonical.get(run.spec) if _checks_canonical(run) else None
        argvs.setdefault(tuple(check_argv(run, build, spec)), []).append(run)
    with ThreadPoolExecutor(max_workers=jobs or 2 * (os.cpu_count() or 1)) as pool:
        verdicts = dict(zip(argvs, pool.map(_check_one, map(list, argvs))))
    failed: dict[tuple, list] = {}
    for argv, rs in argvs.items():
        if verdicts[argv] is not None:
            for run in rs:
                failed.setdefault((run.sweep, verdicts[argv]), []).append(run)
    problems = []
    for (sweep, message), rs in failed.items():
        more = f" (and {len(rs) - 1} more run(s) of this sweep)" if len(rs) > 1 else ""
        problems.append(f"{config.path}: sweep '{sweep}': run {rs[0].describe()}{more}: {rs[0].worker.name} "
                        f"rejects it: {message}")
    return problems
