"""examples/tour.ipynb runs top to bottom (its cells assert what they show), and
the README shows its first code cells as they are."""

import re
import time

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from .conftest import ROOT

TOUR = ROOT / "examples" / "tour.ipynb"


def test_the_tour_runs(tmp_path):
    nb = nbformat.read(TOUR, as_version=4)
    start = time.monotonic()
    # The kernel talks to this process over Unix sockets in tmp_path, not TCP.
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": str(tmp_path)}}).execute()
    seconds = time.monotonic() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    figures = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {})]
    assert figures, "the plot cell drew no figure"
    print(f"tour.ipynb ran in {seconds:.1f} s")


def test_the_readme_shows_the_first_code_cells():
    nb = nbformat.read(TOUR, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"][:3]
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    shown = "\n".join(blocks)
    for source in code:
        assert source.strip() in shown, f"README.md does not show this cell of examples/tour.ipynb:\n{source}"


def test_the_readme_still_starts_with_the_two_commands():
    assert (ROOT / "README.md").read_text().startswith("```sh\n./filterlab run\n./filterlab test\n```\n")
