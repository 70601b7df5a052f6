"""Section open (paper/sections/open.tex): the claims not measured, grouped by the reason
(one missing experiment each), as open.tex."""

from __future__ import annotations

from ...tex import escape
from ..claims import Claim
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(files={"open.tex": open_claims_tex(inputs.claims)})


def open_claims_tex(claims: list[Claim]) -> str:
    groups: dict[str, list[Claim]] = {}
    for c in claims:
        if c.verdict == "not measured":
            groups.setdefault(c.missing, []).append(c)
    if not groups:
        return "Every claim is measured.\n"
    items = [rf"\item {escape(why)} Claims: " + "; ".join(escape(c.claim) for c in cs) + "."
             for why, cs in groups.items()]
    return "\\begin{itemize}\n" + "\n".join(items) + "\n\\end{itemize}\n"
