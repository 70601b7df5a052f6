"""filterlab's analysis: results tables in, figures and tables out.

    import analysis
    df = analysis.load("results/quickstart")     # the tidy table, one row per measurement
    fig = analysis.plots.fp_vs_bits(df)           # each plot is one function of that table

`python -m analysis plot RESULTS_DIR` draws everything a results directory's
config asks for (PNG + PDF into RESULTS_DIR/plots/, Markdown + LaTeX tables
into RESULTS_DIR/tables/)."""

from . import plots, tables
from .load import load

__all__ = ["load", "plots", "tables"]
