"""`./filterlab paper [--run [--quick]]`: the report as a PDF.

Without --run: generates paper/generated/ from the committed results in
paper/results/ and builds paper/build/filterlab.pdf with latexmk (seconds).
--run first runs, or resumes, every experiment of paper/paper.toml into
paper/results/ (full size; prints the expected time first), then builds.
--run --quick runs the configs' [quick] sizes into paper/build/quick/results/
and builds paper/build/quick/filterlab.pdf from them: quick results never
replace the committed ones."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from .generate import generate
from .paths import PAPER, ROOT


def experiments(manifest: Path = PAPER / "paper.toml") -> list[dict]:
    raw = tomllib.loads(manifest.read_text())
    out = raw.get("experiment", [])
    for i, e in enumerate(out):
        if "config" not in e or not (ROOT / e["config"]).exists():
            raise SystemExit(f"error: {manifest}: experiment[{i}]: config {e.get('config')!r} does not exist")
    return out


def run_experiments(results: Path, quick: bool, jobs: int | None, manifest: Path = PAPER / "paper.toml") -> int:
    exps = experiments(manifest)
    minutes = round(sum(e.get("quick_minutes" if quick else "minutes", 0) for e in exps), 1)
    print(f"paper: {len(exps)} experiments, about {minutes:g} minutes on 2 cores "
          f"({'quick sizes' if quick else 'full size'}) -> {results}", file=sys.stderr)
    for e in exps:
        argv = [sys.executable, "-m", "experiments", "run", str(ROOT / e["config"]), "--results", str(results),
                "--no-plot"] + (["--quick"] if quick else []) + (["--jobs", str(jobs)] if jobs else [])
        rc = subprocess.call(argv, cwd=ROOT)
        if rc != 0:
            print(f"paper: {e['config']} failed (exit {rc}); rerun to resume", file=sys.stderr)
            return rc
    return 0


def build_pdf(generated: Path, out_dir: Path) -> Path:
    """latexmk over paper/filterlab.tex, finding the generated files through TEXINPUTS."""
    if not shutil.which("latexmk"):
        raise SystemExit("error: latexmk not found (Debian: apt-get install latexmk texlive-latex-recommended "
                         "texlive-fonts-recommended); ./filterlab paper installs it when run as root")
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TEXINPUTS": f"{generated}//:{PAPER}//:"}
    argv = ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", f"-outdir={out_dir}", "filterlab.tex"]
    proc = subprocess.run(argv, cwd=PAPER, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        log = out_dir / "filterlab.log"
        tail = log.read_text(errors="replace").splitlines()[-30:] if log.exists() else proc.stdout.splitlines()[-30:]
        raise SystemExit("error: latexmk failed:\n" + "\n".join(tail))
    return out_dir / "filterlab.pdf"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="./filterlab paper", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", action="store_true", help="run (or resume) the cited experiments first")
    p.add_argument("--quick", action="store_true", help="with --run: reduced sizes, into paper/build/quick/")
    p.add_argument("--jobs", type=int, default=None, help="runs at a time (default: the runner's)")
    p.add_argument("--out", default=None, help=argparse.SUPPRESS)  # tests: a temporary build root
    p.add_argument("--manifest", default=str(PAPER / "paper.toml"), help=argparse.SUPPRESS)  # tests: a tiny one
    args = p.parse_args(argv)
    if args.quick and not args.run:
        p.error("--quick needs --run (it chooses the sizes of the experiments run)")
    build_root = Path(args.out) if args.out else PAPER / "build"
    if args.quick:
        build_root = build_root / "quick"
    results = build_root / "results" if args.quick else PAPER / "results"
    generated = build_root / "generated" if (args.quick or args.out) else PAPER / "generated"
    if args.run:
        rc = run_experiments(results, args.quick, args.jobs, Path(args.manifest))
        if rc != 0:
            return rc
    # Quick results live under <name>-quick/; the report reads them under the full names.
    if args.quick:
        for d in results.glob("*-quick"):
            target = results / d.name[: -len("-quick")]
            if target.is_symlink() or not target.exists():
                if target.is_symlink():
                    target.unlink()
                target.symlink_to(d.name)
    generate(results, generated)
    pdf = build_pdf(generated, build_root)
    print(pdf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
