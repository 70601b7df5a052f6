"""filterlab.RangeFilter over every registered range example spec: no false
negative on ranges holding a key (random keys and ranges, fixed seeds), on
points, on byte-string keys where the variant takes them; unsorted input with
repeats builds the filter sorted unique input builds; one batched call equals
single queries; bytes and pickles read back; and the answers, sizes, layouts and
models equal `filterlab-sim rangefp`'s on the workload `rangeworkload` writes."""

import json
import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import filterlab

from .conftest import cli

N = 5000
MAX = np.uint64(2**64 - 1)
RANGE_EXAMPLES = [e for v in filterlab.range_filters()["examples"] for e in v]
BYTES_VARIANTS = {name for name, row in filterlab.range_filters().iterrows() if "bytes" in row["key_types"]}


def takes_bytes(spec: str) -> bool:
    return spec.split(":")[0] in BYTES_VARIANTS


def uint64_keys(n=N, seed=1):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    keys[:2] = [0, MAX]  # both ends of the key space
    return keys


def ranges_around(keys, rng):
    """One range holding each key: it reaches 2^0..2^40 values to each side (clamped)."""
    widths = np.left_shift(np.uint64(1), rng.integers(0, 41, size=len(keys)).astype(np.uint64))
    below = rng.integers(0, 2**62, size=len(keys), dtype=np.uint64) % widths
    above = rng.integers(0, 2**62, size=len(keys), dtype=np.uint64) % widths
    lo = keys - np.minimum(below, keys)
    hi = keys + np.minimum(above, MAX - keys)
    return lo, hi


def bytes_keys(n=N, seed=2):
    rng = np.random.default_rng(seed)
    return [rng.bytes(int(k)) for k in rng.integers(1, 13, size=n)]


@pytest.mark.parametrize("spec", RANGE_EXAMPLES)
def test_no_false_negative_on_ranges_holding_a_key(spec):
    keys = uint64_keys()
    f = filterlab.RangeFilter(spec, keys)
    assert f.num_keys == N and f.key_type == "uint64" and f.spec == filterlab.check_spec(spec)
    rng = np.random.default_rng(3)
    lo, hi = ranges_around(keys, rng)
    assert f.may_contain_range(lo, hi).all()
    assert f.may_contain_range(keys, keys).all()
    assert f.may_contain(keys).all()
    assert f.bits_per_key == pytest.approx(8 * f.nbytes / N)


@pytest.mark.parametrize("spec", [e for e in RANGE_EXAMPLES if takes_bytes(e)])
def test_no_false_negative_on_byte_string_keys(spec):
    keys = bytes_keys()
    f = filterlab.RangeFilter(spec, keys)
    assert f.key_type == "bytes" and f.num_keys == len(set(keys))
    rng = np.random.default_rng(4)
    lo = [k[:int(rng.integers(0, len(k) + 1))] for k in keys]  # a prefix sorts at or before the key
    hi = [k + rng.bytes(int(rng.integers(0, 4))) for k in keys]  # an extension sorts at or after it
    assert f.may_contain_range(lo, hi).all()
    assert f.may_contain(keys).all()
    assert f.may_contain_range(pa.array(keys), pa.array(keys)).all()
    g = filterlab.RangeFilter(spec, pd.Series([k.hex() for k in keys]))  # str keys as their UTF-8 bytes
    assert g.may_contain([k.hex() for k in keys]).all()


@pytest.mark.parametrize("spec", RANGE_EXAMPLES)
def test_unsorted_keys_with_repeats_build_the_sorted_unique_filter(spec):
    keys = uint64_keys()
    expected = filterlab.RangeFilter(spec, np.sort(keys)).to_bytes()
    rng = np.random.default_rng(5)
    shuffled = rng.permutation(np.concatenate([keys, keys[:500]]))
    f = filterlab.RangeFilter(spec, shuffled)
    assert f.to_bytes() == expected and f.num_keys == N
    assert filterlab.RangeFilter(spec, shuffled.tolist()).to_bytes() == expected
    assert filterlab.RangeFilter(spec, pa.array(shuffled)).to_bytes() == expected
    if takes_bytes(spec):
        words = bytes_keys()
        assert (filterlab.RangeFilter(spec, words[::-1] + words[:100]).to_bytes()
                == filterlab.RangeFilter(spec, sorted(set(words))).to_bytes())


@pytest.mark.parametrize("spec", RANGE_EXAMPLES)
def test_batch_equals_single_queries_and_bytes_read_back(spec):
    keys = uint64_keys()
    f = filterlab.RangeFilter(spec, keys)
    rng = np.random.default_rng(6)
    lo = rng.integers(0, 2**63, size=20_000, dtype=np.uint64)
    hi = lo + rng.integers(0, 2**20, size=lo.size, dtype=np.uint64)
    batch = f.may_contain_range(lo, hi)
    assert batch.dtype == np.bool_ and batch.shape == lo.shape
    assert [f.may_contain_range(int(a), int(b)) for a, b in zip(lo[:300], hi[:300])] == batch[:300].tolist()
    data = f.to_bytes()
    g = filterlab.RangeFilter.from_bytes(data, f.spec)
    assert (g.may_contain_range(lo, hi) == batch).all()
    assert g.to_bytes() == data and g.layout == f.layout and g.num_keys == N and g.nbytes == f.nbytes
    assert g.variant == f.variant and g.fp_model_kind == f.fp_model_kind
    same_model = np.isnan(f.model_fp(64)) and np.isnan(g.model_fp(64)) or f.model_fp(64) == g.model_fp(64)
    assert same_model
    h = filterlab.RangeFilter.from_bytes(bytearray(data))  # no spec: everything but the model
    assert h.spec is None and (h.may_contain_range(lo, hi) == batch).all()
    with pytest.raises(ValueError, match="read from bytes without a spec"):
        h.model_fp(64)
    p = pickle.loads(pickle.dumps(f))
    assert (p.may_contain_range(lo, hi) == batch).all() and p.spec == f.spec


def test_the_model_follows_the_registration():
    table = filterlab.range_filters()
    keys = uint64_keys()
    for name, row in table.iterrows():
        for spec in row["examples"]:
            f = filterlab.RangeFilter(spec, keys)
            assert f.fp_model_kind == row["fp_model"] and f.native_key_types == row["key_types"]
            rates = [f.model_fp(2**i) for i in (0, 8, 16)]
            if row["fp_model"] == "empirical":
                assert all(np.isnan(r) for r in rates), (spec, rates)
            else:
                assert all(0 <= r <= 1 for r in rates), (spec, rates)
                assert rates == sorted(rates), (spec, rates)  # a longer empty range is no less likely to match


def test_registry_table_is_check_specs(build):
    """range_filters() lists what `filterlab-tool list-filters` lists as range
    filters, with check-spec's key types, model kinds and accepted parameters."""
    out = cli(build, "filterlab-tool", "list-filters").stdout
    range_part = out.partition("\nrange filters (")[2].partition("\n")[2]
    names = [line.split()[0] for line in range_part.splitlines() if line and not line.startswith(" ")]
    table = filterlab.range_filters()
    assert list(table.index) == names
    records = [json.loads(line) for line in
               cli(build, "filterlab-tool", "check-spec", "--json", "--range-examples").stdout.splitlines()]
    assert {r["input"] for r in records} == set(RANGE_EXAMPLES)
    for r in records:
        row = table.loc[r["variant"]]
        assert r["kind"] == "range" and r["error"] is None
        assert r["key_types"] == row["key_types"] and r["fp_model"] == row["fp_model"], r
        assert set(r["keys"]) <= set(row["params"]), r
        assert filterlab.check_spec(r["input"]) == r["canonical"]
    for name, row in table.iterrows():
        for key, allowed in row["params"].items():
            assert allowed != row["params_text"], f"{name}: parameter {key!r} is not stated in {row['params_text']!r}"


def read_sosd(path):
    raw = np.fromfile(path, dtype="<u8")
    assert raw[0] == len(raw) - 1
    return raw[1:]


def test_answers_equal_rangefp_on_its_own_workload(build, tmp_path):
    """rangeworkload writes the keys and empty queries rangefp generates from the
    same flags; built here over those keys, each example filter has rangefp's
    layout and size, gives its positives exactly and its mean per-query model."""
    flags = ["--keys=20000", "--queries=20000", "--range_log2=0,10", "--correlations=none,0.5", "--seed=7",
             "--key_dist=uniform"]
    files = [json.loads(line) for line in
             cli(build, "sim/filterlab-sim", "rangeworkload", *flags, f"--dir={tmp_path}").stdout.splitlines()]
    records = [json.loads(line) for line in
               cli(build, "sim/filterlab-sim", "rangefp", *flags,
                   *[f"--filter={s}" for s in RANGE_EXAMPLES]).stdout.splitlines()]
    keys = read_sosd(next(f["file"] for f in files if f["what"] == "keys"))
    queries = {}
    for f in files:
        if f["what"] != "keys":
            queries.setdefault((f["range_length"], f["correlation"]), {})[f["what"]] = read_sosd(f["file"])
    built = {spec: filterlab.RangeFilter(spec, keys) for spec in RANGE_EXAMPLES}
    assert len(records) == len(RANGE_EXAMPLES) * len(queries)
    for r in records:
        f = built[r["filter_arg"]]
        q = queries[(r["range_length"], r["correlation"])]
        answers = f.may_contain_range(q["left"], q["right"])
        where = (r["filter"], r["range_length"], r["correlation"])
        assert int(answers.sum()) == r["positives"] and len(answers) == r["queries"], where
        assert f.layout == r["layout"] and f.num_keys == r["keys"] and f.nbytes == r["bytes"], where
        assert f.bits_per_key == pytest.approx(r["bits_per_key"], rel=1e-12), where
        model = f.query_model_fp(q["left"], q["right"], keys)
        if r["model_fp"] is None:
            assert np.isnan(model).all(), where
        else:
            assert model.mean() == pytest.approx(r["model_fp"], rel=1e-9), where
