"""The report's generated half: `python -m analysis paper` turns the committed results in
paper/results/ into paper/generated/ (numbers.tex, tables, figures) for paper/filterlab.tex.
One module per section of the text in sections/; how they fit, and the steps to add a
section: analysis/paper/README.md."""
