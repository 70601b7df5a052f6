"""filterlab.Filter over every registered example spec: no false negatives, the
same answers whatever form the keys come in, one batched call equal to key-by-key
queries, bytes that read back, and the FP rate of 10^5 outside keys within the
binomial reach of the variant's model."""

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import filterlab

from .conftest import EXAMPLES

N = 5000


def int_keys(n=N, seed=1):
    rng = np.random.default_rng(seed)
    return rng.permutation(np.unique(rng.integers(0, 2**63, size=n + n // 10)))[:n].astype(np.uint64)


def str_keys(n=N):
    return [f"key-{i:06d}" for i in range(n)]


@pytest.mark.parametrize("spec", EXAMPLES)
def test_every_example_holds_its_keys_in_every_key_form(spec):
    ints = int_keys()
    f = filterlab.Filter(spec, ints)
    assert f.may_contain(ints).all()
    assert f.num_keys == N and f.spec == filterlab.check_spec(spec)
    words = str_keys()
    g = filterlab.Filter(spec, words)
    assert g.may_contain(words).all()
    hashes = int_keys(seed=2)
    if f.hash_bits == 32:
        hashes &= np.uint64(0xFFFFFFFF)
    h = filterlab.Filter(spec, hashes, hashed=True)
    assert h.may_contain(hashes).all() and h.hashed


@pytest.mark.parametrize("spec", EXAMPLES)
def test_batch_answers_equal_single_answers_and_bytes_read_back(spec):
    f = filterlab.Filter(spec, int_keys())
    outside = int_keys(seed=3)
    batch = f.may_contain(outside)
    assert batch.dtype == np.bool_ and batch.shape == outside.shape
    assert [bool(k in f) for k in outside[:300].tolist()] == batch[:300].tolist()
    g = filterlab.Filter.from_bytes(f.to_bytes(), f.spec, num_keys=f.num_keys)
    assert (g.may_contain(outside) == batch).all()
    assert g.to_bytes() == f.to_bytes() and g.layout == f.layout and g.nbytes == f.nbytes
    p = pickle.loads(pickle.dumps(f))
    assert (p.may_contain(outside) == batch).all() and p.num_keys == f.num_keys


def test_key_forms_give_the_same_filter():
    words = str_keys(3000)
    spec = "fastlocal:bpk=10"
    expected = filterlab.Filter(spec, words).to_bytes()
    forms = {
        "list of bytes": [w.encode() for w in words],
        "tuple of str": tuple(words),
        "numpy U": np.array(words),
        "numpy S": np.array([w.encode() for w in words]),
        "numpy object": np.array(words, dtype=object),
        "pyarrow string": pa.array(words),
        "pyarrow large_binary": pa.array([w.encode() for w in words], type=pa.large_binary()),
        "pyarrow chunked": pa.chunked_array([words[:1000], words[1000:]]),
        "pyarrow sliced": pa.array(["x"] + words + ["y"]).slice(1, len(words)),
        "pandas str": pd.Series(words),
        "pandas arrow string": pd.Series(words, dtype="string[pyarrow]"),
        "pandas index": pd.Index(words),
    }
    for name, keys in forms.items():
        assert filterlab.Filter(spec, keys).to_bytes() == expected, name
    ints = int_keys(3000)
    expected = filterlab.Filter(spec, ints).to_bytes()
    int_forms = {
        "int64": ints.astype(np.int64),
        "list": ints.tolist(),
        "pandas": pd.Series(ints.astype(np.int64)),
        "pandas nullable": pd.Series(ints.astype(np.int64), dtype="Int64"),
        "pyarrow": pa.array(ints),
        "non-contiguous": np.repeat(ints, 2)[::2],
    }
    for name, keys in int_forms.items():
        assert filterlab.Filter(spec, keys).to_bytes() == expected, name
    # Small dtypes are widened: the key is the number.
    small = np.arange(200, dtype=np.uint8)
    assert filterlab.Filter(spec, small).to_bytes() == filterlab.Filter(spec, small.astype(np.uint64)).to_bytes()


def test_queries_take_every_key_form_too():
    words = str_keys(2000)
    f = filterlab.Filter("ribbon:bpk=10", words)
    assert f.may_contain(pa.array(words)).all()
    assert f.may_contain(pd.Series(words, dtype="string[pyarrow]")).all()
    assert f.may_contain(np.array(words)).all()
    assert f.may_contain([]).shape == (0,)


def test_a_key_repeating_the_one_before_counts_once():
    ints = int_keys(1000)
    once = filterlab.Filter("standard:bpk=10", ints)
    twice = filterlab.Filter("standard:bpk=10", np.repeat(ints, 2))
    assert twice.num_keys == 1000 and twice.to_bytes() == once.to_bytes()


@pytest.mark.parametrize("spec", ["fastlocal:bpk=10", "ribbon:bpk=7", "binary_fuse:arity=4", "xor:fingerprint=8",
                                  "legacy:bpk=10", "standard:bpk=10,hash=32", "sbbf:bpk=10", "dynamic:bpk=10"])
def test_fp_rate_of_outside_keys_is_where_the_model_puts_it(spec):
    """10^5 integer keys, 10^6 other integer keys (fixed seed): the measured rate in
    the range the project's tolerance gives the variant's model kind
    (model_fp_range: 4 binomial sigma plus the kind's slack, filters/fp_tolerance.h).
    Catches a key hashing that is not what the model assumes (lsmbench's key format
    through HashKey)."""
    rng = np.random.default_rng(11)
    keys = rng.permutation(np.unique(rng.integers(0, 2**63, size=1_150_000)))[:1_100_000].astype(np.uint64)
    f = filterlab.Filter(spec, keys[:100_000])
    fp = f.may_contain(keys[100_000:]).mean()
    low, high, rule = f.model_fp_range(1_000_000)
    assert low <= fp <= high, (spec, fp, f.model_fp(), rule)


def test_properties_describe_the_filter():
    f = filterlab.Filter("fastlocal:bpk=10", int_keys(10_000))
    assert f.spec == "fastlocal:bpk=10,probes=6,hash=64"
    assert f.variant == "fastlocal" and f.hash_bits == 64 and not f.hashed
    assert f.layout.startswith("fastlocal:") and f"bytes={f.nbytes}" in f.layout
    assert f.bits_per_key == pytest.approx(8 * f.nbytes / 10_000)
    assert 0 < f.model_fp() < 0.02 and f.model_fp(10**6) > f.model_fp()
    assert "fastlocal:bpk=10" in repr(f)


def test_model_fp_of_bytes_without_num_keys_needs_n():
    f = filterlab.Filter("fastlocal:bpk=10", int_keys(1000))
    g = filterlab.Filter.from_bytes(f.to_bytes(), f.spec)
    assert g.num_keys is None and g.bits_per_key is None
    with pytest.raises(ValueError, match="without num_keys; pass n"):
        g.model_fp()
    assert g.model_fp(1000) == f.model_fp()
