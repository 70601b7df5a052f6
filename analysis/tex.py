"""Text for LaTeX: the one escaper every generated table and report value goes through.

Each character is mapped on its own, in one pass: an escaper that replaces one special
character after another breaks its own output (a backslash turned into \\textbackslash{} and
then its braces escaped again prints "\\{\\}" after the backslash)."""

from __future__ import annotations

# The ten characters LaTeX treats specially, and the typographic ones the tables' notes use
# (an en dash in "min–max", the multiplication and minus signs) that the report's fonts lack.
_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "–": "--", "×": r"$\times$", "−": "-"}


def escape(text) -> str:
    """text (any value, as str() writes it) as LaTeX that prints it."""
    return "".join(_TEX.get(ch, ch) for ch in str(text))
