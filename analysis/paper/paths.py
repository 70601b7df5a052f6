"""Where the report lives in the checkout: paper/ (its text, published.toml, paper.toml and the
committed results/) beside the analysis package."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "paper"
