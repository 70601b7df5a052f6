"""Summary tables as DataFrames, and their Markdown and LaTeX forms (written
here, not via pandas' optional tabulate/jinja2 dependencies). The engine's
tables (lsmbench results) are in engine_tables.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import engine_tables
from .load import pooled_fp, probe_grid_rows, with_labels
from .dynamic_data import DYNAMIC_MODES, dynamic_rows
from .pareto_data import pareto_table
from .speed_data import MIX_ORDER, SPREAD_FLAG, _truthy, describe, speed_cells
from .tex import escape


def fp_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """Measured FP rate (pooled over seeds, 95% Wilson interval) beside the model, per filter and bits/key."""
    df = df if "label" in df else with_labels(df)
    if "command" not in df or not (df["command"] == "fp").any():
        return None
    fp = df[df["command"] == "fp"]
    by = ["sweep", "label"] + [c for c in ("bpk", "keys") if c in fp and fp[c].notna().any()]
    agg = pooled_fp(fp, by)
    out = agg[by].copy()
    if "keys" in out:
        out["keys"] = out["keys"].astype("Int64")
    out["bits/key (actual)"] = agg["bits_per_key"].map(lambda v: f"{v:.2f}")
    out["FP %"] = (100 * agg["fp"]).map(lambda v: f"{v:.4g}")
    out["95% CI %"] = [f"{100 * a:.4g}..{100 * b:.4g}" for a, b in zip(agg["ci_low"], agg["ci_high"])]
    out["model FP %"] = (100 * agg["model_fp"]).map(lambda v: f"{v:.4g}")
    out["queries"] = agg["queries"].astype("Int64")
    return out.rename(columns={"label": "filter"})


def _decimals(v: float) -> int:
    a = abs(v)
    return 0 if a >= 99.95 else 2 if 0 < a < 0.995 else 1


def _num(v: float, median: float | None = None) -> str:
    """0 decimals from 100 up, 2 below 1, else 1 ('2.7', '20.0', '108'); a min or max never
    shows more decimals than its median ('100 (90–120)')."""
    d = _decimals(v) if median is None else min(_decimals(v), _decimals(median))
    return f"{v:.{d}f}"


def _cell(r) -> str:
    """'2.7 (2.5–3.4, n=3)', or '2.7 (n=1)'; a trailing '*' when the repeats disagree."""
    med = r["median"]
    if r["n"] <= 1:
        text = f"{_num(med)} (n=1)"
    else:
        text = f"{_num(med)} ({_num(r['lo'], med)}–{_num(r['hi'], med)}, n={int(r['n'])})"
    return text + ("*" if r["flagged"] else "")


def _huge_pages_translate_small(df: pd.DataFrame) -> bool:
    """True when some speed record ran on granted 2 MiB pages that the sim's translation
    probe found cached by the TLB as 4 KiB translations."""
    if "translation_page_bytes" not in df or "huge_pages" not in df:
        return False
    sp = df[df["command"] == "speed"]
    translation = pd.to_numeric(sp["translation_page_bytes"], errors="coerce")
    return bool(((translation == 4096) & sp["huge_pages"].map(_truthy)).any())


def speed_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """filter_bench-style speed table, aggregated over repeats (seeds): one row per filter and
    kind of query (hot filter, random filter one query at a time, random filter pipelined with
    its depth, batched with batch size and prepared/unprepared, ...), one column per mix of
    inside/outside keys. Each cell: median net ns/op (min–max over the repeats, n); build
    ns/key likewise on the filter's first row; "× floor" = median net / the machine's
    independent-random-line read for random-filter rows (where measured). Cells whose
    repeats disagree by more than SPREAD_FLAG (max/min) end in "*". Notes for the reader
    (what the columns mean, what "*" means) are in .attrs["notes"]; to_markdown and
    to_latex print them under the table."""
    cells = speed_cells(df)
    if cells is None:
        return None
    mixes = [m for m in MIX_ORDER if m in set(cells["mix"])]
    query_cells = cells[cells["mode"] != "build"]
    build = cells[cells["mode"] == "build"].set_index("label")
    has_floor = query_cells["x_floor"].notna().any()
    floor_mix = "mixed" if "mixed" in mixes else (mixes[0] if mixes else "")
    rows = []
    for label in dict.fromkeys(cells["label"]):
        first = True
        mine = query_cells[query_cells["label"] == label]
        kinds = mine.drop_duplicates(["mode", "batch", "prepared", "pick", "pipeline_depth", "skew"])
        if kinds.empty:
            kinds = pd.DataFrame([{"mode": "build", "batch": 1, "prepared": "", "pick": "", "pipeline_depth": 0,
                                   "skew": ""}])
        for _, k in kinds.iterrows():
            row = {"filter": label}
            if "build" in set(cells["mode"]):
                row["build ns/key"] = _cell(build.loc[label]) if first and label in build.index else ""
            row["queries"] = describe(k["mode"], int(k["batch"]), k["prepared"], k["pick"], int(k["pipeline_depth"]),
                                      k["skew"])
            kind = ["mode", "batch", "prepared", "pick", "pipeline_depth", "skew"]
            same = mine[(mine[kind] == k[kind]).all(axis=1)].set_index("mix")
            for mix in mixes:
                row[f"{mix}: net ns/op"] = _cell(same.loc[mix]) if mix in same.index else ""
            if has_floor:
                xf = same.loc[floor_mix, "x_floor"] if floor_mix in same.index else np.nan
                row[f"{floor_mix}: × floor"] = (f"{xf:.2f}" if xf < 10 else f"{xf:.1f}") if pd.notna(xf) else ""
            rows.append(row)
            first = False
    out = pd.DataFrame(rows)
    ws_mib = query_cells.loc[query_cells["mode"].isin(["random", "random_pipelined"]), "working_set_mib"].dropna()
    ws = f" ({ws_mib.median():.0f} MiB of filters)" if not ws_mib.empty else ""
    modes = set(query_cells["mode"])
    notes = ["net ns/op: (time of the timed loop - time of a dry run over the same queries without the filter) / "
             "queries, single-threaded; median over repeats (seeds), in brackets min–max and the number of "
             "repeats n.",
             "inside: queries for keys in the filter; outside: keys not in it; mixed: half each. "
             "hot filter: every query to one filter (it stays in cache); random filter, one at a time: each "
             f"query to a random filter of the working set{ws}, filter_bench's \"random filter\" figure."]
    if "random_pipelined" in modes:
        notes.append("pipelined in groups of N (random_pipelined): the same queries as random in groups of N, each "
                     "group's lines prefetched through the variant's Prefetch hook while the group before it is "
                     "answered (so N to 2N-1 queries ahead); a variant without one (the default is a no-op) answers "
                     "them without prefetching.")
    if "batched" in modes or "huge" in modes:
        notes.append("batches: prepared = one MayContainBatch call per batch (it prefetches the batch), "
                     "unprepared = MayContain key by key; measured on mixed queries.")
    if has_floor:
        notes.append(f"× floor ({floor_mix} queries): median net ns/op divided by the time of one independent "
                     "random cache-line read of the same working set (prefetched 32 ahead, 1 thread), measured in each "
                     "of a measurement's rounds beside its timed and dry runs (median of the rounds' ratios); about "
                     "1 = the query costs one such line read.")
        if _huge_pages_translate_small(df):
            notes.append("2 MiB pages on this machine translate at 4 KiB (the sim's translation probe, "
                         "translation_page_bytes = 4096: a hypervisor backing guest memory with 4 KiB pages), so every "
                         "random line of the working set also costs a TLB miss and a page walk, which a query "
                         "loop overlaps less well than the floor's bare read stream: × floor grows with the "
                         "working set faster than on a machine with huge-page translations.")
    flagged = cells[cells["flagged"]]
    if not flagged.empty:
        note = (f"*: the repeats of a cell so marked differ by more than {SPREAD_FLAG:g}x (max/min); the median is "
                "shown.")
        if flagged["dry_spread"].notna().any():
            both, n = int((flagged["dry_spread"] > 1.3).sum()), len(flagged)
            if both == n:
                note += (" In " + ("this cell" if n == 1 else f"all {n} such cells") + " the dry run (no filter "
                         "query) varied by more than 1.3x as well: the host changed speed, not the filter.")
            elif both:
                note += (f" In {both} of these {n} cells the dry run (no filter query) varied by more than 1.3x "
                         "as well (the host changed speed); in the others it did not.")
            else:
                note += " The dry run (no filter query) varied by less than 1.3x in these cells."
        notes.append(note)
    out.attrs["notes"] = notes
    return out


def probes_table(df: pd.DataFrame) -> pd.DataFrame | None:
    pr = probe_grid_rows(df)
    if pr is None:
        return None
    cols = [c for c in ("variant", "bits_per_key", "table_probes", "best_probes", "verdict") if c in pr]
    pr = pr[cols].copy()
    for c in ("table_probes", "best_probes"):
        if c in pr:
            pr[c] = pr[c].astype("Int64")
    return pr.rename(columns={"bits_per_key": "bits/key", "table_probes": "table", "best_probes": "best"})


def floor_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """sim floor's records, one row per working set: dependent-load latency and the independent
    random line read (prefetched; 1 thread and all threads, aggregate) in ns per line, on 4 KiB
    and 2 MiB pages; the translation probe's verdict in the table's notes."""
    if "measure" not in df:
        return None
    fl = df[df["measure"].isin(["dependent_load", "random_line_read"])]
    if fl.empty:
        return None
    fl = fl[(fl["measure"] == "dependent_load") | (fl["prefetch_distance"] > 0)]
    fl = fl.assign(column=[f"{'latency' if m == 'dependent_load' else f'line read x{int(t)}'} "
                           f"{'2 MiB' if p == 2 ** 21 else '4 KiB'}"
                           for m, t, p in zip(fl["measure"], fl["threads"], fl["page_bytes"])])
    t = fl.pivot_table(index="working_set_bytes", columns="column", values="ns_per_line", aggfunc="median")
    t.index = [f"{b / 2**20:g} MiB" if b >= 2**20 else f"{b / 1024:g} KiB" for b in t.index]
    t = t.round(1).reset_index().rename(columns={"index": "working set"})
    tr = df[df["measure"] == "translation"]
    t.attrs["notes"] = [f"{int(p) // 1024} KiB pages translate at {int(b) // 1024} KiB"
                        for p, b in zip(tr["page_bytes"], tr["translation_page_bytes"])]
    return t


def dynamic_table(df: pd.DataFrame) -> pd.DataFrame | None:
    """`sim dynamic` records (a memtable filter's own timings): one row per filter and key
    count, one column per mode, ns per key as median (min–max, n) over the repeats, each repeat
    itself a median of rounds."""
    d = dynamic_rows(df)
    if d is None:
        return None
    g = d.groupby(["filter_arg", "keys", "mode"])["ns_per_key"].agg(median="median", lo="min", hi="max", n="count")
    g = g.reset_index().assign(flagged=False)
    g["cell"] = [_cell(r) for _, r in g.iterrows()]
    t = g.pivot(index=["keys", "filter_arg"], columns="mode", values="cell")
    t = t[[m for m in DYNAMIC_MODES if m in t.columns]].reset_index().rename(columns={"filter_arg": "filter"})
    t["keys"] = t["keys"].astype(int)
    t = t[["filter", "keys"] + [m for m in DYNAMIC_MODES if m in t.columns]]
    t.columns.name = None
    threads = sorted({int(v) for v in d.loc[d["mode"].str.startswith("parallel"), "threads"]})
    rounds = sorted({int(v) for v in d["rounds"]}) if "rounds" in d else []
    t.attrs["notes"] = ["ns per key: wall time / keys, hashing included"
                        + (f"; parallel modes from {', '.join(map(str, threads))} threads" if threads else "")
                        + (f"; {' or '.join(map(str, rounds))} rounds per repeat (their median)" if rounds else "")
                        + "."]
    return t


KINDS = {"fp": fp_table, "speed": speed_table, "probes": probes_table, "floor": floor_table, "pareto": pareto_table,
         "dynamic": dynamic_table, **engine_tables.KINDS}


def to_markdown(t: pd.DataFrame) -> str:
    cols = [str(c) for c in t.columns]
    cells = [["" if pd.isna(v) else str(v) for v in row] for row in t.itertuples(index=False)]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    notes = t.attrs.get("notes") or []
    for note in notes:  # one paragraph each
        lines += ["", note]
    return "\n".join(lines) + "\n"


def to_latex(t: pd.DataFrame) -> str:
    cols = list(t.columns)
    lines = [r"\begin{tabular}{" + "l" * len(cols) + "}", r"\toprule",
             " & ".join(escape(c) for c in cols) + r" \\", r"\midrule"]
    for row in t.itertuples(index=False):
        lines.append(" & ".join("" if pd.isna(v) else escape(v) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    for note in t.attrs.get("notes") or []:
        lines.append(r"{\footnotesize " + escape(note) + r"\par}")
    return "\n".join(lines) + "\n"
