"""Section beyond (paper/sections/beyond.tex), its part beside RocksDB's filter_bench:
experiment speed_rocksdb, every filter's build, hot and random-filter query with RocksDB's
own figures where RocksDB has the filter, and the pipelined query against the memory floor
per cache line read (speed_rocksdb.tex)."""

from __future__ import annotations

import math

from ...beside_rocksdb import beside_rocksdb_rows
from ...tex import escape
from ..section import Inputs, Section, not_measured

# \val names -> (filter spec, column of beside_rocksdb_rows, format).
VALUES = {
    "rdbLegacyBuildRatio": ("legacy:bpk=10,probes=6,hash=32", "build ns/key ratio", "{:.2f}"),
    "rdbLegacyHotRatio": ("legacy:bpk=10,probes=6,hash=32", "hot ns ratio", "{:.2f}"),
    "rdbLegacyRandomRatio": ("legacy:bpk=10,probes=6,hash=32", "random ns ratio", "{:.2f}"),
    "rdbLegacyBlockBuildRatio": ("legacy_block:bpk=10,probes=6,hash=32", "build ns/key ratio", "{:.2f}"),
    "rdbLegacyBlockHotRatio": ("legacy_block:bpk=10,probes=6,hash=32", "hot ns ratio", "{:.2f}"),
    "rdbLegacyBlockRandomRatio": ("legacy_block:bpk=10,probes=6,hash=32", "random ns ratio", "{:.2f}"),
    "rdbFastRandomRatio": ("fastlocal:bpk=10,probes=6,hash=64", "random ns ratio", "{:.2f}"),
    "rdbFastRandomRocks": ("fastlocal:bpk=10,probes=6,hash=64", "rocksdb random ns", "{:.0f}"),
    "rdbLegacyRandomRocks": ("legacy:bpk=10,probes=6,hash=32", "rocksdb random ns", "{:.0f}"),
    "rdbRibbonRandomRocks": ("ribbon:bpk=10", "rocksdb random ns", "{:.0f}"),
    "rdbFastRandom": ("fastlocal:bpk=10,probes=6,hash=64", "random ns", "{:.0f}"),
    "rdbRibbonRandomRatio": ("ribbon:bpk=10", "random ns ratio", "{:.2f}"),
    "rdbRibbonLines": ("ribbon:bpk=10", "lines/query", "{:.2f}"),
    "rdbRibbonPipelinedPerLine": ("ribbon:bpk=10", "x floor per line", "{:.2f}"),
    "rdbFastHot": ("fastlocal:bpk=10,probes=6,hash=64", "hot ns", "{:.2f}"),
    "rdbXorHot": ("xor:fingerprint=8,hash=64", "hot ns", "{:.2f}"),
    "rdbFuseThreeHot": ("binary_fuse:arity=3,fingerprint=8,hash=64", "hot ns", "{:.2f}"),
    "rdbFuseFourHot": ("binary_fuse:arity=4,fingerprint=8,hash=64", "hot ns", "{:.2f}"),
    "rdbXorPipelinedPerLine": ("xor:fingerprint=8,hash=64", "x floor per line", "{:.2f}"),
    "rdbFuseThreePipelinedPerLine": ("binary_fuse:arity=3,fingerprint=8,hash=64", "x floor per line", "{:.2f}"),
    "rdbFuseFourPipelinedPerLine": ("binary_fuse:arity=4,fingerprint=8,hash=64", "x floor per line", "{:.2f}"),
}


def section(inputs: Inputs) -> Section:
    values = {name: "--" for name in VALUES}
    values["rdbPeerVersion"] = "--"
    values["rdbFilters"] = "--"
    df = inputs.results("speed_rocksdb")
    rows = beside_rocksdb_rows(df) if df is not None else None
    if rows is None or rows.empty:
        return Section(values=values, files={"speed_rocksdb.tex": not_measured("speed_rocksdb")})
    by_spec = rows.set_index("spec")
    for name, (spec, column, fmt) in VALUES.items():
        if spec in by_spec.index and not math.isnan(by_spec.loc[spec, column]):
            values[name] = fmt.format(by_spec.loc[spec, column])
    values["rdbFilters"] = str(len(rows))
    if "peer_version" in df:
        versions = sorted(set(df["peer_version"].dropna().astype(str)))
        if versions:
            values["rdbPeerVersion"] = escape(", ".join(versions))
    return Section(values=values, files={"speed_rocksdb.tex": table_tex(rows)})


def _num(v: float, fmt: str = "{:.3g}") -> str:
    return "" if math.isnan(v) else "$" + fmt.format(v) + "$"


def table_tex(rows) -> str:
    out = [r"\begin{tabular}{@{}lrrrrrrrrrr@{}}", r"\toprule",
           r" & \multicolumn{2}{c}{build ns/key} & \multicolumn{2}{c}{hot ns} & \multicolumn{2}{c}{random ns}"
           r" & \multicolumn{4}{c}{pipelined} \\",
           r"filter & ours & / RocksDB & ours & / RocksDB & ours & / RocksDB & group & lines & $\times$ floor"
           r" & per line \\", r"\midrule"]
    for _, r in rows.iterrows():
        out.append(" & ".join([escape(r["filter"]), _num(r["build ns/key"]), _num(r["build ns/key ratio"], "{:.2f}"),
                               _num(r["hot ns"]), _num(r["hot ns ratio"], "{:.2f}"), _num(r["random ns"]),
                               _num(r["random ns ratio"], "{:.2f}"), _num(r["pipelined group"], "{:.0f}"),
                               _num(r["lines/query"], "{:.2f}"),
                               _num(r["pipelined x floor"], "{:.2f}"), _num(r["x floor per line"], "{:.2f}")])
                   + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"
