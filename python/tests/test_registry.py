"""filterlab.filters() is the registry: the variants `filterlab-tool list-filters`
lists, each with the parameters its parser accepts and their allowed values, and
the FP-model kind check-spec gives its examples."""

import json

import filterlab

from .conftest import cli


def test_one_row_per_registered_variant(build):
    out = cli(build, "filterlab-tool", "list-filters")
    point_part = out.stdout.partition("\nrange filters (")[0]  # filters() lists the point variants
    names = [line.split()[0] for line in point_part.splitlines() if line and not line.startswith(" ")]
    table = filterlab.filters()
    assert list(table.index) == names
    assert set(table.columns) >= {"summary", "params", "params_text", "examples", "fp_model", "has_probes"}


def test_examples_parameters_and_model_kinds_match_check_spec(check_spec_records, build):
    """Each variant's examples, their FP-model kinds and the parameter keys they
    accept are check-spec's (an alias such as cache_worm64 has worm specs as examples)."""
    table = filterlab.filters()
    by_input = {}
    for r in check_spec_records:
        assert r["error"] is None, r
        by_input[r["input"]] = r
        assert filterlab.check_spec(r["input"]) == r["canonical"]
    assert set(by_input) == {e for examples in table["examples"] for e in examples}
    for name, row in table.iterrows():
        records = [by_input[e] for e in row["examples"]]
        assert row["example_fp_models"] == [r["fp_model"] for r in records], name
        if not row["fp_model_by_spec"]:
            assert {r["fp_model"] for r in records} == {row["fp_model"]}, name
        if not records:  # worm's aliases have no examples: their bare name's keys
            records = [json.loads(cli(build, "filterlab-tool", "check-spec", "--json", name).stdout)]
        accepted = sorted({k for r in records for k in r["keys"]})
        assert sorted(row["params"]) == accepted, name
        assert row["has_probes"] == any(r["probes"] is not None for r in records), name


def test_every_accepted_parameter_has_its_allowed_values_stated():
    """Each parameter a variant's parser accepts is stated as key=VALUES in its
    registration's parameter text (else params maps it to the whole text)."""
    for name, row in filterlab.filters().iterrows():
        for key, allowed in row["params"].items():
            assert allowed != row["params_text"], f"{name}: parameter {key!r} is not stated in {row['params_text']!r}"


def test_parameter_values_read_the_registration_text():
    from filterlab._registry import parameter_values

    text = "bpk=0.5..100 (default 10; below 1 raised to 1) probes=1..30 hash=64|32 (default 64)"
    assert parameter_values(text, ["bpk", "probes", "hash", "kernel"]) == {
        "bpk": "0.5..100 (default 10; below 1 raised to 1)", "probes": "1..30", "hash": "64|32 (default 64)",
        "kernel": text}


def test_spec_records_are_json(check_spec_records):
    assert json.loads(json.dumps(check_spec_records[0]))["canonical"]
