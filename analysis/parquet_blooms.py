"""The split-block Bloom filters of Parquet files, checked against our `sbbf`.

`filterlab-tool parquet-blooms` reads the filters (footer, BloomFilterHeader,
bitset; tools/parquet_blooms.h). With --check this module reads every column's
values per row group with pyarrow from the same file, writes them PLAIN-encoded
(the bytes Parquet writers hash with XXH64: 4 or 8 little-endian bytes for
INT32, INT64, FLOAT, DOUBLE; a BYTE_ARRAY's bytes without their length) and
has the tool build our sbbf over them with the file's block count and compare
the bitsets bit for bit.

    python -m analysis.parquet_blooms [--check] [--json] [--tool build/filterlab-tool] FILE.parquet...

Top-level (non-nested) columns only; the others are reported and not checked.
Nulls are not hashed (Parquet writers skip them).
"""

from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TOOL = Path(os.environ.get("FILTERLAB_BUILD", ROOT / "build")) / "filterlab-tool"

# Physical type -> (Arrow type to cast the column's values to, struct format).
_FIXED = {
    "INT32": (pa.int32(), "<i"),
    "INT64": (pa.int64(), "<q"),
    "FLOAT": (pa.float32(), "<f"),
    "DOUBLE": (pa.float64(), "<d"),
}


def plain_values(column: pa.ChunkedArray, physical_type: str) -> list[bytes] | None:
    """The distinct non-null values of a column chunk as Parquet hashes them, or
    None for a physical type this module does not encode (BOOLEAN, INT96)."""
    values = pc.unique(column.combine_chunks().drop_null())
    if pa.types.is_decimal(values.type) or pa.types.is_dictionary(values.type):
        return None  # stored as scaled integers or bytes: not re-encoded here
    if physical_type in _FIXED:
        arrow_type, fmt = _FIXED[physical_type]
        # Dates, times and timestamps are stored as their integer counts.
        if pa.types.is_temporal(values.type):
            values = values.view(pa.int32() if arrow_type == pa.int32() else pa.int64())
        values = values.cast(arrow_type)
        return [struct.pack(fmt, v) for v in values.to_pylist()]
    if physical_type in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            return [v.encode("utf-8") for v in values.to_pylist()]
        if pa.types.is_binary(values.type) or pa.types.is_large_binary(values.type) or pa.types.is_fixed_size_binary(
                values.type):
            return list(values.to_pylist())
    return None


def write_values(parquet_path: str, out) -> list[str]:
    """Writes the values file of `parquet_path` ("FLPV" then records of u32 row
    group, u32 column, u64 count, count x (u32 length, bytes)); returns notes on
    the column chunks it could not encode."""
    notes = []
    pf = pq.ParquetFile(parquet_path)
    out.write(b"FLPV")
    top_level = {pf.schema_arrow.field(i).name for i in range(len(pf.schema_arrow))}
    for rg in range(pf.metadata.num_row_groups):
        table = pf.read_row_group(rg)
        meta = pf.metadata.row_group(rg)
        for c in range(meta.num_columns):
            col = meta.column(c)
            if col.path_in_schema not in top_level:
                notes.append(f"row group {rg} '{col.path_in_schema}': nested column, not checked")
                continue
            values = plain_values(table.column(col.path_in_schema), col.physical_type)
            if values is None:
                notes.append(f"row group {rg} '{col.path_in_schema}': {col.physical_type} values not encoded")
                continue
            out.write(struct.pack("<IIQ", rg, c, len(values)))
            for v in values:
                out.write(struct.pack("<I", len(v)))
                out.write(v)
    return notes


def run(files: list[str], check: bool, json_out: bool, tool: Path) -> int:
    if not tool.exists():
        print(f"parquet-blooms: {tool} is not built (./filterlab build)", file=sys.stderr)
        return 2
    if not check:
        return subprocess.run([str(tool), "parquet-blooms", *(["--json"] if json_out else []), *files]).returncode
    worst = 0
    for path in files:
        with tempfile.NamedTemporaryFile(suffix=".flpv") as tmp:
            try:
                notes = write_values(path, tmp)
            except (OSError, pa.ArrowException) as e:
                print(f"{path}: ERROR pyarrow cannot read it: {e}")
                worst = max(worst, 1)
                continue
            tmp.flush()
            for note in notes:
                print(f"{path}: {note}", file=sys.stderr)
            rc = subprocess.run([str(tool), "parquet-blooms", *(["--json"] if json_out else []), "--check-values",
                                 tmp.name, path]).returncode
            worst = max(worst, rc)
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="parquet-blooms", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", metavar="FILE.parquet")
    ap.add_argument("--check", action="store_true",
                    help="build our sbbf over each column's values (read with pyarrow) and compare bit for bit")
    ap.add_argument("--json", action="store_true", help="one JSON object per filter")
    ap.add_argument("--tool", type=Path, default=DEFAULT_TOOL, help="filterlab-tool binary (default: %(default)s)")
    args = ap.parse_args(argv)
    return run(args.files, args.check, args.json, args.tool)


if __name__ == "__main__":
    sys.exit(main())
