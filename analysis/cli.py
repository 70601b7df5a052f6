"""`python -m analysis plot RESULTS_DIR` (what `./filterlab plot DIR` calls, and
what `run` does at its end): every plot and table the experiment's config
lists (meta.json), or every kind the table has data for when it lists none.
`python -m analysis paper`: the report's generated files (analysis/paper/generate.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import matplotlib.pyplot as plt

from . import plots, tables
from .load import load
from .paper.claims import ClaimsError
from .paper.generate import generate


def plot_dir(results_dir: str | Path) -> list[Path]:
    """Writes plots/<kind>.png + .pdf and tables/<kind>.md + .tex; returns the paths written."""
    results_dir = Path(results_dir)
    df = load(results_dir)
    meta_path = results_dir / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    plot_kinds = meta.get("plots") or list(plots.KINDS)
    table_kinds = meta.get("tables") or list(tables.KINDS)
    written = []
    (results_dir / "plots").mkdir(exist_ok=True)
    for kind in plot_kinds:
        fig = plots.KINDS[kind](df)
        if fig is None:
            continue
        for ext in ("png", "pdf"):
            path = results_dir / "plots" / f"{kind}.{ext}"
            fig.savefig(path, dpi=150, bbox_inches="tight")
            written.append(path)
        plt.close(fig)
    for kind in table_kinds:
        t = tables.KINDS[kind](df)
        if t is None or t.empty:
            continue
        (results_dir / "tables").mkdir(exist_ok=True)
        for ext, fmt in (("md", tables.to_markdown), ("tex", tables.to_latex)):
            path = results_dir / "tables" / f"{kind}.{ext}"
            path.write_text(fmt(t))
            written.append(path)
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m analysis", description="filterlab's plots and tables")
    sub = p.add_subparsers(dest="command", required=True)
    pl = sub.add_parser("plot", help="draw the plots and tables of a results directory")
    pl.add_argument("results_dir", help="results/<experiment> (holding results.parquet and meta.json)")
    pp = sub.add_parser("paper", help="generate the report's numbers, claims table and figures")
    pp.add_argument("--results", default="paper/results", help="results root holding <experiment>/ (default paper/results)")
    pp.add_argument("--out", default="paper/generated", help="where the generated files go (default paper/generated)")
    args = p.parse_args(argv)
    if args.command == "paper":
        try:
            for path in generate(args.results, args.out):
                print(path)
        except ClaimsError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    try:
        written = plot_dir(args.results_dir)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    if not written:
        print(f"error: {args.results_dir}: the table has no rows any plot or table can use", file=sys.stderr)
        return 1
    return 0
