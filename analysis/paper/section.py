"""What a report section is. A section module (sections/<name>.py) defines

    def section(inputs: Inputs) -> Section

which reads the committed results and the measured claims (Inputs) and returns the values
the text cites as \\val{name} and the files it \\input{}s (Section). generate.py runs every
section, refuses two that define one value or file, and writes them into paper/generated/."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..load import load_experiment
from ..tex import escape
from .claims import Claim


@dataclass
class Inputs:
    """What every section reads: results_root/<experiment>/ (each loaded once) and the claims
    of published.toml with their measurements."""

    results_root: Path
    claims: list[Claim] = field(default_factory=list)
    _frames: dict[str, pd.DataFrame | None] = field(default_factory=dict, repr=False)

    def results(self, experiment: str) -> pd.DataFrame | None:
        """The tidy results of one experiment, or None where none are committed. The frame is
        shared between sections: select and copy, never change it in place."""
        if experiment not in self._frames:
            self._frames[experiment] = load_experiment(self.results_root, experiment)
        return self._frames[experiment]


@dataclass
class Section:
    """values: \\val{name} -> its text (LaTeX, escaped where it holds names); files: a file the
    text inputs (e.g. "pareto.tex", written into paper/generated/) -> its text."""

    values: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)


def not_measured(experiment: str) -> str:
    """A table's stand-in where the experiment has no committed results: the document still
    builds and the reader sees what is missing."""
    return f"\\textit{{not measured: no committed results for experiment {escape(experiment)}.}}\n"
