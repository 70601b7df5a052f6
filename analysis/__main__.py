"""`python -m analysis plot RESULTS_DIR`: see cli.py."""
import sys

from .cli import main

sys.exit(main())
