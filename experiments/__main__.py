"""`python -m experiments ...`: see cli.py."""
import sys

from .cli import main

sys.exit(main())
