"""filter = "all" with spec parameters a variant does not take (a fingerprint filter
sized by its layout has no bpk): the variant runs once per setting of the other
keys, at its own size, instead of failing the sweep or being dropped. The
registry's answers are stubbed so the test does not depend on which variants
this build registers; the real check-spec's `keys` are tested in C++
(FilterProperty.AcceptedKeysAreTheParsersKeys) and below."""

import json
import subprocess

import pytest

from experiments import validate
from experiments.config import load_config
from experiments.grid import expand

pytestmark = pytest.mark.usefixtures("build")

CONFIG = """\
description = "all filters over a bpk grid"
claim = "none"
[[sweep]]
name = "s"
worker = "sim fp"
filter = "all"
[sweep.grid]
bpk = [8, 10]
keys = [1000, 2000]
"""

BLOOM = {"variant": "fastlocal", "keys": ["bpk", "probes", "hash"]}
FUSE = {"variant": "fuse8", "keys": ["arity"]}


def answer(spec: str) -> dict:
    variant, _, rest = spec.partition(":")
    params = dict(p.split("=", 1) for p in rest.split(",")) if rest else {}
    kind = BLOOM if variant == "fastlocal" else FUSE
    bad = [k for k in params if k not in kind["keys"]]
    return {"input": spec, "variant": variant, "params": params, "keys": kind["keys"],
            "error": f"unknown parameter '{bad[0]}'" if bad else None}


@pytest.fixture
def stub_registry(monkeypatch):
    monkeypatch.setattr(validate, "example_specs", lambda build: ["fastlocal:bpk=10", "fuse8"])
    monkeypatch.setattr(validate, "check_specs", lambda build, specs: {s: answer(s) for s in specs})


def test_fixed_size_variant_runs_once_per_other_setting(write_config, build, stub_registry):
    config = load_config(write_config(CONFIG))
    problems, notes = [], []
    bases, _, ignored = validate._resolve_filters(config, build, problems, notes)
    assert problems == []
    assert bases["s"] == ["fastlocal", "fuse8"]
    assert ignored["s"] == {"fuse8": ("bpk",)}
    assert any("'fuse8' takes no bpk" in n for n in notes)
    runs = expand(config, bases, "b", ignored)
    specs = sorted((r.spec, r.params["keys"]) for r in runs)
    # fastlocal: 2 bpk x 2 keys; fuse8: 2 keys only, and no bpk in its runs.
    assert specs == [("fastlocal:bpk=10", 1000), ("fastlocal:bpk=10", 2000), ("fastlocal:bpk=8", 1000),
                     ("fastlocal:bpk=8", 2000), ("fuse8", 1000), ("fuse8", 2000)]
    assert all("bpk" not in r.params for r in runs if r.base_filter == "fuse8")
    assert len({r.key for r in runs}) == len(runs)


def test_listed_filters_still_must_take_every_parameter(write_config, build, stub_registry):
    """Only "all" adapts: a filter the config names explicitly gets what it says, or an error."""
    config = load_config(write_config(CONFIG.replace('filter = "all"', 'filter = ["fuse8"]')))
    problems, notes = [], []
    validate._resolve_filters(config, build, problems, notes)
    assert problems and "fuse8:bpk=8" in problems[0] and "unknown parameter 'bpk'" in problems[0]


def test_check_spec_reports_the_keys_a_variant_accepts(build):
    out = subprocess.run([str(build / "filterlab-tool"), "check-spec", "--json", "fastlocal:bpk=10", "onebit"],
                         capture_output=True, text=True, timeout=60)
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert records[0]["keys"] == ["bpk", "probes", "hash", "kernel"]
    assert records[1]["keys"] == ["bpk", "hash"]
