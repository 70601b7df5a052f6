"""A small results fixture in the shape the runner writes (one row per
measurement, the sim's record fields plus the run's parameters): FP against
bits/key, FP against keys for 32/64-bit hashes, speed and probes records."""

import json

import pandas as pd
import pytest


def _fp_row(sweep, base, bpk, keys, hash_bits, seed, fp, queries=100000):
    positives = round(fp * queries)
    return {"experiment": "fixture", "sweep": sweep, "worker": "sim fp", "run_key": f"{sweep}{base}{bpk}{keys}{seed}",
            "base_filter": base, "seed": seed, "bpk": float(bpk), "command": "fp", "filter": f"{base}:bpk={bpk}",
            "hash_bits": hash_bits, "keys": keys, "queries": queries, "positives": positives,
            "fp": positives / queries, "ci_low": positives / queries * 0.9, "ci_high": positives / queries * 1.1,
            "model_fp": fp * 1.02, "bits_per_key": bpk + 0.01, "bytes": int(keys * bpk / 8)}


def _speed_row(base, mode, mix, ns, fp=None):
    row = {"experiment": "fixture", "sweep": "speed", "worker": "sim speed", "run_key": f"s{base}",
           "base_filter": base, "seed": 0, "bpk": 10.0, "command": "speed", "filter": f"{base}:bpk=10",
           "mode": mode, "mix": mix, "bits_per_key": 10.05}
    if mode == "build":
        row.update(mix=None, ns_per_key=ns)
    else:
        row.update(net_ns_per_op=ns, fp=fp, batch=1)
    return row


def fixture_frame() -> pd.DataFrame:
    rows = []
    for base, scale in (("fastlocal", 1.0), ("legacy", 1.3)):
        for bpk, fp in ((6, 0.06), (10, 0.01), (14, 0.002)):
            for seed in (0, 1):
                rows.append(_fp_row("fp_vs_bits", base, bpk, 10000, 64, seed, fp * scale))
    for hash_bits, extra in ((64, 0.0), (32, 0.004)):
        for keys, grow in ((1000, 0), (1000000, 0.5), (100000000, 1)):
            rows.append(_fp_row("fp_vs_keys", "fastlocal", 10, keys, hash_bits, 0, 0.0096 + extra * grow) |
                        {"base_filter": "fastlocal", "bpk": None, "hash": hash_bits})
    for base, ns in (("fastlocal", 20.0), ("legacy", 50.0)):
        rows.append(_speed_row(base, "build", None, 40.0))
        for mode, factor in (("single", 1), ("random", 5)):
            for mix, m in (("inside", 1.0), ("outside", 0.8), ("mixed", 0.9)):
                rows.append(_speed_row(base, mode, mix, ns * factor * m, fp=0.0095 if base == "fastlocal" else 0.012))
    for bpk, best in ((6, 4), (10, 6), (14, 9)):
        rows.append({"experiment": "fixture", "sweep": "probes", "worker": "sim probes", "run_key": "p",
                     "base_filter": "fastlocal", "seed": 0, "command": "probes", "record": "grid",
                     "variant": "fastlocal", "bits_per_key": float(bpk), "best_probes": best, "table_probes": best,
                     "verdict": "agree", "candidates_probes": best, "candidates_fp": 0.01})
    return pd.DataFrame(rows)


@pytest.fixture
def results_dir(tmp_path):
    d = tmp_path / "fixture"
    d.mkdir()
    fixture_frame().to_parquet(d / "results.parquet", index=False)
    (d / "meta.json").write_text(json.dumps({"plots": [], "tables": []}))
    return d
