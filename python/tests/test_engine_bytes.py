"""A filter built here from integer keys 0..N-1 is, byte for byte, the filter
block lsmbench's fillseq writes into the table for the same spec: the integer
keys are hashed as lsmbench's keys, and to_bytes() is the engine's block. The
same for range filters and the table's range filter block.

The table is read with a minimal reader of its framing (engine/table/format.h:
the footer's metaindex handle, the metaindex block in block_builder.h's
format, the "filterlab.filter" or "filterlab.range_filter" entry's handle)."""

import subprocess

import numpy as np
import pytest

import filterlab

N = 20_000


def varint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def filter_block(table: bytes, name: bytes = b"filterlab.filter") -> bytes:
    footer = table[-57:]
    assert footer[-8:] == b"FLABSST1", "not a filterlab table"
    offset, pos = varint(footer, 1)
    size, _ = varint(footer, pos)
    block = table[offset:offset + size]
    restarts = int.from_bytes(block[-4:], "little") & ((1 << 28) - 1)
    end = len(block) - 4 - 4 * restarts
    pos, key = 0, b""
    while pos < end:
        shared, pos = varint(block, pos)
        non_shared, pos = varint(block, pos)
        value_len, pos = varint(block, pos)
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        value = block[pos:pos + value_len]
        pos += value_len
        if key == name:
            f_offset, p = varint(value, 0)
            f_size, _ = varint(value, p)
            assert table[f_offset + f_size] == 0, "the filter block is stored uncompressed"
            return table[f_offset:f_offset + f_size]
    raise AssertionError(f"the table has no {name.decode()} block")


def fillseq_table(build, tmp_path, *flags) -> bytes:
    """The one table lsmbench's fillseq of keys 0..N-1 writes with FLAGS."""
    lsmbench = build / "engine" / "lsmbench"
    if not lsmbench.exists():
        pytest.skip(f"no {lsmbench}")
    db = tmp_path / "db"
    out = subprocess.run([str(lsmbench), "--benchmarks=fillseq,flush", f"--num={N}", *flags, f"--db={db}",
                          "--value_size=10", "--write_buffer_mb=64", "--compression=none"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    tables = sorted(db.glob("*.sst"))
    assert len(tables) == 1, tables
    return tables[0].read_bytes()


def lsmbench_keys(n: int) -> list[bytes]:
    """lsmbench's keys of 0..n-1 (engine/bench/bench_keys.h): 8-byte big-endian number, '0' bytes up to 16."""
    return [k.to_bytes(8, "big") + b"0" * 8 for k in range(n)]


@pytest.mark.parametrize("spec", [e for v in filterlab.range_filters()["examples"] for e in v])
def test_range_filter_bytes_are_the_engines_range_filter_block(build, tmp_path, spec):
    """The engine keys a byte-string variant by the user keys and an integer-only
    variant by their first 8 bytes big-endian (here: the key numbers themselves)."""
    engine_bytes = filter_block(fillseq_table(build, tmp_path, f"--range_filter={spec}"), b"filterlab.range_filter")
    words = lsmbench_keys(N)
    if "bytes" in filterlab.range_filters().loc[spec.split(":")[0], "key_types"]:
        ours = filterlab.RangeFilter(spec, words)
    else:
        ours = filterlab.RangeFilter(spec, words, bytes_as_uint64=True)
        assert filterlab.RangeFilter(spec, np.arange(N, dtype=np.uint64)).to_bytes() == engine_bytes
    assert ours.to_bytes() == engine_bytes
    read = filterlab.RangeFilter.from_bytes(engine_bytes, spec, key_type="bytes")
    assert read.may_contain(words).all() and read.may_contain_range(words[:N - 3:7], words[3::7]).all()


@pytest.mark.parametrize("spec", ["fastlocal:bpk=10", "ribbon:bpk=10", "binary_fuse:arity=4", "standard:bpk=10,hash=32",
                                  "legacy:bpk=10", "sbbf:bpk=10"])
def test_filter_bytes_are_the_engines_filter_block(build, tmp_path, spec):
    lsmbench = build / "engine" / "lsmbench"
    if not lsmbench.exists():
        pytest.skip(f"no {lsmbench}")
    db = tmp_path / "db"
    out = subprocess.run([str(lsmbench), "--benchmarks=fillseq,flush", f"--num={N}", f"--filter={spec}",
                          f"--db={db}", "--value_size=10", "--write_buffer_mb=64", "--compression=none"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    tables = sorted(db.glob("*.sst"))
    assert len(tables) == 1, tables
    engine_bytes = filter_block(tables[0].read_bytes())
    ours = filterlab.Filter(spec, np.arange(N, dtype=np.uint64))
    assert ours.to_bytes() == engine_bytes
    assert filterlab.Filter.from_bytes(engine_bytes, spec).may_contain(np.arange(N, dtype=np.uint64)).all()
