"""`filterlab-tool sst-filters` on SST files librocksdb wrote (build/rocksdb_adapter/rocksdb-sst-writer,
built when CMake finds RocksDB; skipped otherwise): the JSON record names the filter and its layout, and
the FP measured with absent keys (--keys) and with random keys (--sample) sits within 4 binomial sigma of
the model the record states beside it. Foreign files get a named error and exit status 1."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("FILTERLAB_BUILD", ROOT / "build"))
TOOL = BUILD / "filterlab-tool"
WRITER = BUILD / "rocksdb_adapter" / "rocksdb-sst-writer"


@pytest.fixture(scope="module")
def built():
    if not TOOL.exists():
        r = subprocess.run([str(ROOT / "filterlab"), "build"], capture_output=True, text=True, timeout=3600)
        assert r.returncode == 0, r.stderr[-3000:]
    if not WRITER.exists():
        pytest.skip("built without librocksdb: no rocksdb-sst-writer")
    return TOOL, WRITER


@pytest.mark.parametrize("spec,fmt,partitioned", [
    ("fastlocal:bpk=10", "FastLocalBloom", False),
    ("legacy:bpk=10", "legacy Bloom", True),
    ("ribbon:bpk=10", "Ribbon (Standard128)", False),
    ("adapter:binary_fuse:arity=4,fingerprint=8", "filterlab adapter: binary_fuse:arity=4,fingerprint=8,hash=64",
     False),
])
def test_record_and_fp_within_the_model(built, tmp_path, spec, fmt, partitioned):
    tool, writer = built
    sst, absent = tmp_path / "t.sst", tmp_path / "absent.txt"
    args = [str(writer), str(sst), f"--filter={spec}", "--keys=40000", f"--absent_keys={absent}"]
    subprocess.run(args + (["--partitioned"] if partitioned else []), check=True, timeout=120)
    for flags in (["--keys", str(absent)], ["--sample", "100000"]):
        r = subprocess.run([str(tool), "sst-filters", "--json", *flags, str(sst)], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        rec = json.loads(r.stdout)
        assert rec["filter"] == ("partitioned" if partitioned else "full")
        assert rec["entries"] == 40000
        assert {b["format"] for b in rec["blocks"]} == {fmt}
        if partitioned:
            assert len(rec["blocks"]) > 2
        fp = rec["fp"]
        assert fp["queries"] == (39999 if flags[0] == "--keys" else 100000)
        # 4 binomial sigma (a false alarm ~1 in 16000), plus 5% of the model for partitioned filters,
        # whose per-partition entries the file does not store (the tool apportions them by bytes).
        slack = 0.05 * fp["model_fp"] * fp["queries"] if partitioned else 0
        assert abs(fp["positives"] - fp["model_fp"] * fp["queries"]) <= 4 * fp["sigma"] * fp["queries"] + slack, fp


def test_foreign_files_get_named_errors(built, tmp_path):
    tool, _ = built
    p = tmp_path / "notes.txt"
    p.write_text("not a table\n" * 100)
    r = subprocess.run([str(tool), "sst-filters", str(p)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "not a RocksDB SST file: bad magic" in r.stdout, r.stdout
    r = subprocess.run([str(tool), "sst-filters", "--sample", "x", str(p)], capture_output=True, text=True)
    assert r.returncode == 2 and "--sample needs a whole number" in r.stderr, r.stderr
