"""Batch calls release the GIL: while one thread is inside a long C++ call (a
batched query, a build, a simulator run), another thread keeps running Python.
The other thread counts loop steps only while the first is between the marks
around the native call; with the GIL held it could run none there except in the
one or two bytecodes between a mark and the call."""

import sys
import threading

import numpy as np
import pytest

import filterlab
from filterlab import _native

KEYS = np.arange(4_000_000, dtype=np.uint64)


def steps_beside(call) -> int:
    """Loop steps this thread ran while another thread was inside `call` (3 times)."""
    inside = [False]
    done = threading.Event()
    started = threading.Event()

    def worker():
        started.set()
        for _ in range(3):
            inside[0] = True
            call()
            inside[0] = False
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # hand the GIL over within microseconds once it is free
    try:
        t = threading.Thread(target=worker)
        t.start()
        started.wait()
        steps = 0
        while not done.is_set():
            if inside[0]:
                steps += 1
        t.join()
    finally:
        sys.setswitchinterval(old)
    return steps


@pytest.mark.parametrize("what", ["may_contain", "build", "sim", "range_query", "range_build"])
def test_long_native_calls_let_other_threads_run(what):
    f = filterlab.Filter("fastlocal:bpk=10", KEYS)
    # Keys spread over the key space: Grafite queries among keys packed into a small part of it take
    # microseconds each (Elias-Fano scans a bucket of thousands), which would make this test slow.
    spread = np.random.default_rng(1).integers(0, 2**63, size=10**6, dtype=np.uint64)
    r = filterlab.RangeFilter("grafite:bpk=16", spread)
    argv = filterlab.sim.command_line("fp", {"filter": "fastlocal:bpk=10", "keys": 10**6, "queries": 4 * 10**6,
                                             "threads": 1})
    calls = {
        "may_contain": lambda: f._native.may_contain_uint64(KEYS),
        "build": lambda: _native.build_uint64("fastlocal:bpk=10", KEYS, False),
        "sim": lambda: _native.run_sim("fp", argv),
        "range_query": lambda: r._native.may_contain_range_uint64(spread, spread + np.uint64(2)),
        "range_build": lambda: _native.build_range_uint64("grafite:bpk=16", spread),
    }
    steps = steps_beside(calls[what])
    # Three calls of tens of milliseconds or more: a thread free to run counts far
    # past 10^4 meanwhile (millions of steps a second).
    assert steps > 10_000, f"{what}: only {steps} Python steps ran beside three C++ calls"
