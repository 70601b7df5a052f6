"""Section intro (paper/sections/intro.tex): the summary table of every claim, published
beside ours (claims.tex, continued in claims-continued.tex), and the verdict counts."""

from __future__ import annotations

from ...tex import escape
from ..claims import VERDICT_SHORT, Claim
from ..numbers import fmt, fmt_claim_published
from ..section import Inputs, Section

# The table's group heading per claim section (published.toml's `section`).
SECTION_TITLES = {"fastlocal": "FastLocalBloom (PR 6007)", "dynamic": "DynamicBloom rewrite (PR 5762)",
                  "worm": "wormhashing samples", "hash_index": "data-block hash index",
                  "range": "memtable range estimates (PR 13047)", "multiget": "MultiGet batching (PR 5011)",
                  "modern": "modern filters (XOR, binary fuse, Ribbon, split block)",
                  "allocation": "filter memory across LSM levels (Monkey)",
                  "range_filters": "range filters (Grafite's bound, lemma test and space)"}
# The mark after a claim per verdict; filterlab.tex explains them under the table.
VERDICT_MARK = {"reproduced": "", "diverges, explained": r"$^\dagger$", "diverges, unexplained": r"$^\ast$",
                "not measured": r"$^\circ$"}


def section(inputs: Inputs) -> Section:
    parts = claims_table_tex(inputs.claims)
    return Section(values=verdict_counts(inputs.claims),
                   files={"claims.tex": parts[0], "claims-continued.tex": parts[1]})


def verdict_counts(claims: list[Claim]) -> dict[str, str]:
    counts = {}
    for key, name in (("reproduced", "Reproduced"), ("diverges, explained", "Explained"),
                      ("diverges, unexplained", "Unexplained"), ("not measured", "NotMeasured")):
        counts[f"claims{name}"] = str(sum(c.verdict == key for c in claims))
    counts["claimsTotal"] = str(len(claims))
    return counts


def claims_table_tex(claims: list[Claim], parts: int = 2) -> list[str]:
    """The summary table, split into `parts` tabulars at section boundaries of about equal
    length (one page of a two-column paper holds about fifty rows at scriptsize): the first
    goes in the table, the others in its continuations."""
    # Grouped by section in the order sections first appear, claims in file order within each.
    first = {}
    for i, c in enumerate(claims):
        first.setdefault(c.section, i)
    ordered = sorted(claims, key=lambda c: first[c.section])
    sections = list(dict.fromkeys(c.section for c in ordered))
    rows_of = {sec: [c for c in ordered if c.section == sec] for sec in sections}
    total = sum(len(r) + 1 for r in rows_of.values())
    groups: list[list[str]] = [[]]
    used = 0
    for sec in sections:
        size = len(rows_of[sec]) + 1
        if groups[-1] and len(groups) < parts and used + size / 2 > total * len(groups) / parts:
            groups.append([])
        groups[-1].append(sec)
        used += size
    while len(groups) < parts:
        groups.append([])
    return [_claims_tabular([c for sec in g for c in rows_of[sec]]) for g in groups]


def _claims_tabular(claims: list[Claim]) -> str:
    rows = [r"\begin{tabular}{@{}p{0.52\linewidth}rrrrl@{}}", r"\toprule",
            r"claim & published & ours & ratio & $z$ & verdict \\", r"\midrule"]
    section = None
    for c in claims:
        if c.section != section:
            section = c.section
            rows.append(rf"\multicolumn{{6}}{{@{{}}l}}{{\textit{{{escape(SECTION_TITLES.get(section, section))}}}}} \\")
        unit = r"\%" if c.unit == "percent" else ""
        ours = fmt(c.measured.value, c.unit) if c.measured else "--"
        z = f"{c.z:+.1f}" if c.z is not None else ""
        bound = {"upper": "$\\le$", "lower": "$\\ge$"}.get(c.tolerance, "") if isinstance(c.tolerance, str) else ""
        rows.append(f"{escape(c.claim)}{VERDICT_MARK[c.verdict]} & {bound}${fmt_claim_published(c)}${unit} & "
                    f"${ours}${unit if c.measured else ''} & ${fmt(c.ratio, 'ratio')}$ & ${z}$ & "
                    f"{VERDICT_SHORT[c.verdict]} \\\\")
    rows += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(rows) + "\n"
