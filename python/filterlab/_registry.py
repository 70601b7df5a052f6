"""filterlab.filters() and range_filters(): the registry (filters/registry.h) as
tables, so a variant registered in C++ appears here with no Python edit."""

from __future__ import annotations

import re

import pandas as pd

from . import _native

# "bpk=0.5..100 (default 10; ...)": a parameter's allowed values, then an optional
# parenthesised note (its default, how it is read).
_PARAM = r"(?<![\w.]){key}=(?P<allowed>[^\s;,()]+)(?:\s*\((?P<note>[^()]*)\))?"


def parameter_values(params: str, keys: list[str]) -> dict[str, str]:
    """Each accepted key's allowed values as the registration's parameter text
    states them (``{"bpk": "0.5..100 (default 10)", "hash": "64|32 (default 64)"}``);
    a key the text does not state maps to the whole text."""
    out = {}
    for key in keys:
        m = re.search(_PARAM.format(key=re.escape(key)), params)
        if m is None:
            out[key] = params
        else:
            out[key] = m["allowed"] + (f" ({m['note'].strip()})" if m["note"] else "")
    return out


def filters() -> pd.DataFrame:
    """Every registered filter variant, one row each, indexed by name:

    * ``summary``: one line on what it is;
    * ``params``: {parameter: allowed values (default)} for each parameter the variant's
      parser accepts, from its registration;
    * ``params_text``: the registration's parameter line as ``list-filters`` prints it;
    * ``examples``: its example specs at 10 bits/key (what ``./filterlab run`` measures);
    * ``fp_model``: what its model FP rate promises (exact, empirical, lower_bound,
      upper_bound); ``fp_model_by_spec`` when that depends on the spec (then
      ``example_fp_models`` gives each example's);
    * ``has_probes``: whether its specs have a probe count.
    """
    return _variant_table(_native.variants(), fp_model=str, fp_model_by_spec=bool, example_fp_models=list,
                          has_probes=bool)


def range_filters() -> pd.DataFrame:
    """Every registered range-filter variant (filters/range/range_filter.h), one row
    each, indexed by name:

    * ``summary``: one line on what it is;
    * ``params``: {parameter: allowed values (default)} for each parameter its parser
      accepts; ``params_text``: the registration's line as ``list-filters`` prints it;
    * ``examples``: its example specs (what the property tests and ``./filterlab run``
      cover);
    * ``key_types``: the key types it builds from natively (``uint64``, ``bytes`` or
      ``uint64,bytes``; ``RangeFilter`` refuses byte strings for an integer-only
      variant unless ``bytes_as_uint64=True``);
    * ``fp_model``: what its model FP rate is (``exact``, ``upper_bound``: a proven
      bound, ``empirical``: no model);
    * ``dynamic``: whether it takes inserts after construction.
    """
    return _variant_table(_native.range_variants(), key_types=str, fp_model=str, dynamic=bool)


def _variant_table(variants, **fields) -> pd.DataFrame:
    """The columns every registration has, then `fields` (name: conversion) in order."""
    rows = [{"name": v["name"], "summary": v["summary"], "params": parameter_values(v["params"], v["keys"]),
             "params_text": v["params"], "examples": list(v["examples"]),
             **{field: convert(v[field]) for field, convert in fields.items()}} for v in variants]
    return pd.DataFrame(rows).set_index("name")


def check_spec(spec: str) -> str:
    """The canonical form of a point or range filter ``spec`` (every parameter
    resolved), or ValueError with the registry's reason, as ``filterlab-tool
    check-spec`` gives it."""
    if not isinstance(spec, str):
        raise TypeError(f"spec: expected a str such as 'fastlocal:bpk=10', got {type(spec).__name__}")
    return _native.check_spec(spec)
