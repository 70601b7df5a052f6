"""Config validation: every kind of problem gets a message naming the file,
the key and what is allowed; all problems are reported at once."""

import os

import pytest

import experiments.describe
from experiments.config import ConfigError, load_config
from experiments.describe import describe
from experiments.registry import check_specs, label
from experiments.validate import plan

from .conftest import SMALL_FP, wrapped_build


def problems_of(path, build=None, **kw):
    with pytest.raises(ConfigError) as e:
        cfg = load_config(path)
        plan(cfg, build, **kw)
    return e.value.problems


def only(problems):
    assert len(problems) == 1, problems
    return problems[0]


def test_small_config_is_valid(write_config, checked_build):
    p = plan(load_config(write_config(SMALL_FP)), checked_build)
    assert len(p.runs) == 6


def test_invalid_toml(write_config):
    msg = only(problems_of(write_config("description = \n")))
    assert "exp.toml: not valid TOML" in msg


def test_unknown_top_level_key_suggests(write_config):
    msg = only(problems_of(write_config('descripton = "x"\n' + SMALL_FP)))
    assert "exp.toml: descripton: unknown key (did you mean 'description'?)" in msg
    assert "allowed: name, description, claim" in msg


def test_missing_description_and_claim_reported_together(write_config):
    text = SMALL_FP.replace('description = "test sweep"\n', "").replace('claim = "none"\n', "")
    probs = problems_of(write_config(text))
    assert len(probs) == 2
    assert any("exp.toml: description: required: a non-empty string" in p for p in probs)
    assert any("exp.toml: claim: required" in p and "published claim" in p for p in probs)


def test_unknown_grid_key_names_sweep_and_allowed_flags(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace("keys = 2000", "kyes = 2000"))))
    assert "sweep[0] ('fp').fixed.kyes: unknown key (did you mean 'keys'?)" in msg
    assert "allowed: keys, filters, queries" in msg and "bpk" in msg


def test_wrong_type(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace("keys = 2000", 'keys = "many"'))))
    assert "sweep[0] ('fp').fixed.keys: got 'many' (str); allowed: an integer in 1..1000000000000" in msg


def test_out_of_range_value(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace("keys = 2000", "keys = 0"))))
    assert "fixed.keys: got 0 (int); allowed: an integer in 1..1000000000000" in msg


def test_empty_grid_list(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace("bpk = [6, 10, 14]", "bpk = []"))))
    assert "sweep[0] ('fp').grid.bpk: empty grid: give at least one value (a number)" in msg


def test_empty_range(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace("bpk = [6, 10, 14]", "bpk = {from = 20, to = 6, step = 1}"))))
    assert "grid.bpk: empty range: from=20 is above to=6" in msg


def test_range_needs_one_step_kind(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace("bpk = [6, 10, 14]", "bpk = {from = 6, to = 20}"))))
    assert "grid.bpk: a range needs exactly one of step, per_decade, count" in msg


def test_key_in_fixed_and_grid(write_config):
    msg = only(problems_of(write_config(SMALL_FP + "keys = [1, 2]\n")))
    assert "grid.keys: is also in fixed; give each key in one place" in msg


def test_unknown_worker(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace('worker = "sim fp"', 'worker = "sim fpp"'))))
    assert "sweep[0] ('fp').worker: got 'sim fpp'; allowed: 'sim fp', 'sim speed', 'sim model'" in msg


def test_unknown_plot_kind(write_config):
    msg = only(problems_of(write_config(SMALL_FP.replace('plots = ["fp_vs_bits"]', 'plots = ["pie"]'))))
    assert "exp.toml: plots: unknown kind 'pie'; allowed: fp_vs_bits, fp_vs_keys" in msg


def test_unknown_filter_variant_asked_of_registry(write_config, build):
    msg = only(problems_of(write_config(SMALL_FP.replace('"standard"', '"bogus"')), build))
    assert "exp.toml: sweep[0] ('fp') filter: the filter registry rejects 'bogus:bpk=6'" in msg
    assert "unknown filter variant 'bogus'; known variants:" in msg and "fastlocal" in msg


def test_unknown_spec_parameter_asked_of_registry(write_config, build):
    msg = only(problems_of(write_config(SMALL_FP.replace('"standard"', '"standard:colour=red"')), build))
    assert "rejects 'standard:colour=red,bpk=6'" in msg
    assert "unknown parameter 'colour' for variant standard; allowed:" in msg


def test_spec_value_rejected_for_some_grid_points(write_config, build):
    # legacy takes only 32-bit hashes: the grid (not the filter) is what is wrong for hash=64.
    text = SMALL_FP.replace('["fastlocal", "standard"]', '["legacy"]') + "hash = [32, 64]\n"
    msg = only(problems_of(write_config(text), build))
    assert "sweep[0] ('fp') grid: the filter registry rejects 'legacy:bpk=6,hash=64' (3 of 6 grid combinations" in msg


def test_filter_setting_a_grid_key(write_config, build):
    msg = only(problems_of(write_config(SMALL_FP.replace('"standard"', '"standard:bpk=10"')), build))
    assert "'standard:bpk=10' sets bpk, which the sweep's fixed/grid also sets" in msg


def test_impossible_size_for_memory(write_config, build):
    text = SMALL_FP.replace("keys = 2000", "keys = 1000000000")
    msg = only(problems_of(write_config(text), build, mem_limit=4 << 30))
    assert "sweep[0] ('fp') keys/bpk: 6 run(s) need more memory than this machine has available" in msg
    assert "fastlocal:bpk=14 keys=1000000000 queries=20000 seed=0 needs about 9.1 GiB; allowed: at most 4.0 GiB per run (MemAvailable)" in msg


def test_missing_worker_binary(write_config, tmp_path):
    msg = only(problems_of(write_config(SMALL_FP), tmp_path / "nobuild"))
    assert "'sim fp' needs" in msg and "nobuild/sim/filterlab-sim, which does not exist" in msg


def test_registry_parses_specs_for_the_runner(build):
    """check-spec --json: the spec as written (variant, params) whether or not the
    registry accepts it, the canonical spec, or the registry's reason."""
    specs = ["fastlocal:bpk=10", "legacy:bpk=10,hash=64", "bogus", "worm:variant=cache_worm64, bpk = 8"]
    a = check_specs(build, specs)
    assert [a[s]["error"] is None for s in specs] == [True, False, False, True]
    assert a["fastlocal:bpk=10"]["canonical"].startswith("fastlocal:bpk=10,")
    assert a["legacy:bpk=10,hash=64"]["error"].startswith("hash=64 is not allowed; hash must be 32")
    assert a["legacy:bpk=10,hash=64"]["params"] == {"bpk": "10", "hash": "64"}
    assert a["bogus"]["variant"] == "bogus" and a["bogus"]["error"].startswith("unknown filter variant 'bogus'")
    # What each variant's FP model promises, from its registration (per spec where the kind depends on
    # it): legacy's is an approximation (0.4%) up to 20 probes and an upper bound above; none for a spec
    # the registry refuses.
    assert (a["fastlocal:bpk=10"]["fp_model"], a["legacy:bpk=10,hash=64"]["fp_model"]) == ("exact", None)
    kinds = check_specs(build, ["legacy:bpk=10", "legacy:bpk=40"])
    assert (kinds["legacy:bpk=10"]["fp_model"], kinds["legacy:bpk=40"]["fp_model"]) == ("approximation", "upper_bound")
    assert (kinds["legacy:bpk=10"]["fp_model_max_relative_error"], a["fastlocal:bpk=10"]["fp_model_max_relative_error"]) \
        == (0.004, 0)
    worm = a["worm:variant=cache_worm64, bpk = 8"]
    assert (worm["variant"], worm["params"]) == ("worm", {"variant": "cache_worm64", "bpk": "8"})
    assert label(worm) == "cache_worm64:bpk=8" and label(a["fastlocal:bpk=10"]) == "fastlocal:bpk=10"


def test_worker_check_failures_name_config_sweep_and_run(write_config, tmp_path, build):
    """Every distinct command line is put to its worker with --check; what the worker
    refuses is reported once per sweep and message, with the first run and a count.
    (A wrapped sim stands in for the checks here, refusing --keys=1313.)"""
    wrapped = wrapped_build(tmp_path, build, {})
    sim = wrapped / "sim" / "filterlab-sim"
    sim.unlink()
    sim.write_text(f"""#!/bin/sh
case " $* " in *" --check "*)
  case " $* " in *" --keys=1313 "*) echo "filterlab-sim fp: --keys=1313: unlucky; allowed: any other" >&2; exit 2;;
  esac; exit 0;; esac
exec "{build / 'sim' / 'filterlab-sim'}" "$@"
""")
    sim.chmod(0o755)
    text = SMALL_FP.replace("keys = 2000\n", "").replace("bpk = [6, 10, 14]", "bpk = [8, 9]\nkeys = [1000, 1313]")
    msg = only(problems_of(write_config(text), wrapped))
    assert msg == (f"{tmp_path / 'exp.toml'}: sweep 'fp': run fp sim fp fastlocal:bpk=8 queries=20000 keys=1313 "
                   "seed=0 (and 3 more run(s) of this sweep): sim fp rejects it: filterlab-sim fp: --keys=1313: "
                   "unlucky; allowed: any other")


def test_worker_checks_name_the_canonical_spec_and_runs_keep_their_own(write_config, tmp_path, build):
    """--check gets the registry's canonical spec (the probe count explicit, so a model-optimal worm
    variant is not searched again in every check's process); the runs themselves keep the spec as
    the config wrote it. (A wrapped sim logs the command lines it is asked to check.)"""
    wrapped = wrapped_build(tmp_path, build, {})
    sim = wrapped / "sim" / "filterlab-sim"
    sim.unlink()
    log = tmp_path / "checked"
    sim.write_text(f"""#!/bin/sh
case " $* " in *" --check "*) echo "$*" >> "{log}";; esac
exec "{build / 'sim' / 'filterlab-sim'}" "$@"
""")
    sim.chmod(0o755)
    text = SMALL_FP.replace('filter = ["fastlocal", "standard"]', 'filter = ["worm:variant=cache_dbl"]')
    p = plan(load_config(write_config(text)), wrapped)
    answers = check_specs(build, [r.spec for r in p.runs])
    assert sorted(r.spec for r in p.runs) == sorted(f"worm:variant=cache_dbl,bpk={b}" for b in (6, 10, 14))
    checked = sorted(line.split("--filter=")[1].split()[0] for line in log.read_text().splitlines())
    assert checked == sorted(answers[r.spec]["canonical"] for r in p.runs)
    assert all(",probes=" in spec for spec in checked), checked


def test_describe_is_cached_per_binary_build(tmp_path, build):
    """A binary is asked --describe once per build of it: again only when its size or mtime changes."""
    log = tmp_path / "calls"
    (tmp_path / "CMakeCache.txt").write_text("")
    sim = tmp_path / "sim" / "filterlab-sim"
    sim.parent.mkdir()
    sim.write_text(f"#!/bin/sh\necho x >> {log}\nexec {build / 'sim' / 'filterlab-sim'} \"$@\"\n")
    sim.chmod(0o755)
    first = describe(sim)
    assert [c["command"] for c in first["commands"]][:2] == ["fp", "model"]
    assert (tmp_path / ".describe-cache.json").exists()

    experiments.describe._memo.clear()  # as a new process would start
    assert describe(sim) == first and log.read_text().count("x") == 1
    st = sim.stat()
    os.utime(sim, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # rebuilt
    assert describe(sim) == first and log.read_text().count("x") == 2


def test_quick_table_reduces_fixed_grid_and_repeats(write_config, checked_build):
    text = SMALL_FP + '\n[quick]\nkeys = 500\nqueries = 1000\n'
    full = load_config(write_config(text))
    quick = load_config(write_config(text), quick=True)
    assert full.name == "exp" and quick.name == "exp-quick"
    assert full.sweeps[0].fixed["keys"] == 2000 and quick.sweeps[0].fixed["keys"] == 500
    assert quick.sweeps[0].fixed["queries"] == 1000
    # Same number of runs, smaller each: the quick run measures the same grid.
    assert len(plan(quick, checked_build).runs) == len(plan(full, checked_build).runs)


def test_quick_subtable_applies_to_its_sweep_only(write_config):
    second = SMALL_FP[SMALL_FP.index("[[sweep]]"):].replace('name = "fp"', 'name = "big"').replace(
        "keys = 2000", "keys = 90000")
    text = SMALL_FP + "\n" + second + "\n[quick]\nqueries = 1000\n[quick.big]\nkeys = 3000\nbpk = [10]\n"
    quick = load_config(write_config(text), quick=True)
    fp, big = quick.sweeps
    assert fp.fixed == {"keys": 2000, "queries": 1000} and big.fixed == {"keys": 3000, "queries": 1000}
    assert fp.grid["bpk"] == [6, 10, 14] and big.grid["bpk"] == [10]


def test_quick_subtable_key_that_reduces_nothing_is_an_error(write_config):
    text = SMALL_FP + "\n[quick]\n[quick.fp]\nnum = 5\n"
    with pytest.raises(ConfigError) as e:
        load_config(write_config(text), quick=True)
    assert "exp.toml: quick.fp.num: no sweep sets this parameter" in only(e.value.problems)


def test_quick_key_that_reduces_nothing_is_an_error(write_config):
    text = SMALL_FP + '\n[quick]\nnum = 500\n'
    with pytest.raises(ConfigError) as e:
        load_config(write_config(text), quick=True)
    assert "exp.toml: quick.num: no sweep sets this parameter" in only(e.value.problems)


def test_quick_without_a_quick_table_is_an_error(write_config):
    with pytest.raises(ConfigError) as e:
        load_config(write_config(SMALL_FP), quick=True)
    assert "--quick needs a [quick] table" in only(e.value.problems)


def test_quick_values_are_checked_like_the_config(write_config):
    text = SMALL_FP + '\n[quick]\nkeys = 0\n'
    with pytest.raises(ConfigError) as e:
        load_config(write_config(text), quick=True)
    assert "fixed.keys: got 0" in only(e.value.problems)
