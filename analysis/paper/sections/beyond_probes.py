"""Section beyond (paper/sections/beyond.tex), its probe-count part: experiment probes, the
simulated best probe count against RocksDB's table."""

from __future__ import annotations

from ...load import probe_grid_rows
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(values=probes_values(inputs))


def probes_values(inputs: Inputs) -> dict[str, str]:
    """Section beyond: the probes experiment. For fastlocal, how many bits/key points agree with
    RocksDB's table, are indistinguishable from it, or disagree (the table's count loses at 95%),
    where it disagrees, and the largest relative FP the table gives away there; the boundary
    records' verdicts; and the disagreements over all variants."""
    names = ("probesPoints", "probesAgree", "probesIndistinguishable", "probesDisagree", "probesDisagreeAt",
             "probesMaxLoss", "probesBoundaries", "probesBoundaryAgree", "probesBoundaryConsistent",
             "probesBoundaryContradict", "probesVariants", "probesOtherDisagree")
    vals = dict.fromkeys(names, "--")
    df = inputs.results("probes")
    grid = probe_grid_rows(df) if df is not None else None
    if grid is None:
        return vals
    fast = grid[grid["variant"] == "fastlocal"]
    counts = fast["verdict"].value_counts()
    vals.update(probesPoints=str(len(fast)), probesAgree=str(int(counts.get("agree", 0))),
                probesIndistinguishable=str(int(counts.get("indistinguishable", 0))),
                probesDisagree=str(int(counts.get("disagree", 0))), probesVariants=str(grid["variant"].nunique()))
    dis = fast[fast["verdict"] == "disagree"]
    vals["probesDisagreeAt"] = ", ".join(f"{b:g}" for b in sorted(dis["bits_per_key"])) or "none"
    if len(dis) and {"table_vs_best_diff", "candidates_probes", "candidates_fp"} <= set(df.columns):
        # The grid records are flattened one row per candidate: the best count's own row has its FP.
        rows = df[(df["command"] == "probes") & (df["record"] == "grid") & (df["variant"] == "fastlocal")
                  & (df["candidates_probes"] == df["best_probes"])]
        best = rows.drop_duplicates(["bits_per_key", "seed"]).set_index(["bits_per_key", "seed"])["candidates_fp"]
        loss = {b: 100 * d / best[(b, sd)] for d, b, sd in zip(dis["table_vs_best_diff"], dis["bits_per_key"], dis["seed"])
                if (b, sd) in best.index and best[(b, sd)] > 0}
        if loss:
            vals["probesMaxLoss"] = f"{max(loss.values()):.0f}"
            # Each point with the share of false positives the table's count adds over the best count's.
            vals["probesDisagreeAt"] = ", ".join(f"{b:g} (+{loss[b]:.0f}\\%)" if b in loss else f"{b:g}"
                                                 for b in sorted(dis["bits_per_key"]))
    other = grid[(grid["variant"] != "fastlocal") & (grid["verdict"] == "disagree")]
    vals["probesOtherDisagree"] = str(len(other))
    if "record" in df:
        b = df[(df["command"] == "probes") & (df["record"] == "boundary")].drop_duplicates(
            ["variant", "boundary_millibits", "seed"])
        bc = b["verdict"].value_counts()
        vals.update(probesBoundaries=str(len(b)), probesBoundaryAgree=str(int(bc.get("agree", 0))),
                    probesBoundaryConsistent=str(int(bc.get("consistent", 0))),
                    probesBoundaryContradict=str(int(len(b) - bc.get("agree", 0) - bc.get("consistent", 0))))
    return vals
