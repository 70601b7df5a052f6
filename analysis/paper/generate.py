"""`python -m analysis paper [--results DIR] [--out DIR]`: everything the LaTeX report reads,
generated from the committed results: numbers.tex (one macro per number the text cites: the
claims' and every section's values), the files the sections' text inputs (tables: claims.tex,
pareto.tex, ...), claims.csv and the figures (PDF). The text never types a measured number;
it calls these macros."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from ..style import COLUMN
from .claims import claims_frame, measure_all, read_published
from .figures import FIGURES
from .numbers import numbers_tex
from .paths import PAPER
from .section import Inputs, Section
from .sections import SECTIONS


class SectionClash(Exception):
    """Two sections define one value or one file: the report would show only one of them."""


def run_sections(inputs: Inputs, sections=None) -> Section:
    """Every section's values and files, merged; SectionClash where two define one name."""
    merged, owner = Section(), {}
    for name, make in (SECTIONS if sections is None else sections).items():
        part = make(inputs)
        for kind, mine, theirs in (("value", merged.values, part.values), ("file", merged.files, part.files)):
            for key, text in theirs.items():
                if (kind, key) in owner:
                    raise SectionClash(f"{kind} '{key}' is defined by both section {owner[kind, key]} and "
                                       f"section {name} (analysis/paper/sections/)")
                owner[kind, key] = name
                mine[key] = text
    return merged


def generate(results_root: str | Path, out_dir: str | Path, published: str | Path = PAPER / "published.toml") -> list[Path]:
    results_root, out_dir = Path(results_root), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    inputs = Inputs(results_root)
    inputs.claims = measure_all(read_published(published), results_root, inputs.results)
    report = run_sections(inputs)
    written = []
    for name, text in {"numbers.tex": numbers_tex(inputs.claims, report.values), **report.files}.items():
        (out_dir / name).write_text(text)
        written.append(out_dir / name)
    claims_frame(inputs.claims).to_csv(out_dir / "claims.csv", index=False)
    written.append(out_dir / "claims.csv")
    for name, (exp, draw) in FIGURES.items():
        df = inputs.results(exp)
        fig = draw(df, inputs.claims) if df is not None else None
        path = out_dir / f"{name}.pdf"
        if fig is None:
            _placeholder(path, f"no results for {exp}")
        else:
            fig.savefig(path)
            plt.close(fig)
        written.append(path)
    return written


def _placeholder(path: Path, why: str) -> None:
    """A figure whose experiment has no committed results: a box saying so, so the
    document still builds and the reader sees what is missing."""
    fig, ax = plt.subplots(figsize=(COLUMN, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"not measured: {why}", ha="center", va="center")
    fig.savefig(path)
    plt.close(fig)
