"""Grid expansion: a checked Sweep becomes its list of runs, each keyed by a
hash of its parameters and the build, so results from another build or other
parameters are never mistaken for this run's."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field

from .config import Config, Sweep
from .registry import with_params
from .workers import NO_FILTER, SPEC_PARAMS, Worker, spec_params_of


@dataclass
class Run:
    experiment: str
    sweep: str
    worker: Worker = field(repr=False)
    base_filter: str | None
    params: dict  # config key -> value (fixed and grid), in config order
    seed: int
    build_id: str
    # Estimated peak memory in bytes (validate.py fills it in).
    mem_bytes: int = 0
    # Run alone, with nothing else on the machine (speed, or very large).
    exclusive: bool = False
    # How figures name base_filter (registry.label; validate.py fills it in).
    label: str | None = None

    @property
    def spec(self) -> str | None:
        """The filter spec the worker receives (None for the worker's default): the
        base spec with the run's spec parameters appended (collapsed ones go to
        their own flag; NO_FILTER stays as it is)."""
        if self.base_filter is None or self.base_filter == NO_FILTER:
            return self.base_filter
        params = spec_params_of(self.worker, self.params, collapsed=False)
        return with_params(self.base_filter, {k: SPEC_PARAMS[k].render(v) for k, v in params.items()})

    def setting(self, key: str):
        """The value the worker runs with for `key`: the run's, else the flag's declared default."""
        if key in self.params:
            return self.params[key]
        return self.worker.flags[key].default

    def identity(self) -> dict:
        """Everything that decides this run's output (threads do not: counts are thread-independent)."""
        return {"worker": self.worker.name, "filter": self.base_filter, "params": self.params,
                "seed": self.seed, "build": self.build_id}

    @property
    def key(self) -> str:
        blob = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:20]

    def describe(self) -> str:
        parts = [self.sweep, self.worker.name]
        if self.base_filter:
            parts.append(self.spec)
        parts += [f"{k}={v}" for k, v in self.params.items() if k not in SPEC_PARAMS or k in self.worker.collapse]
        if self.worker.seeded:
            parts.append(f"seed={self.seed}")
        return " ".join(str(p) for p in parts)


def expand_sweep(experiment: str, sweep: Sweep, filters: list[str] | None, build_id: str,
                 ignored: dict[str, tuple] | None = None) -> list[Run]:
    """The product of filters × grid values × seeds, fixed values added to each.
    Collapsed keys (passed whole to one run) stay lists. `ignored`: per base
    filter, spec keys it does not take (validate.py): left out of its runs, so
    it runs once per setting of the other keys.

    Speed sweeps (exclusive workers) come repeat-major: every configuration's
    first repeat, then every second one, ... On a shared machine a burst of
    other load then slows one repeat of many configurations, which the median
    over repeats discards, instead of every repeat of one configuration, which
    would turn into a false difference between configurations."""
    whole = {k: v for k, v in sweep.grid.items() if k in sweep.worker.collapse}
    by_repeat: list[list[Run]] = [[] for _ in sweep.seeds]
    for base in (filters if filters is not None else [None]):
        skip = (ignored or {}).get(base, ())
        expand_keys = [k for k in sweep.grid if k not in sweep.worker.collapse and k not in skip]
        fixed = {k: v for k, v in {**sweep.fixed, **whole}.items() if k not in skip}
        for combo in itertools.product(*(sweep.grid[k] for k in expand_keys)):
            params = {**fixed, **dict(zip(expand_keys, combo))}
            for i, seed in enumerate(sweep.seeds):
                by_repeat[i].append(Run(experiment, sweep.name, sweep.worker, base, params, seed, build_id,
                                        exclusive=sweep.worker.exclusive))
    if sweep.worker.exclusive:
        return [run for repeat in by_repeat for run in repeat]
    # Other sweeps keep each configuration's repeats together.
    return [by_repeat[i][j] for j in range(len(by_repeat[0]) if by_repeat else 0) for i in range(len(by_repeat))]


def interleave_repeats(runs: list[Run], config: Config) -> list[Run]:
    """The exclusive (speed) runs of all sweeps repeat-major together: every sweep's first repeat,
    then every second one, ... so that measurements compared across sweeps (ours beside a peer's)
    are taken in interleaved rounds; within a repeat, sweeps keep their config order. Other runs
    keep their order, before the exclusive ones (which run after them anyway)."""
    repeat_of = {}
    for sweep in config.sweeps:
        for i, seed in enumerate(sweep.seeds):
            repeat_of[(sweep.name, seed)] = i
    shared = [r for r in runs if not r.exclusive]
    alone = [r for r in runs if r.exclusive]
    order = {id(r): k for k, r in enumerate(alone)}
    alone.sort(key=lambda r: (repeat_of.get((r.sweep, r.seed), 0), order[id(r)]))
    return shared + alone


def expand(config: Config, filters_by_sweep: dict[str, list[str] | None], build_id: str,
           ignored: dict[str, dict[str, tuple]] | None = None) -> list[Run]:
    runs = []
    for sweep in config.sweeps:
        runs += expand_sweep(config.name, sweep, filters_by_sweep.get(sweep.name, sweep.filters), build_id,
                             (ignored or {}).get(sweep.name))
    return runs
