"""The checks that need the build and the machine: the workers exist, every
filter spec is accepted by the C++ registry, and no run needs more memory than
this machine has. Like config.py, every problem is reported at once."""

from __future__ import annotations

import hashlib
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

from .config import Config, ConfigError, Sweep
from .grid import Run, expand
from .registry import RegistryUnavailable, check_specs, example_specs
from .workers import SPEC_PARAMS, split_spec, join_spec, spec_with

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
    """Peak bytes of one run (sim/README.md: a filter being built needs 8 bytes of hashes per key)."""
    p, w = run.params, run.worker.name
    if w == "sim fp":
        keys, filters = p.get("keys", 1_000_000), p.get("filters", 1)
        builders = min(filters, cores) if filters >= 4 * cores else 1
        return BASE_MEM + int(filters * keys * bits_per_key / 8 + builders * keys * 8)
    if w == "sim speed":
        ws = p.get("working_set_mb", 0) or 256
        mem = ws << 20
        modes = p.get("modes", "build,single,random,batched,skewed,huge")
        modes = ",".join(modes) if isinstance(modes, list) else modes
        if "huge" in modes and not p.get("quick", False):
            huge = p.get("huge_keys", 100_000_000)
            mem += int(huge * (bits_per_key / 8 + 8))
        return BASE_MEM + mem
    if w == "sim probes":
        keys, filters, spread = p.get("keys", 100_000), p.get("filters", 16), p.get("spread", 2)
        return BASE_MEM + int((2 * spread + 1) * keys * bits_per_key / 8 * min(filters, cores) + keys * 8 * cores)
    return BASE_MEM


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
        filters_by_sweep = _resolve_filters(config, build, problems, notes)
    except RegistryUnavailable as e:
        raise ConfigError([f"{path}: cannot ask the filter registry: {e}"]) from None
    if problems:
        raise ConfigError(problems)

    runs = []
    for sweep in config.sweeps:
        bid = build_ids[sweep.worker.binary]
        sweep_runs = expand(_only(config, sweep), {sweep.name: filters_by_sweep[sweep.name]}, bid)
        for run in sweep_runs:
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
    if problems:
        raise ConfigError(problems)
    keys = [r.key for r in runs]
    if len(set(keys)) != len(keys):
        raise ConfigError([f"{path}: two runs have identical parameters (e.g. a filter listed in two ways); "
                           "each run must differ"])
    return Plan(config, build, runs, notes, build_ids)


def _only(config: Config, sweep: Sweep) -> Config:
    return Config(config.path, config.name, config.description, config.claim, config.plots, config.tables, [sweep])


def _resolve_filters(config: Config, build: Path, problems: list, notes: list) -> dict:
    """Base filter specs per sweep, with "all" expanded, every combination checked by the registry."""
    path = config.path
    out = {}
    examples = None
    wanted: dict[str, list] = {}  # full spec -> [(sweep, base, params)]
    for sweep in config.sweeps:
        set_here = [k for k in SPEC_PARAMS if k in sweep.fixed or k in sweep.grid]
        if sweep.all_filters:
            if examples is None:
                examples = example_specs(build)
            bases = []
            for ex in examples:
                name, params = split_spec(ex)
                for k in set_here:
                    params.pop(k, None)
                base = join_spec(name, params)
                if base not in bases:
                    bases.append(base)
        else:
            bases = list(sweep.filters)
            for base in bases:
                name, params = split_spec(base)
                clash = [k for k in set_here if k in params]
                if clash:
                    problems.append(f"{path}: {sweep.where('filter')}: '{base}' sets {clash[0]}, which the sweep's "
                                    f"fixed/grid also sets; allowed: set each parameter in one place")
                if sweep.worker.name == "sim probes" and "probes" in params | {k: 1 for k in set_here}:
                    problems.append(f"{path}: {sweep.where('filter')}: '{base}': the probes worker chooses probes "
                                    "itself; allowed: a spec without probes")
        out[sweep.name] = bases
        combos = _spec_param_combos(sweep)
        for base in bases:
            for combo in combos:
                wanted.setdefault(spec_with(base, combo), []).append((sweep, base, combo))
    if problems:
        return out
    answers = check_specs(build, list(wanted))
    rejected: dict[tuple, list] = {}
    for spec, uses in wanted.items():
        ans = answers[spec]
        if ans["ok"]:
            continue
        for sweep, base, combo in uses:
            rejected.setdefault((sweep.name, base), []).append((spec, combo, ans["error"]))
    for sweep in config.sweeps:
        keep = []
        for base in out[sweep.name]:
            bad = rejected.get((sweep.name, base))
            if not bad:
                keep.append(base)
                continue
            combos = _spec_param_combos(sweep)
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
    return out


def _spec_param_combos(sweep: Sweep) -> list[dict]:
    """Every combination of spec parameters the sweep will put into a spec (probes: each bpk alone)."""
    keys = [k for k in SPEC_PARAMS if k in sweep.fixed or k in sweep.grid]
    lists = []
    for k in keys:
        v = sweep.grid.get(k, sweep.fixed.get(k))
        lists.append(v if isinstance(v, list) else [v])
    return [dict(zip(keys, c)) for c in itertools.product(*lists)]
