"""analysis/tex.py, the one LaTeX escaper: each special character maps on its own (an earlier
escaper of the report escaped the braces of its own \\textbackslash{}), and every character
LaTeX treats specially prints as itself in a document set like the report (T1 fonts, Times)."""

import shutil
import subprocess

import pytest

from analysis.tex import escape

# Every character LaTeX treats specially, with plain text between them so that a character
# swallowed or doubled shows.
SPECIALS = "a\\b{c}d_e%f&g#h$i~j^k"


def test_each_character_is_mapped_once():
    assert escape("\\") == r"\textbackslash{}"
    assert escape("\\{}") == r"\textbackslash{}\{\}"
    assert escape("50% of a_b & c") == r"50\% of a\_b \& c"
    assert escape(12.5) == "12.5"


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("pdftotext")),
                    reason="pdflatex/pdftotext not installed (./filterlab installs them as root)")
def test_specials_survive_latex(tmp_path):
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{mathptmx}\n"
                   "\\begin{document}\n\\noindent START" + escape(SPECIALS) + "END\n\\end{document}\n")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    text = subprocess.run(["pdftotext", str(tmp_path / "t.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "START" + SPECIALS + "END" in text, text
