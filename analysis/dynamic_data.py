"""`sim dynamic` records (experiment dynamic_bloom_latency): a memtable filter's own add, hit and
miss times, and one filter's times over another's per key count and mode, as the claims
table, the dynamic table and the report's key-count paragraph read them; and the memory
latency `sim floor` measured beside them at the filters' sizes."""

from __future__ import annotations

import pandas as pd

DYNAMIC_MODES = ("add", "hit", "miss", "parallel_add", "parallel_hit", "parallel_miss")


def dynamic_rows(df: pd.DataFrame) -> pd.DataFrame | None:
    """The `sim dynamic` records of a results frame (None where it has none)."""
    if "command" not in df or "mode" not in df or not (df["command"] == "dynamic").any():
        return None
    return df[df["command"] == "dynamic"]


def dynamic_ratios(rows: pd.DataFrame, filter_arg: str, over: str) -> pd.DataFrame:
    """Per (keys, mode) that both filters ran: the median over repeats of filter_arg's ns per
    key over that of `over` (ratio), the range from the repeats' extremes (low = fastest of
    filter_arg over slowest of over, high the reverse), both medians and the repeats (n, of
    filter_arg). Each repeat's ns per key is itself the median of its rounds."""
    def stats(name):
        g = rows[rows["filter_arg"] == name].groupby(["keys", "mode"])["ns_per_key"]
        return g.agg(median="median", lo="min", hi="max", n="count")

    a, b = stats(filter_arg), stats(over)
    j = a.reset_index().merge(b.reset_index(), on=["keys", "mode"], suffixes=("_a", "_b"))
    j["keys"] = j["keys"].astype(int)
    j = j.assign(ratio=j["median_a"] / j["median_b"], low=j["lo_a"] / j["hi_b"], high=j["hi_a"] / j["lo_b"],
                 n=j["n_a"].astype(int))
    j["mode"] = pd.Categorical(j["mode"], [m for m in DYNAMIC_MODES if m in set(j["mode"])] +
                               sorted(set(j["mode"]) - set(DYNAMIC_MODES)), ordered=True)
    return j.sort_values(["keys", "mode"]).reset_index(drop=True)[
        ["keys", "mode", "ratio", "low", "high", "median_a", "median_b", "n"]]


def load_latency(df: pd.DataFrame) -> pd.Series:
    """`sim floor`'s dependent random-load latency (ns per load, median over repeats) by
    working-set bytes, on the largest page size measured (2 MiB guest pages, as the filters are
    allocated); empty where the frame has no floor records."""
    if "measure" not in df:
        return pd.Series(dtype=float)
    lat = df[df["measure"] == "dependent_load"]
    if lat.empty:
        return pd.Series(dtype=float)
    lat = lat[lat["page_bytes"] == lat["page_bytes"].max()]
    return lat.groupby(lat["working_set_bytes"].astype(int))["ns_per_line"].median()
