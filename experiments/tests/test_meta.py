"""meta.json's provenance is read when the runs start: a commit made (or load that
arrives) while a long sweep runs must not be credited to results built before it."""

from __future__ import annotations

import json
from types import SimpleNamespace

from experiments import meta


def test_commit_and_load_come_from_the_start(tmp_path, monkeypatch):
    monkeypatch.setattr(meta, "git_info", lambda: {"commit": "a" * 40, "dirty": False})
    monkeypatch.setattr(meta, "load_average", lambda: [0.5, 0.5, 0.5])
    start = meta.at_start()
    # Later: someone commits, the machine gets busy.
    monkeypatch.setattr(meta, "git_info", lambda: {"commit": "b" * 40, "dirty": True})
    monkeypatch.setattr(meta, "load_average", lambda: [9.0, 9.0, 9.0])
    monkeypatch.setattr(meta, "build_info", lambda build: {"dir": str(build)})
    config = SimpleNamespace(name="exp", description="d", claim="c", plots=[], tables=[], path=tmp_path / "c.toml",
                             text="")
    plan = SimpleNamespace(config=config, build=tmp_path, build_ids={}, runs=[], notes=[])
    executor = SimpleNamespace(failures=[])
    meta.write_meta(tmp_path / "meta.json", plan, executor, start, 0, None)
    written = json.loads((tmp_path / "meta.json").read_text())
    assert written["commit"] == "a" * 40 and written["dirty"] is False
    assert written["date"] == start["date"]
    assert written["machine"]["load_average"] == [0.5, 0.5, 0.5]
    assert written["machine"]["load_average_end"] == [9.0, 9.0, 9.0]


def test_cpu_identity_tells_hosts_of_one_model_name_apart():
    # Two hosts that both call themselves "AMD EPYC": the first CPU's block only is read.
    zen4 = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
            "model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 bmi2 avx512f avx512bw\n\n"
            "processor\t: 1\ncpu family\t: 99\nmodel\t\t: 99\nflags\t\t: fpu\n")
    zen3 = "processor\t: 0\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 fma\n"
    assert meta.cpu_identity(zen4) == {"vector_isa": "AVX-512", "cpu_family": 25, "cpu_model_number": 17}
    assert meta.cpu_identity(zen3) == {"vector_isa": "AVX2", "cpu_family": 25, "cpu_model_number": 1}
    assert meta.cpu_identity("processor\t: 0\nflags\t\t: fpu sse2\n") == {"vector_isa": "none"}
