"""The report's sections: one module per section of the text (paper/sections/<name>.tex; a long
section may have one module per part, <name>_<part>.py), each computing what that section
cites. Every module here defines `section(inputs: Inputs) -> Section` (analysis/paper/section.py)
and is found by its presence: SECTIONS maps each module's name to that function, in name order,
so a new section is one new module and no list to edit (analysis/paper/README.md)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from ..section import Inputs, Section


def _discover() -> dict[str, Callable[[Inputs], Section]]:
    found = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        make = getattr(module, "section", None)
        if not callable(make):
            raise TypeError(f"{module.__name__}: a module in analysis/paper/sections/ is a report section and "
                            "must define section(inputs: Inputs) -> Section")
        found[info.name] = make
    return found


SECTIONS = _discover()
