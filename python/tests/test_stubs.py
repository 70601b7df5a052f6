"""The committed type stubs match the built module and the simulator's commands."""

import subprocess
import sys


def test_stubs_are_current():
    out = subprocess.run([sys.executable, "-m", "filterlab._stubgen", "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
