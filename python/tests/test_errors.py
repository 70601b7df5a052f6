"""Bad input to the module is a ValueError (TypeError for a spec that is not a
string) with the message the command line gives, never a crash: bad specs,
dtypes, key types, damaged bytes, bad simulator flags."""

import re

import numpy as np
import pyarrow as pa
import pytest

import filterlab

from .conftest import cli

BAD_SPECS = ["nosuch:bpk=10", "fastlocal:bpk=abc", "fastlocal:bpk=1000", "fastlocal:bogus=1", "fastlocal:bpk",
             "", "binary_fuse:bpk=10", "standard:bpk=10,hash=48", "ribbon:bpk=10,fp=0.01", "fastlocal:bpk=10,bpk=9"]


def sim_error(build, *flags):
    """What `filterlab-sim fp FLAGS --check` prints after its 'filterlab-sim fp: ' prefix."""
    out = cli(build, "sim/filterlab-sim", "fp", *flags, "--check", check=False)
    assert out.returncode == 2, out
    prefix = "filterlab-sim fp: "
    line = out.stderr.strip().splitlines()[-1]
    assert line.startswith(prefix), line
    return line[len(prefix):]


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_a_bad_spec_is_a_value_error_with_the_command_lines_message(build, spec):
    cli_message = sim_error(build, f"--filter={spec}", "--keys=1000", "--queries=1000")
    with pytest.raises(ValueError) as built:
        filterlab.Filter(spec, np.arange(10, dtype=np.uint64))
    # The simulator names its flag first ("--filter: "); the message after it is the registry's.
    assert cli_message.endswith(str(built.value)), (cli_message, str(built.value))
    assert str(built.value).startswith(f"filter spec '{spec.strip()}'") or "filter spec" in str(built.value)
    with pytest.raises(ValueError) as checked:
        filterlab.check_spec(spec)
    assert str(checked.value) == str(built.value)
    with pytest.raises(ValueError) as simulated:
        filterlab.sim.fp(filter=spec, keys=1000, queries=1000)
    assert str(simulated.value) == cli_message


@pytest.mark.parametrize("flags", [{"keys": 0}, {"queries": -1}, {"hash_source": "random"}, {"bogus": 1},
                                   {"threads": "many"}])
def test_bad_simulator_flags_give_the_command_lines_message(build, flags):
    argv = filterlab.sim.command_line("fp", {"filter": "fastlocal:bpk=10", "keys": 1000, "queries": 1000, **flags})
    with pytest.raises(ValueError) as e:
        filterlab.sim.fp(**{"filter": "fastlocal:bpk=10", "keys": 1000, "queries": 1000, **flags})
    assert str(e.value) == sim_error(build, *argv)


def test_unknown_simulator_command():
    with pytest.raises(ValueError, match="unknown simulator command 'fly'; allowed: fp, model"):
        filterlab.sim.run("fly")


@pytest.mark.parametrize("keys, message", [
    (np.linspace(0, 1, 10), "dtype float64"),
    (np.ones(10, dtype=bool), "dtype bool"),
    (np.zeros((3, 3), dtype=np.uint64), "one-dimensional"),
    (np.array([1, -2, 3]), "integer key -2 at index 1 is negative"),
    ([1, 2, -3], "integer key -3 at index 2 is out of range"),
    ([1, 2**64], "out of range"),
    ([1, b"x"], "key 1 is bytes, but key 0 is an integer"),
    ([b"x", 1], "key 1 is int"),
    ([b"x", None], "key 1 is NoneType"),
    (None, "got builtins.NoneType"),
    ({"a": 1}, "got builtins.dict"),
    (b"one key", "got one key (bytes)"),
    (pa.array([b"a", None, b"c"]), "1 nulls (the first at index 1)"),
    (pa.array([1.5, 2.5]), "pyarrow array of type double"),
])
def test_keys_of_a_wrong_type_or_value_are_refused(keys, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        filterlab.Filter("fastlocal:bpk=10", keys)
    f = filterlab.Filter("fastlocal:bpk=10", [1, 2, 3])
    with pytest.raises(ValueError, match=re.escape(message)):
        f.may_contain(keys)


def test_a_spec_that_is_not_a_string_is_a_type_error():
    with pytest.raises(TypeError, match="spec: expected a str"):
        filterlab.Filter(10, [1, 2])


def test_hashes_wider_than_a_32_bit_variant_takes_are_refused():
    with pytest.raises(ValueError, match=r"takes 32-bit hashes, but hash 1 is 0x100000000"):
        filterlab.Filter("standard:bpk=10,hash=32", np.array([5, 2**32], dtype=np.uint64), hashed=True)
    f = filterlab.Filter("standard:bpk=10,hash=32", np.array([5, 7], dtype=np.uint64), hashed=True)
    with pytest.raises(ValueError, match="takes 32-bit hashes"):
        f.may_contain(np.array([2**40], dtype=np.uint64))
    with pytest.raises(ValueError, match="hashed=True takes a uint64 array of hashes"):
        filterlab.Filter("fastlocal:bpk=10", ["a", "b"], hashed=True)
    with pytest.raises(ValueError, match="built with hashed=True"):
        f.may_contain(["a"])


def test_bytes_of_another_hash_width_are_refused_as_the_engine_refuses_them():
    f = filterlab.Filter("standard:bpk=10,hash=32", [1, 2, 3])
    with pytest.raises(ValueError, match=r"takes 32-bit hashes but the filter spec 'standard:bpk=10,probes=7,hash=64' "
                                         r"makes 64-bit ones"):
        filterlab.Filter.from_bytes(f.to_bytes(), "standard:bpk=10")


def _damage_is_refused_or_harmless(data: bytes, flips: int, seed: int, open_bytes, answers) -> None:
    """Every ~200th truncation of `data` and `flips` seeded single-byte changes: open_bytes raises
    ValueError or gives a filter for which answers(filter) holds; the truncations at least are refused."""
    rng = np.random.default_rng(seed)
    damaged = [data[:cut] for cut in range(0, len(data), max(1, len(data) // 200))]
    for _ in range(flips):
        b = bytearray(data)
        b[int(rng.integers(len(b)))] ^= int(rng.integers(1, 256))
        damaged.append(bytes(b))
    refused = 0
    for d in damaged:
        try:
            g = open_bytes(d)
        except ValueError:
            refused += 1
            continue
        assert answers(g)
    assert refused > 0


@pytest.mark.parametrize("spec", ["fastlocal:bpk=10", "ribbon:bpk=10", "binary_fuse", "standard:bpk=10",
                                  "legacy:bpk=10", "sbbf:bpk=10", "dynamic:bpk=10"])
def test_damaged_bytes_are_a_value_error_or_a_working_filter_never_a_crash(spec):
    """Every ~200th truncation and 2000 seeded single-byte changes of a serialized filter:
    from_bytes raises ValueError or gives a filter that answers queries."""
    data = filterlab.Filter(spec, np.arange(3000, dtype=np.uint64)).to_bytes()
    probe = np.arange(5000, 6000, dtype=np.uint64)
    _damage_is_refused_or_harmless(data, 2000, 5, lambda d: filterlab.Filter.from_bytes(d, spec),
                                   lambda g: g.may_contain(probe).shape == probe.shape)
    with pytest.raises(ValueError, match="expected bytes"):
        filterlab.Filter.from_bytes("text", spec)


# --- range filters -------------------------------------------------------------------------------

BAD_RANGE_SPECS = ["nosuch:bpk=16", "grafite:bpk=abc", "grafite:bpk=100", "grafite:bogus=1", "fastlocal:bpk=10",
                   "surf:suffix=maybe", "rosetta:bpk=16,range=0", ""]


def rangefp_error(build, *flags):
    """What `filterlab-sim rangefp FLAGS --check` prints after 'filterlab-sim rangefp: --filter: '."""
    out = cli(build, "sim/filterlab-sim", "rangefp", *flags, "--keys=1000", "--queries=1000", "--check", check=False)
    assert out.returncode == 2, out
    prefix = "filterlab-sim rangefp: --filter: "
    line = out.stderr.strip().splitlines()[-1]
    assert line.startswith(prefix), line
    return line[len(prefix):]


@pytest.mark.parametrize("spec", BAD_RANGE_SPECS)
def test_a_bad_range_spec_is_a_value_error_with_the_command_lines_message(build, spec):
    with pytest.raises(ValueError) as built:
        filterlab.RangeFilter(spec, np.arange(10, dtype=np.uint64))
    assert str(built.value) == rangefp_error(build, f"--filter={spec}")
    if spec.split(":")[0] in filterlab.range_filters().index:  # other names: check_spec reads them as point specs
        with pytest.raises(ValueError) as checked:
            filterlab.check_spec(spec)
        assert str(checked.value) == str(built.value)
    data = filterlab.RangeFilter("grafite:bpk=16", [1, 2, 3]).to_bytes()
    with pytest.raises(ValueError) as opened:
        filterlab.RangeFilter.from_bytes(data, spec)
    assert str(opened.value) == str(built.value)


def test_rangefp_grow_from_is_refused_for_static_filters_and_above_the_keys(build):
    def refused(*flags):
        out = cli(build, "sim/filterlab-sim", "rangefp", *flags, "--keys=1000", "--queries=1000", "--check",
                  check=False)
        assert out.returncode == 2, out
        return out.stderr.strip().splitlines()[-1]
    line = refused("--filter=grafite:bpk=16", "--grow_from=10")
    assert "--grow_from needs dynamic range filters" in line and "grafite:bpk=16 is static" in line, line
    line = refused("--filter=memento:bpk=16,range=64", "--grow_from=1001")
    assert "--grow_from 1001 is above --keys 1000" in line, line
    ok = cli(build, "sim/filterlab-sim", "rangefp", "--filter=memento:bpk=16,range=64", "--grow_from=10",
             "--keys=1000", "--queries=1000", "--check", check=False)
    assert ok.returncode == 0, ok


def test_a_range_spec_given_to_filter_and_a_point_spec_given_to_range_filter_say_which_is_which():
    with pytest.raises(ValueError, match="'grafite' is a range filter, not a point filter"):
        filterlab.Filter("grafite:bpk=16", [1, 2])
    with pytest.raises(ValueError, match="'fastlocal' is a point filter, not a range filter"):
        filterlab.RangeFilter("fastlocal:bpk=10", [1, 2])
    with pytest.raises(TypeError, match="spec: expected a str"):
        filterlab.RangeFilter(16, [1, 2])


@pytest.mark.parametrize("spec", ["grafite:bpk=16", "bucketing:bpk=16", "rosetta:bpk=16,range=64"])
def test_byte_string_keys_for_an_integer_only_variant_are_refused_unless_mapped(spec):
    words = [b"apple", b"banana", b"cherry"]
    with pytest.raises(ValueError, match=r"takes uint64 keys, not byte strings; pass integer keys, or "
                                         r"bytes_as_uint64=True"):
        filterlab.RangeFilter(spec, words)
    f = filterlab.RangeFilter(spec, words, bytes_as_uint64=True)
    assert f.key_type == "bytes" and f.may_contain_range([b"b"], [b"bz"]).all() and f.may_contain(words).all()
    with pytest.raises(ValueError, match="holds byte-string keys, so it is queried with byte-string values"):
        f.may_contain_range([1], [2])


def test_range_queries_with_hi_below_lo_or_of_the_wrong_type_are_refused():
    f = filterlab.RangeFilter("grafite:bpk=16", np.arange(0, 1000, 10, dtype=np.uint64))
    with pytest.raises(ValueError, match=re.escape("query 2: range [9, 8] has hi < lo; ranges are inclusive and need "
                                                   "lo <= hi")):
        f.may_contain_range([1, 2, 9], [1, 2, 8])
    with pytest.raises(ValueError, match=re.escape("query 0: range [9, 8] has hi < lo")):
        f.query_model_fp([9], [8], np.arange(0, 1000, 10))
    with pytest.raises(ValueError, match="lo, hi: 2 lower ends but 1 upper ends"):
        f.may_contain_range([1, 2], [3])
    with pytest.raises(ValueError, match="lo: a numpy array of dtype float64"):
        f.may_contain_range(np.array([1.0]), [2])
    with pytest.raises(ValueError, match="hi: integer key -2 at index 0 is negative"):
        f.may_contain_range([1], np.array([-2]))
    with pytest.raises(ValueError, match="lo: this range filter holds uint64 keys, so it is queried with uint64 values; got byte-string ones"):
        f.may_contain_range([b"a"], [b"b"])
    with pytest.raises(ValueError, match="keys: this range filter holds uint64 keys"):
        f.may_contain(["a"])
    with pytest.raises(ValueError, match="range_length: got 0; allowed: >= 1"):
        f.model_fp(0)
    with pytest.raises(ValueError, match="the filter holds 100 distinct keys but 3 were given"):
        f.query_model_fp([1], [2], [1, 2, 3])
    s = filterlab.RangeFilter("surf:suffix=real,bits=8", [b"a", b"c"])
    with pytest.raises(ValueError, match=re.escape("query 1: byte-string range with hi < lo (lo 1 bytes, hi 1 bytes)")):
        s.may_contain_range([b"a", b"c"], [b"b", b"b"])
    with pytest.raises(ValueError, match="lo: this range filter holds byte-string keys, so it is queried with byte-string values; got uint64"):
        s.may_contain_range([1], [b"b"])
    with pytest.raises(ValueError, match="holds byte-string keys"):
        s.query_model_fp([b"a"], [b"b"], [b"a", b"c"])
    with pytest.raises(ValueError, match="key_type: got 'int'"):
        filterlab.RangeFilter.from_bytes(s.to_bytes(), key_type="int")
    # a byte-string filter read as holding uint64 keys answers integer queries (its keys' 8 big-endian bytes)
    assert filterlab.RangeFilter.from_bytes(s.to_bytes()).key_type == "uint64"


def test_range_bytes_of_another_variant_or_key_type_are_refused():
    data = filterlab.RangeFilter("grafite:bpk=16", [1, 2, 3]).to_bytes()
    with pytest.raises(ValueError, match="the bytes hold a 'grafite' range filter .* but the spec 'surf"):
        filterlab.RangeFilter.from_bytes(data, "surf:suffix=real,bits=8")
    with pytest.raises(ValueError, match="key_type: got 'int'; allowed: 'uint64', 'bytes'"):
        filterlab.RangeFilter.from_bytes(data, key_type="int")
    with pytest.raises(ValueError, match="expected bytes"):
        filterlab.RangeFilter.from_bytes("text")


@pytest.mark.parametrize("spec", [e for v in filterlab.range_filters()["examples"] for e in v])
def test_damaged_range_filter_bytes_are_a_value_error_or_a_working_filter_never_a_crash(spec):
    """Every ~200th truncation and 500 seeded single-byte changes of a serialized range
    filter: from_bytes raises ValueError or gives a filter that answers queries."""
    data = filterlab.RangeFilter(spec, np.arange(0, 30000, 10, dtype=np.uint64)).to_bytes()
    lo = np.arange(0, 40000, 7, dtype=np.uint64)
    _damage_is_refused_or_harmless(data, 500, 6, lambda d: filterlab.RangeFilter.from_bytes(d, spec),
                                   lambda g: g.may_contain_range(lo, lo + np.uint64(5)).shape == lo.shape)
