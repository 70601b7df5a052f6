"""The ./filterlab command line as a user meets it: list the filters, check
reference vectors (good, corrupted, not JSON), ask for help, mistype a
subcommand. Each test runs the real script, which builds what it needs (a
no-op when the build is current)."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILTERLAB = ROOT / "filterlab"
VECTORS = Path(os.environ.get("FILTERLAB_REFERENCE_DIR", ROOT / "testdata" / "vectors"))
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$")


def run(*args, cwd=ROOT):
    return subprocess.run(
        [str(FILTERLAB), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=900
    )


def summary(stdout):
    """The final 'N passed, N failed' line as (passed, failed)."""
    lines = stdout.strip().splitlines()
    assert lines, "no output"
    m = SUMMARY.match(lines[-1])
    assert m, f"last line is not 'N passed, N failed': {lines[-1]!r}"
    return int(m.group(1)), int(m.group(2))


VECTOR_FILES = sorted(VECTORS.glob("*.json"))

# Where each reference file keeps an expected value to corrupt (a path into
# its JSON), so that every checker is shown to notice a wrong expectation.
EXPECTED_VALUE = {
    "choose_num_probes.json": ("data", "fastlocal_step500", 0, 1),
    "dynamic_bloom.json": ("cases", 0, "query_positives"),
    "fastlocalbloom.json": ("cases", 0, "query_positives"),
    "fp_model.json": ("rows", 0, "standard"),
    "full_filter_e2e.json": ("cases", 0, "query_positives"),
    "legacy_locality_bloom.json": ("cases", 0, "query_positives"),
    "legacy_no_locality_bloom.json": ("cases", 0, "query_positives"),
    "rocksdb_hash32.json": ("cases", 0, "bloom_hash32"),
}


def corrupted(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1e-3
    if isinstance(value, str) and re.fullmatch(r"[0-9a-f]+", value):
        return ("1" if value[0] == "0" else "0") + value[1:]
    raise AssertionError(f"do not know how to corrupt {value!r}")


RANGE_HEADING = "range filters (filters/range/range_filter.h):"


def list_filters_sections() -> tuple[str, str]:
    """list-filters' output split at the range-filter heading: (point variants, range variants)."""
    r = run("list-filters")
    assert r.returncode == 0, r.stderr
    point, heading, range_part = r.stdout.partition("\n" + RANGE_HEADING + "\n")
    assert heading, f"no range-filter section:\n{r.stdout}"
    return point, range_part


def test_list_filters_lists_registered_variants():
    # Point variants, then under a heading the range variants; in each, one line per variant,
    # "name  summary", then indented parameters and examples.
    for part, expected_names in zip(list_filters_sections(),
                                    (["fastlocal", "legacy", "dynamic", "standard"], ["grafite", "rosetta", "surf"])):
        names = [line.split()[0] for line in part.splitlines() if line and not line.startswith(" ")]
        assert names, f"no variants listed:\n{part}"
        assert names == sorted(names), "variants are listed in name order"
        for expected in expected_names:
            assert expected in names
        assert part.count("parameters:") == len(names), "every variant lists its parameters"
        examples = re.findall(r"e\.g\. (\S+)", part)
        assert examples, "no example specs"
        assert {e.split(":")[0] for e in examples} <= set(names), "examples name registered variants"


def test_reference_vectors_are_present():
    assert VECTOR_FILES, f"no reference vectors in {VECTORS} (set FILTERLAB_REFERENCE_DIR)"
    assert {p.name for p in VECTOR_FILES} <= set(EXPECTED_VALUE), "a new vector file needs an EXPECTED_VALUE entry"


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda p: p.name)
def test_verify_vectors_passes_on_a_reference_file(path):
    r = run("verify-vectors", path)
    assert r.returncode == 0, f"{path.name}:\n{r.stdout[-3000:]}\n{r.stderr[-2000:]}"
    passed, failed = summary(r.stdout)
    assert passed > 0 and failed == 0
    lines = r.stdout.strip().splitlines()
    assert len(lines) == passed + 1, "one line per case, then the summary"
    assert all(line.startswith("ok ") for line in lines[:-1])


def test_verify_vectors_totals_over_several_files():
    if len(VECTOR_FILES) < 2:
        pytest.skip("fewer than two vector files")
    one = [summary(run("verify-vectors", p).stdout) for p in VECTOR_FILES[:2]]
    r = run("verify-vectors", *VECTOR_FILES[:2])
    assert summary(r.stdout) == (one[0][0] + one[1][0], one[0][1] + one[1][1])


@pytest.mark.parametrize("path", VECTOR_FILES, ids=lambda p: p.name)
def test_verify_vectors_reports_a_corrupted_expected_value(path, tmp_path):
    doc = json.loads(path.read_text())
    *parents, last = EXPECTED_VALUE[path.name]
    holder = doc
    for key in parents:
        holder = holder[key]
    holder[last] = corrupted(holder[last])
    bad = tmp_path / path.name
    bad.write_text(json.dumps(doc))
    r = run("verify-vectors", bad)
    assert r.returncode == 1, f"corrupted {path.name} at {EXPECTED_VALUE[path.name]} still passes:\n{r.stdout[-2000:]}"
    passed, failed = summary(r.stdout)
    assert failed >= 1
    fail_lines = [line for line in r.stdout.splitlines() if line.startswith("FAIL")]
    assert fail_lines and str(bad) in fail_lines[0], r.stdout[-2000:]


def test_verify_vectors_rejects_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text("this is not JSON {\n")
    r = run("verify-vectors", bad)
    assert r.returncode == 1
    assert str(bad) in r.stdout
    assert "json" in r.stdout.lower(), r.stdout
    assert summary(r.stdout) == (0, 1)


def test_verify_vectors_names_a_missing_file(tmp_path):
    missing = tmp_path / "missing.json"
    r = run("verify-vectors", missing)
    assert r.returncode == 1
    assert str(missing) in r.stdout


def test_verify_vectors_without_files_explains_usage():
    r = run("verify-vectors")
    assert r.returncode != 0
    assert "vector files" in r.stderr


def test_unknown_subcommand_fails_helpfully():
    r = run("frobnicate")
    assert r.returncode != 0
    assert "unknown subcommand 'frobnicate'" in r.stderr
    assert "list-filters" in r.stderr and "--help" in r.stderr


def test_table_rejects_bad_options():
    r = run("table", "--keys", "0")
    assert r.returncode != 0
    assert "--keys: 0 is not allowed" in r.stderr
    r = run("table", "--frobnicate", "1")
    assert r.returncode != 0
    assert "unrecognized arguments: --frobnicate" in r.stderr
    r = run("table", "--filter", "nosuchfilter:bpk=10", "--keys", "1000", "--queries", "1000")
    assert r.returncode == 1
    assert "unknown filter variant 'nosuchfilter'" in r.stderr


def test_unknown_test_option_fails_helpfully():
    r = run("test", "--bogus")
    assert r.returncode != 0
    assert "--bogus" in r.stderr and "--sanitize" in r.stderr


def help_subcommands(stdout):
    """The subcommand names in the order `./filterlab --help` lists them (the front end's table)."""
    block = stdout.split("subcommands:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  (\S+)", block, re.M)


SUBCOMMANDS = help_subcommands(run("--help").stdout)


def test_help_lists_the_subcommands_the_front_end_dispatches():
    # Every listed name is dispatched (its --help works) and a name not listed is refused, so
    # the list printed and the list run are the same table.
    assert {"run", "test", "sim", "build", "format"} <= set(SUBCOMMANDS), SUBCOMMANDS
    r = run("frobnicate")
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1].count(",") == len(SUBCOMMANDS) - 1, r.stderr


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["help"]])
def test_help_spellings_print_the_same_list(args):
    r = run(*args)
    assert r.returncode == 0
    assert help_subcommands(r.stdout) == SUBCOMMANDS


@pytest.mark.parametrize("sub", SUBCOMMANDS)
def test_each_subcommand_has_help(sub):
    r = run(sub, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: ./filterlab {sub}")
    assert len(r.stdout.splitlines()) >= 3, f"{sub} --help says nothing beyond its usage line"


def readme_section(title):
    text = (ROOT / "README.md").read_text()
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_command_table_matches_the_front_end():
    rows = re.findall(r"^\| `\./filterlab ([a-z-]+)", readme_section("Subcommands"), re.M)
    assert rows, "no ./filterlab rows in the README's Subcommands table"
    assert set(rows) == set(SUBCOMMANDS), (
        f"README rows without a subcommand: {sorted(set(rows) - set(SUBCOMMANDS))}; "
        f"subcommands without a README row: {sorted(set(SUBCOMMANDS) - set(rows))}"
    )


def test_readme_sim_row_lists_every_simulator_command():
    r = run("sim", "--describe")
    assert r.returncode == 0, r.stderr
    commands = [c["command"] for c in json.loads(r.stdout)["commands"]]
    row = next(line for line in readme_section("Subcommands").splitlines() if line.startswith("| `./filterlab sim"))
    listed = re.findall(r"`([a-z_]+)`", row.split("|")[2])
    assert set(commands) <= set(listed), f"the README's sim row omits {sorted(set(commands) - set(listed))}"


def test_no_arguments_prints_usage_and_fails():
    r = run()
    assert r.returncode == 2
    assert "usage: ./filterlab" in r.stderr


def test_table_prints_a_row_per_example_spec():
    # A small table (the default is 10^6 keys, 10^7 queries) to keep the test quick.
    r = run("table", "--keys", "20000", "--queries", "200000")
    assert r.returncode == 0, r.stdout + r.stderr
    # One row per point-filter example (range filters have `sim rangefp`).
    examples = re.findall(r"e\.g\. (\S+)", list_filters_sections()[0])
    rows = [line.strip("|").split("|") for line in r.stdout.splitlines() if re.match(r"^\| [a-z_0-9]+:", line)]
    assert len(rows) == len(examples), r.stdout
    for row in rows:
        fields = [f.strip() for f in row]
        bits_per_key, fp = float(fields[1]), float(fields[3])
        fingerprint = re.search(r"fingerprint=(\d+)", fields[0])
        if fingerprint:  # XOR, binary fuse: no bpk; 1.075..1.23 slots per key (more at 2*10^4 keys)
            f = int(fingerprint.group(1))
            assert f <= bits_per_key <= 1.3 * f, row
            # percent: the rate 2^-f, with room for 2*10^5 queries' noise (2^-16: ~3 positives)
            assert 0 <= fp <= 3 * 100 * 2.0**-f, row
            assert all(fields[6:9]), row
            continue
        # What the row's policy says its filters spend (10 for the Bloom layouts;
        # Ribbon's bpk=10 is a Bloom-equivalent and spends ~7), give or take rounding.
        model = run("sim", "model", "--filter", fields[0], "--keys", "20000")
        assert model.returncode == 0, model.stderr
        spends = json.loads(model.stdout.splitlines()[0])["bits_per_key"]
        assert 0.9 * spends - 0.5 <= bits_per_key <= 1.1 * spends + 0.5, (row, spends)
        assert 0 < fp < 10, row  # percent
        assert all(fields[6:9]), row  # build, query and batch ns from the sim's speed records


def test_sim_passes_through_to_the_simulator():
    r = run("sim", "model", "--filter", "fastlocal:bpk=10", "--keys", "1000")
    assert r.returncode == 0, r.stderr
    record = json.loads(r.stdout)
    assert record["command"] == "model" and record["filter"] == "fastlocal:bpk=10,probes=6,hash=64"
    r = run("sim", "fp", "--filter", "nosuchfilter", "--check")
    assert r.returncode == 2 and "nosuchfilter" in r.stderr and r.stdout == ""


def test_bench_runs_both_binaries_or_the_one_named():
    # Listing the benchmarks runs none of them.
    r = run("bench", "--benchmark_list_tests=true")
    assert r.returncode == 0, r.stderr
    assert "XXPH3_64/" in r.stdout and "BM_MemTableInsert/" in r.stdout
    r = run("bench", "engine", "--benchmark_list_tests=true")
    assert r.returncode == 0, r.stderr
    assert "XXPH3_64/" not in r.stdout and "BM_MemTableInsert/" in r.stdout
    r = run("bench", "--help")
    assert r.returncode == 0 and "engine_bench" in r.stdout and "filterlab_bench" in r.stdout
