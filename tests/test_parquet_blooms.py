"""`filterlab-tool parquet-blooms` on Parquet files that real writers made:
DuckDB (split-block filters on its dictionary-encoded columns) and pyarrow
(when its version writes Bloom filters, asked with bloom_filter_options). INT32,
INT64, DOUBLE and VARCHAR columns over several row groups: every filter is read
and our sbbf, built over the values pyarrow reads back from the same file, is bit
for bit the writer's bitset. Damaged files get a named error. The binary is
build/filterlab-tool (or $FILTERLAB_BUILD/filterlab-tool)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("FILTERLAB_BUILD", ROOT / "build"))
TOOL = BUILD / "filterlab-tool"
ROWS, ROW_GROUP = 60000, 20000  # three row groups


@pytest.fixture(scope="module")
def tool():
    if not TOOL.exists():
        r = subprocess.run([str(ROOT / "filterlab"), "build"], capture_output=True, text=True, timeout=3600)
        assert r.returncode == 0, r.stderr[-3000:]
    return TOOL


def check(path, tool):
    """Runs the module's --check with --json; returns the tool's records."""
    r = subprocess.run([sys.executable, "-m", "analysis.parquet_blooms", "--check", "--json", "--tool", str(tool),
                        str(path)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    recs = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return r, recs


@pytest.fixture(scope="module")
def duckdb_file(tmp_path_factory):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path_factory.mktemp("pq") / "duckdb.parquet"
    con = duckdb.connect()
    # Few enough distinct values per row group that DuckDB dictionary-encodes
    # (and so filters) every column.
    con.execute(f"""COPY (SELECT (i % 1500)::INTEGER * 7 - 5000 AS i32,
                                 (i % 1700)::BIGINT * 1000003 - 99999999 AS i64,
                                 (i % 1300) / 7.0 AS dbl,
                                 'value-' || (i % 1100)::VARCHAR AS s,
                                 CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 900)::INTEGER END AS with_nulls
                          FROM range({ROWS}) t(i))
                    TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP})""")
    return path


def test_duckdb_filters_are_our_sbbf_bit_for_bit(duckdb_file, tool):
    r, recs = check(duckdb_file, tool)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    by_type = {}
    for rec in recs:
        assert rec["check"] == "identical", rec
        assert rec["differing_bits"] == 0
        by_type.setdefault(rec["type"], set()).add(rec["column"])
        assert rec["blocks"] * 32 == rec["bytes"]
        assert 0 < rec["share_set"] < 1
        # The fill implies about as many distinct values as were hashed (the
        # implied count's relative spread is ~1/sqrt(bits set); 20% is > 10 sigma
        # at these sizes, and a wrong hash or block count misses by far more).
        assert rec["implied_ndv"] == pytest.approx(rec["check_values"], rel=0.2), rec
        assert 0 <= rec["exact_fp"] <= 1 and 0 <= rec["model_fp"] <= 1
    assert by_type.get("INT32") == {"i32", "with_nulls"}
    assert by_type.get("INT64") == {"i64"}
    assert by_type.get("DOUBLE") == {"dbl"}
    assert by_type.get("BYTE_ARRAY") == {"s"}
    assert len({rec["row_group"] for rec in recs}) == ROWS // ROW_GROUP


def test_pyarrow_filters_are_our_sbbf_bit_for_bit(tmp_path, tool):
    n = 30000
    table = pa.table({"i32": pa.array([(i * 37) % 20011 for i in range(n)], pa.int32()),
                      "i64": pa.array([i * 1000003 for i in range(n)], pa.int64()),
                      "dbl": pa.array([i / 3.0 for i in range(n)], pa.float64()),
                      "s": pa.array([f"key-{i % 7919}" for i in range(n)], pa.string())})
    path = tmp_path / "pyarrow.parquet"
    try:
        pq.write_table(table, path, row_group_size=10000,
                       bloom_filter_options={c: {"ndv": 20000, "fpp": 0.01} for c in table.column_names})
    except TypeError:
        pytest.skip(f"pyarrow {pa.__version__} writes no Bloom filters (no bloom_filter_options)")
    r, recs = check(path, tool)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert {rec["column"] for rec in recs} == set(table.column_names)
    assert len(recs) == 4 * 3
    for rec in recs:
        assert rec["check"] == "identical", rec


def test_text_report_and_named_errors(duckdb_file, tool, tmp_path):
    r = subprocess.run([str(tool), "parquet-blooms", str(duckdb_file)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "3 row groups" in r.stdout and "15 of 15 column chunks with a Bloom filter" in r.stdout, r.stdout
    assert "implied ndv" in r.stdout
    data = duckdb_file.read_bytes()
    cases = {
        "short.parquet": (b"PAR1", "not a Parquet file"),
        "magic.parquet": (data[:-1] + b"X", "not a Parquet file"),
        "footer.parquet": (data[:-8] + (10 ** 9).to_bytes(4, "little") + b"PAR1", "footer length"),
    }
    # A filter's header pointing past the end: bloom_filter_offset moved by
    # truncating the file's middle is hard to hit exactly, so damage the
    # first filter's numBytes field instead (the header's first bytes).
    recs = [json.loads(line) for line in subprocess.run([str(tool), "parquet-blooms", "--json", str(duckdb_file)],
                                                          capture_output=True, text=True).stdout.splitlines()]
    off = recs[0]["offset"]
    damaged = bytearray(data)
    damaged[off + 1:off + 4] = b"\xff\xff\x7f"  # numBytes varint now huge or malformed
    cases["header.parquet"] = (bytes(damaged), "row group 0")
    for name, (content, message) in cases.items():
        p = tmp_path / name
        p.write_bytes(content)
        r = subprocess.run([str(tool), "parquet-blooms", str(p)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 1, (name, r.stdout)
        assert "ERROR" in r.stdout and message in r.stdout, (name, r.stdout)
