"""Docs state the present: every measured number in a Markdown doc outside
paper/ comes from a committed results folder (paper/results/NAME/, with the
command that makes it) or is not there. The report (paper/) argues findings
from those results and holds its own rule (analysis/tests/test_paper.py).

What can be checked mechanically is checked here: a time or a rate (a number
followed by ns, µs, us, ms, s, ns/op, µs/key, ops/s, queries/s, ...) and a
decimal ratio (1.45x) are measurements; a paragraph (or table row) holding one
must name a committed results folder, paper/results/NAME/, or, for a
published figure quoted as the claim under test, paper/published.toml, which
must hold the same number. Format constants,
sizes, defaults and counts carry no such unit and are left alone. Wall times
of the experiments the report cites are paper/paper.toml's, and a doc that
quotes one writes "N min (paper.toml)", held to that file below."""

import os
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "paper" / "results"

# Folders whose Markdown is not a hand-written doc of the present: the report
# and its findings (paper/ keeps its own rule), the runner's output, builds.
SKIP_TOP = {"paper", "results"}


def markdown_docs():
    docs = []
    for folder, subfolders, files in os.walk(ROOT):
        here = Path(folder)
        subfolders[:] = sorted(
            d
            for d in subfolders
            if not d.startswith((".", "build")) and d != "__pycache__" and not (here == ROOT and d in SKIP_TOP)
        )
        docs += [here / f for f in sorted(files) if f.endswith(".md")]
    return docs


# A number (1, 2.5, 1,234, ~3) followed by a time unit, a
# per-operation time or a rate. Units are whole words: "5 sigma", "10 bits/key",
# "64 MiB" and "--seconds 60" do not match.
NUMBER = r"(?<![\w.^/-])\d[\d,]*(?:\.\d+)?"
TIME_UNIT = r"(?:ns|µs|us|ms|s|sec|micros|nanos)(?:/(?:op|key|lookup|query|call|get))?"
RATE_UNIT = r"(?:[kKMG]\s*)?(?:ops|queries|keys|lookups|writes|reads|Gets)/s"
MEASURE = re.compile(rf"{NUMBER}\s*(?:{TIME_UNIT}|{RATE_UNIT})(?![\w/])")
RATIO = re.compile(r"(?<![\w.])\d+\.\d+x(?!\w)")
# A table cell that is a bare decimal, perhaps with a parenthesis after it
# ("1.55", "0.2707 (0.2715 ± 0.0009)"): a measurement whose unit the header
# or the caption gives. Settings in tables are written as code (`0.75`).
DECIMAL_CELL = re.compile(r"^[~≈]?\d[\d,]*\.\d+(?:\s*\(.*\))?$")
# Inline code (`--flag=0.5`, `kName`, `ws * 22 / 10`) is a setting or the code itself, not a figure.
CODE_SPAN = re.compile(r"`[^`\n]*`")
RESULTS_FOLDER = re.compile(r"paper/results/([A-Za-z0-9_]+)")
PAPER_TOML_TIME = re.compile(r"(\d+(?:\.\d+)?)\s*min\s*\(paper\.toml(, quick)?\)")


def units(doc):
    """(first line number, text) of each paragraph; each table row is its own."""
    out, block, start = [], [], 0
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("|"):
            if block:
                out.append((start, "\n".join(block)))
                block = []
            out.append((number, line))
        elif line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            out.append((start, "\n".join(block)))
            block = []
    if block:
        out.append((start, "\n".join(block)))
    return out


def published_holds(figure):
    number = re.match(r"[~≈]?(\d[\d,]*(?:\.\d+)?)", figure).group(1)
    published = (ROOT / "paper" / "published.toml").read_text(encoding="utf-8")
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", published) is not None


def named_results(text):
    return {name for name in RESULTS_FOLDER.findall(text)}


def test_docs_are_found():
    names = {str(p.relative_to(ROOT)) for p in markdown_docs()}
    assert {"README.md", "engine/README.md", "sim/README.md"} <= names, names
    assert not any(n.startswith("paper/") for n in names), names


def shown(doc):
    return str(doc.relative_to(ROOT)) if doc.is_relative_to(ROOT) else str(doc)


def unsourced_figures(doc):
    """'FILE:LINE: figures -- why' for each paragraph or table row holding a measured number
    without the source the rule asks for."""
    problems = []
    for line, text in units(doc):
        prose = CODE_SPAN.sub("", text)
        found = MEASURE.findall(prose) + RATIO.findall(prose)
        if text.lstrip().startswith("|"):
            found += [c.strip() for c in prose.strip().strip("|").split("|") if DECIMAL_CELL.match(c.strip())]
        if not found:
            continue
        # A published figure quoted as the claim under test is a source, not our measurement: the
        # paragraph names paper/published.toml, and each such number is written there.
        if "paper/published.toml" in prose:
            found = [f for f in found if not published_holds(f)]
            if not found:
                continue
        cited = named_results(text)
        missing = sorted(n for n in cited if not (RESULTS / n).is_dir())
        if cited and not missing:
            continue
        why = (
            f"names paper/results/{', '.join(missing)}, which is not a committed results folder"
            if missing
            else "names no committed results folder"
        )
        problems.append(f"{shown(doc)}:{line}: {', '.join(found)} -- the paragraph {why}")
    return problems


WHAT_TO_DO = (
    "Docs state the present, and every measured number in one comes from a committed results file."
    " For each line above, either\n"
    "  - the figure comes from an experiment whose results are committed: replace the number by a pointer,"
    " in the same paragraph, to paper/results/NAME/ (ls paper/results), the command that makes it"
    " (./filterlab run experiments/NAME.toml) and the report section that shows it (paper/sections/*.tex); or\n"
    "  - it is a published figure quoted as the claim under test: name paper/published.toml in the same"
    " paragraph, which must hold the same number (add the claim there first if it does not); or\n"
    "  - it is neither (an ad-hoc run, a peer measured beside ours, a loaded machine): remove the number and"
    " keep the method in words (the command, what to compare, why the design is what it is). A finding the"
    " report's reader needs belongs in the report, generated from an experiment's results (paper/README.md).\n"
    "A wall time of an experiment the report cites is written 'N min (paper.toml)' beside its NAME.toml and"
    " must equal paper/paper.toml's minutes. Constants of the code (sizes, defaults, counts) carry no time"
    " unit; write a constant that has one as code, where the code defines it (`SPREAD_FLAG = 1.5`)."
)


@pytest.mark.parametrize("doc", markdown_docs(), ids=shown)
def test_measured_numbers_name_their_results(doc):
    problems = unsourced_figures(doc)
    if problems:
        pytest.fail(
            "Measured numbers in a doc outside paper/ without their results:\n  "
            + "\n  ".join(problems)
            + "\n\n"
            + WHAT_TO_DO,
            pytrace=False,
        )


def paper_minutes():
    table = tomllib.loads((ROOT / "paper" / "paper.toml").read_text(encoding="utf-8"))
    return {Path(e["config"]).stem: (e["minutes"], e["quick_minutes"]) for e in table["experiment"]}


def wrong_wall_times(doc):
    minutes = paper_minutes()
    problems = []
    for line, text in units(doc):
        for match in PAPER_TOML_TIME.finditer(text):
            configs = [c for c in minutes if re.search(rf"(?<![\w/]){re.escape(c)}\.toml", text)]
            if len(configs) != 1:
                problems.append(
                    f"{shown(doc)}:{line}: '{match.group(0)}' must sit in a paragraph or row naming"
                    f" exactly one config of paper/paper.toml as NAME.toml (found {configs or 'none'})"
                )
                continue
            full, quick = minutes[configs[0]]
            key, want = ("quick_minutes", quick) if match.group(2) else ("minutes", full)
            if float(match.group(1)) != float(want):
                problems.append(
                    f"{shown(doc)}:{line}: '{match.group(0)}' for {configs[0]}, but paper/paper.toml"
                    f" says {key} = {want}: write {want}"
                )
    return problems


@pytest.mark.parametrize("doc", markdown_docs(), ids=shown)
def test_wall_times_are_paper_tomls(doc):
    problems = wrong_wall_times(doc)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_the_checks_fire():
    # The patterns catch what they are for and leave constants alone.
    assert MEASURE.findall("readrandom 2.84 µs against 4.64") == ["2.84 µs"]
    assert MEASURE.findall("113 ns/op, 921 M queries/s, 1,234 ops/s")
    assert RATIO.findall("batch 32: 2.07x") == ["2.07x"]
    assert DECIMAL_CELL.match("0.2707 (0.2715 ± 0.0009)") and DECIMAL_CELL.match("1.55")
    assert not DECIMAL_CELL.match("`0.75`") and not DECIMAL_CELL.match("10")
    for constant in ("57-byte footer", "64 MiB", "10 bits/key", "4 sigma", "`--seconds 60`", "2M keys", "10x larger"):
        assert not MEASURE.findall(constant) and not RATIO.findall(constant), constant


def test_the_rule_on_a_doc(tmp_path):
    doc = tmp_path / "README.md"
    doc.write_text(
        "Readrandom takes 2.84 µs here.\n\n"
        "| benchmark | ours |\n| --- | --- |\n| readrandom | 1.50 |\n\n"
        "Batch 32 is 2.07x faster: paper/results/engine_multiget/.\n\n"
        "Batch 32 is 2.07x faster: paper/results/no_such_experiment/.\n\n"
        "PR #5762: add 65.6 -> 44.4 ns (paper/published.toml).\n\n"
        "PR #5762: add 65.7 ns (paper/published.toml).\n\n"
        "A 57-byte footer, 64 MiB buffers, `--min_time=0.5s`, `SPREAD_FLAG = 1.5`.\n",
        encoding="utf-8",
    )
    problems = unsourced_figures(doc)
    lines = [int(p.split(":")[1]) for p in problems]
    assert lines == [1, 5, 9, 13], problems
    assert "no_such_experiment, which is not a committed results folder" in problems[2]
    assert "65.7 ns" in problems[3]
    doc.write_text(
        "| `probes.toml` | 25 min (paper.toml); quick 0.1 min (paper.toml, quick) |\n"
        "| `probes.toml` | 10 min (paper.toml) |\n"
        "| `speed_probes.toml`, `probes.toml` | 2 min (paper.toml) |\n",
        encoding="utf-8",
    )
    problems = wrong_wall_times(doc)
    assert [int(p.split(":")[1]) for p in problems] == [2, 3], problems
    assert "paper/paper.toml says minutes = 25: write 25" in problems[0]


def test_analysis_readme_lists_every_plot_and_table():
    # analysis/README.md names every plot kind in its table and every table kind in its Tables
    # paragraph, so a reader finds each `python -m analysis plot` output there.
    from analysis import plots, tables

    text = (ROOT / "analysis" / "README.md").read_text(encoding="utf-8")
    listed_plots = set(re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M))
    assert listed_plots == set(plots.KINDS), (
        f"analysis/README.md's plot table lists {sorted(listed_plots)}; analysis.plots.KINDS has"
        f" {sorted(plots.KINDS)}: add or remove rows to match"
    )
    tables_paragraph = text[text.index("Tables: ") :].split("\n\n")[0]
    missing = sorted(k for k in tables.KINDS if f"`{k}`" not in tables_paragraph)
    assert not missing, f"analysis/README.md's 'Tables:' paragraph does not name the table kinds {missing}"
