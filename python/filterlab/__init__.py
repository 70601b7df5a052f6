"""filterlab from Python: every registered membership filter, built from numpy,
pandas or pyarrow keys and queried in batches; the simulator's records as
DataFrames; an experiment's stored results.

    import filterlab
    filterlab.filters()                       # every variant, its parameters, its FP model
    f = filterlab.Filter("fastlocal:bpk=10", keys)
    f.may_contain(other_keys)                 # numpy bool array
    f.bits_per_key, f.model_fp(), f.to_bytes()
    filterlab.range_filters()                 # every range-filter variant, its key types, its FP model
    r = filterlab.RangeFilter("grafite:bpk=16", keys)
    r.may_contain_range(lo, hi)               # numpy bool array, one answer per [lo[i], hi[i]]
    filterlab.sim.fp(filter="binary_fuse", keys=10**6, queries=10**7)
    table, meta = filterlab.results.load("results/quickstart")

Everything comes from the C++ registry (filters/registry.h): a variant
registered there is here with no Python edit. Errors are ValueError with the
command line's message. See python/README.md and examples/tour.ipynb."""

from . import results, sim
from ._filter import Filter
from ._range import RangeFilter
from ._registry import check_spec, filters, range_filters

__all__ = ["Filter", "RangeFilter", "filters", "range_filters", "check_spec", "sim", "results"]
