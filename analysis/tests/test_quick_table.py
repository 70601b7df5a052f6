"""./filterlab table's formatter: the rows come from sim fp and speed records
(the FP columns as tables.fp_table makes them, the ns from the speed records
of the same spec), in the order measured; and the sim command lines it runs."""

import pytest

from analysis import quick_table


def fp_rec(spec, positives, queries=100000, bits=10.02, model=0.0095):
    return {"command": "fp", "filter": spec, "filter_arg": spec, "keys": 1000, "queries": queries, "seed": 0,
            "positives": positives, "fp": positives / queries, "model_fp": model, "bits_per_key": bits}


def speed_rec(spec, mode, batch=None, **kw):
    r = {"command": "speed", "filter": spec, "mode": mode}
    if batch is not None:
        r["batch"] = batch
    r.update(kw)
    return r


def records():
    out = [fp_rec("standard:bpk=10,probes=7,hash=64", 819), fp_rec("fastlocal:bpk=10,probes=6,hash=64", 957, bits=10.24)]
    for spec, build, single, batched in (("standard:bpk=10,probes=7,hash=64", 61.25, 43.0, 20.5),
                                         ("fastlocal:bpk=10,probes=6,hash=64", 12.5, 8.04, 3.2)):
        out += [speed_rec(spec, "build", ns_per_key=build), speed_rec(spec, "huge", 1, net_ns_per_op=single),
                speed_rec(spec, "huge", 16, net_ns_per_op=batched)]
    return out


def test_rows_keep_the_measured_order_and_join_fp_with_speed():
    t = quick_table.quick_table(records(), batch=16)
    assert list(t["filter"]) == ["standard:bpk=10,probes=7,hash=64", "fastlocal:bpk=10,probes=6,hash=64"]
    assert list(t.columns) == ["filter", "bits/key (actual)", "bytes/key", "FP %", "95% CI %", "model FP %",
                               "build ns/key", "query ns/op", "batch 16 ns/op"]
    row = t.iloc[1]
    assert row["FP %"] == "0.957"
    assert row["bits/key (actual)"] == "10.24" and row["bytes/key"] == "1.2800"
    lo, hi = (float(x) for x in row["95% CI %"].split(".."))
    assert lo < 0.957 < hi
    assert row["model FP %"] == "0.95"
    assert (row["build ns/key"], row["query ns/op"], row["batch 16 ns/op"]) == ("12.5", "8.0", "3.2")
    assert t.iloc[0]["query ns/op"] == "43.0"


def test_a_spec_without_speed_records_gets_empty_cells():
    recs = [r for r in records() if not (r["command"] == "speed" and r["filter"].startswith("standard"))]
    t = quick_table.quick_table(recs, batch=16)
    assert t.iloc[0]["build ns/key"] == "" and t.iloc[1]["build ns/key"] == "12.5"


def test_no_fp_records_is_an_error():
    with pytest.raises(ValueError):
        quick_table.quick_table([speed_rec("x", "build", ns_per_key=1.0)], batch=16)


def test_sim_command_lines():
    args = quick_table.parser().parse_args(["--sim", "S", "--keys", "20000", "--queries", "5e6", "--batch", "16"])
    cmds = quick_table.sim_commands(args)
    assert cmds["model"] == ["model", "--keys", "1", "--bpk", "10"]
    assert cmds["fp"] == ["fp", "--keys", "20000", "--queries", "5000000"]
    assert cmds["speed"][cmds["speed"].index("--queries") + 1] == str(quick_table.MAX_TIMED_QUERIES)
    assert cmds["speed"][cmds["speed"].index("--batch_sizes") + 1] == "16"
    # --filter specs keep their own bits/key unless --bpk is given.
    args = quick_table.parser().parse_args(["--sim", "S", "--filter", "standard:bpk=12"])
    assert cmds_model(args) == ["model", "--keys", "1", "--filter", "standard:bpk=12"]
    args = quick_table.parser().parse_args(["--sim", "S", "--filter", "standard:bpk=12", "--bpk", "8"])
    assert cmds_model(args) == ["model", "--keys", "1", "--bpk", "8", "--filter", "standard:bpk=12"]


def cmds_model(args):
    return quick_table.sim_commands(args)["model"]


@pytest.mark.parametrize("flag,value", [("--keys", "0"), ("--keys", "2500.5"), ("--queries", "x"), ("--batch", "65"),
                                        ("--bpk", "-1"), ("--bpk", "inf")])
def test_bad_flags_name_the_value_and_the_range(flag, value, capsys):
    with pytest.raises(SystemExit):
        quick_table.parser().parse_args(["--sim", "S", flag, value])
    err = capsys.readouterr().err
    assert flag in err and f"{value} is not allowed" in err
