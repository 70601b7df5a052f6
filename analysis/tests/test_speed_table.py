"""The speed table (and the cells the speed figures share, speed_data.py):
medians over repeats with min–max and n, the spread flag and its footnote,
column and row names a reader understands, x_floor. Fixtures are small
synthetic frames in the shape of sim speed records."""

import pandas as pd
import pytest

from analysis import tables
from analysis.speed_data import speed_cells

from .conftest import fixture_frame


def rec(base="fastlocal", mode="random", mix="mixed", ns=100.0, seed=0, **kw):
    """One sim speed record as the runner stores it (run columns + record fields)."""
    row = {"sweep": "speed", "worker": "sim speed", "run_key": f"{base}{seed}", "base_filter": base, "seed": seed,
           "bpk": 10.0, "command": "speed", "filter": f"{base}:bpk=10", "mode": mode, "mix": mix,
           "bits_per_key": 10.05, "batch": 1, "pick": "single" if mode == "single" else "random",
           "pipeline_depth": 16 if mode == "random_pipelined" else 0, "dry_ns_per_op": 10.5,
           "net_ns_per_op": ns, "fp": 0.01, "outside_queries": 1000}
    if mode == "build":
        row.update(mix=None, ns_per_key=ns, net_ns_per_op=None, pick=None, batch=None, pipeline_depth=None,
                   dry_ns_per_op=None, fp=None, outside_queries=None)
    row.update(kw)
    return row


def frame(rows):
    return pd.DataFrame(rows)


def test_median_min_max_and_n_over_repeats():
    df = frame([rec(ns=ns, seed=s) for s, ns in enumerate((2.9, 2.5, 2.7))] +
               [rec(mode="build", ns=ns, seed=s) for s, ns in enumerate((50.0, 48.0, 52.5))])
    t = tables.speed_table(df)
    assert list(t.columns) == ["filter", "build ns/key", "queries", "mixed: net ns/op"]
    assert t.loc[0, "mixed: net ns/op"] == "2.7 (2.5–2.9, n=3)"
    assert t.loc[0, "build ns/key"] == "50.0 (48.0–52.5, n=3)"
    cells = speed_cells(df)
    random = cells[cells["mode"] == "random"].iloc[0]
    assert (random["median"], random["lo"], random["hi"], random["n"]) == (2.7, 2.5, 2.9, 3)
    assert not random["flagged"]


def test_last_repeat_no_longer_wins():
    # The old table kept whichever repeat came last (here 9.9); the median is 3.0.
    df = frame([rec(ns=ns, seed=s) for s, ns in enumerate((3.0, 2.8, 9.9))])
    assert tables.speed_table(df).loc[0, "mixed: net ns/op"].startswith("3.0 (2.8–9.9, n=3)")


def test_one_repeat_says_n1():
    t = tables.speed_table(frame([rec(ns=123.4)]))
    assert t.loc[0, "mixed: net ns/op"] == "123 (n=1)"


def test_spread_flag_threshold_and_footnote():
    ok = [rec(base="fastlocal", ns=ns, seed=s) for s, ns in enumerate((100.0, 150.0, 120.0))]  # 1.5x: not flagged
    slow = [rec(base="legacy", ns=ns, seed=s, dry_ns_per_op=dry)
            for s, (ns, dry) in enumerate(((100.0, 10.5), (260.0, 18.7), (105.0, 10.4)))]
    t = tables.speed_table(frame(ok + slow))
    assert t.loc[0, "mixed: net ns/op"] == "120 (100–150, n=3)"
    assert t.loc[1, "mixed: net ns/op"] == "105 (100–260, n=3)*"
    md = tables.to_markdown(t)
    note = [line for line in md.splitlines() if line.startswith("*:")]
    assert len(note) == 1
    assert "differ by more than 1.5x (max/min); the median is shown" in note[0]
    assert "the dry run (no filter query) varied by more than 1.3x" in note[0]
    # The notes come after the table, each its own paragraph.
    lines = md.splitlines()
    assert lines[0].startswith("| filter |") and lines[4] == "" and lines[-1] == note[0]


def test_flag_without_a_dry_run_change_says_so():
    rows = [rec(ns=ns, seed=s) for s, ns in enumerate((100.0, 200.0, 105.0))]
    md = tables.to_markdown(tables.speed_table(frame(rows)))
    assert "The dry run (no filter query) varied by less than 1.3x in these cells." in md
    assert "the host changed speed, not the filter" not in md


def test_no_flag_no_footnote():
    md = tables.to_markdown(tables.speed_table(frame([rec(ns=ns, seed=s) for s, ns in enumerate((10, 11, 12))])))
    assert "*" not in md


def test_non_positive_minimum_is_flagged():
    cells = speed_cells(frame([rec(mode="single", ns=ns, seed=s) for s, ns in enumerate((0.4, -0.1, 0.5))]))
    assert cells.loc[0, "flagged"] and cells.loc[0, "spread"] == float("inf")


def test_rows_name_each_kind_of_query_and_columns_each_mix():
    rows = []
    for s in (0, 1, 2):
        rows.append(rec(mode="build", ns=40.0, seed=s))
        for mix in ("inside", "outside", "mixed"):
            rows.append(rec(mode="single", mix=mix, ns=3.0, seed=s))
            rows.append(rec(mode="random", mix=mix, ns=100.0, seed=s, x_floor=4.0, floor_ns_per_line=25.0))
            for depth in (8, 32):
                rows.append(rec(mode="random_pipelined", mix=mix, ns=40.0, seed=s, pipeline_depth=depth,
                                x_floor=1.6, floor_ns_per_line=25.0))
        for b in (8, 16):
            for prepared in (True, False):
                for pick in ("single", "random"):
                    rows.append(rec(mode="batched", ns=20.0, seed=s, batch=b, prepared=prepared, pick=pick))
        # The count of primary filters differs between seeds (the working set's filter count does);
        # the configured shares do not, so the repeats stay one cell. sim speed takes
        # floor(share x filters): 86 of 8650 is 0.994%, still the 1% row.
        filters = 8600 + 50 * s
        for share, part in ((50, 0.01), (80, 0.2)):
            rows.append(rec(mode="skewed", ns=60.0, seed=s, pick="skewed",
                            skew=f"{share}% in {int(part * filters)} filters", filters=filters))
        rows.append(rec(mode="huge", ns=150.0, seed=s, pick="single"))
        rows.append(rec(mode="huge", ns=30.0, seed=s, pick="single", batch=16, prepared=True))
    t = tables.speed_table(frame(rows))
    assert list(t.columns) == ["filter", "build ns/key", "queries", "inside: net ns/op", "outside: net ns/op",
                               "mixed: net ns/op", "mixed: × floor"]
    assert list(t["queries"]) == [
        "hot filter (single)",
        "random filter, one at a time (random)",
        "random filter, pipelined in groups of 8 (random_pipelined)",
        "random filter, pipelined in groups of 32 (random_pipelined)",
        "hot filter, batches of 8, prepared (batched)",
        "random filter, batches of 8, prepared (batched)",
        "hot filter, batches of 8, unprepared (batched)",
        "random filter, batches of 8, unprepared (batched)",
        "hot filter, batches of 16, prepared (batched)",
        "random filter, batches of 16, prepared (batched)",
        "hot filter, batches of 16, unprepared (batched)",
        "random filter, batches of 16, unprepared (batched)",
        "skewed: 50% of queries to 1% of the filters (skewed)",
        "skewed: 80% of queries to 20% of the filters (skewed)",
        "one huge filter, one at a time (huge)",
        "one huge filter, batches of 16 (huge)",
    ]
    assert all(v.endswith("n=3)") for v in t["mixed: net ns/op"])
    # Build on the filter's first row only; x_floor on the random-filter rows only.
    assert list(t["build ns/key"]) == ["40.0 (40.0–40.0, n=3)"] + [""] * 15
    assert list(t["mixed: × floor"][:5]) == ["", "4.00", "1.60", "1.60", ""]
    # Batched rows are measured on mixed queries only.
    assert t.loc[4, "inside: net ns/op"] == "" and t.loc[4, "mixed: net ns/op"] == "20.0 (20.0–20.0, n=3)"
    md = tables.to_markdown(t)
    assert "× floor (mixed queries): median net ns/op divided by the time of one independent random" in md
    assert "batches: prepared = one MayContainBatch call per batch" in md
    assert "pipelined in groups of N (random_pipelined): the same queries as random" in md


def test_x_floor_is_the_median_and_absent_without_floor():
    rows = [rec(ns=100.0, seed=s, x_floor=xf, floor_ns_per_line=25.0) for s, xf in enumerate((3.0, 4.0, 9.0))]
    assert tables.speed_table(frame(rows)).loc[0, "mixed: × floor"] == "4.00"
    t = tables.speed_table(frame([rec(ns=100.0, seed=s) for s in (0, 1)]))
    assert "mixed: × floor" not in t.columns and "× floor" not in tables.to_markdown(t)


def test_labels_get_bpk_when_the_rows_hold_several():
    t = tables.speed_table(frame([rec(ns=100.0, bpk=8.0), rec(ns=90.0, bpk=12.0)]))
    assert list(t["filter"]) == ["fastlocal bpk=8", "fastlocal bpk=12"]


def test_latex_has_the_notes_and_escapes_them():
    tex = tables.to_latex(tables.speed_table(fixture_frame()))
    assert r"\end{tabular}" in tex
    assert r"mixed: $\times$ floor" in tex and "225 (202--562, n=3)*" in tex
    assert tex.splitlines()[-1].startswith(r"{\footnotesize *: the repeats") and tex.endswith("\\par}\n")


def test_old_records_without_pick_or_depth_still_aggregate():
    rows = [rec(ns=ns, seed=s) for s, ns in enumerate((5.0, 6.0, 7.0))]
    for r in rows:
        del r["pick"], r["pipeline_depth"]
    assert tables.speed_table(frame(rows)).loc[0, "mixed: net ns/op"] == "6.0 (5.0–7.0, n=3)"


@pytest.mark.parametrize("kind", ["speed_table"])
def test_no_speed_rows_no_table(kind):
    fp_only = fixture_frame()
    fp_only = fp_only[fp_only["command"] == "fp"]
    assert getattr(tables, kind)(fp_only) is None


def test_notes_give_the_working_set_of_the_random_rows():
    rows = [rec(ns=100.0, seed=s, working_set_bytes=64 << 20) for s in (0, 1, 2)]
    rows += [rec(mode="huge", ns=150.0, seed=s, pick="single", working_set_bytes=120 << 20) for s in (0, 1, 2)]
    md = tables.to_markdown(tables.speed_table(frame(rows)))
    assert "random filter, one at a time: each query to a random filter of the working set (64 MiB of filters)" in md


def test_notes_say_what_pipelined_means_only_when_it_was_measured():
    with_pipe = tables.to_markdown(tables.speed_table(fixture_frame()))
    assert "(random_pipelined): the same queries as random" in with_pipe and "Prefetch hook" in with_pipe
    without = tables.to_markdown(tables.speed_table(frame([rec(ns=100.0)])))
    assert "random_pipelined" not in without


def test_notes_say_when_huge_pages_translate_at_4k():
    def floor_rows(translation, huge):
        return [rec(ns=15.0, seed=s, x_floor=1.3, floor_ns_per_line=11.0, huge_pages=huge,
                    translation_page_bytes=translation) for s in (0, 1)]
    said = "2 MiB pages on this machine translate at 4 KiB"
    assert said in tables.to_markdown(tables.speed_table(frame(floor_rows(4096, True))))
    # Real huge-page translations, or 4 KiB pages asked for: nothing to say.
    assert said not in tables.to_markdown(tables.speed_table(frame(floor_rows(2097152, True))))
    assert said not in tables.to_markdown(tables.speed_table(frame(floor_rows(4096, False))))
    assert said not in tables.to_markdown(tables.speed_table(frame([rec(ns=15.0, x_floor=1.3)])))
