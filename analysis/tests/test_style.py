"""analysis/style.py: whatever backend a process's environment asks for, importing any module
of the package makes matplotlib draw with Agg (figures are written to files, never shown)."""

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["analysis.paper.figures", "analysis.allocation_plot"])
def test_importing_the_package_selects_agg(module):
    # "template" is a backend matplotlib ships that is not Agg: it stays unless style.py switches it.
    env = {**os.environ, "MPLBACKEND": "template"}
    code = f"import {module}, matplotlib, matplotlib.pyplot as plt; plt.figure(); print(matplotlib.get_backend())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().lower() == "agg"
