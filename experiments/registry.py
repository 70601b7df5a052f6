"""Filter specs on the Python side. The C++ registry reads them
(`filterlab-tool check-spec --json`: per spec its variant and params as
written, the canonical spec, or the registry's error), so nothing here parses
spec grammar; this module only asks it (every spec of a config in one call,
answers cached per process) and puts specs together from those parts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path


class RegistryUnavailable(Exception):
    pass


# (tool path, mtime_ns) -> spec -> answer.
_answers: dict[tuple, dict[str, dict]] = {}


def _tool(build: Path) -> Path:
    tool = Path(build) / "filterlab-tool"
    if not tool.exists():
        raise RegistryUnavailable(f"{tool} does not exist; build it first (./filterlab build)")
    return tool


# A guard against a hung check-spec, not a speed limit: validating a large grid resolves default
# probe counts by model search (worm's block variants, ~0.5 s per spec), which on a loaded
# 2-core machine took over 2 minutes for fp_vs_bits' ~1400 specs.
CHECK_SPEC_TIMEOUT_S = 1200


def _ask(tool: Path, args: list[str]) -> list[dict]:
    try:
        out = subprocess.run([str(tool), "check-spec", "--json", *args], capture_output=True, text=True,
                             timeout=CHECK_SPEC_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise RegistryUnavailable(f"{tool} check-spec did not answer within {CHECK_SPEC_TIMEOUT_S} s "
                                  f"for {len(args)} arguments") from None
    try:
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    except ValueError:
        raise RegistryUnavailable(f"{tool} check-spec --json printed a line that is not JSON: "
                                  f"{out.stdout[:200]!r}") from None


def check_specs(build: Path, specs: list[str]) -> dict[str, dict]:
    """spec -> {"input", "canonical", "variant", "params", "bits_per_key", "hash_bits", "probes",
    "error"} (error None when the registry accepts the spec)."""
    tool = _tool(build)
    cache = _answers.setdefault((str(tool), tool.stat().st_mtime_ns), {})
    missing = [s for s in dict.fromkeys(specs) if s not in cache]
    if missing:
        records = _ask(tool, missing)
        if len(records) != len(missing):
            raise RegistryUnavailable(f"filterlab-tool check-spec answered {len(records)} of {len(missing)} specs")
        cache.update({r["input"]: r for r in records})
    return {s: cache[s] for s in specs}


def example_specs(build: Path) -> list[str]:
    """Every example spec of every registered variant (what "all" means in a config)."""
    return [r["input"] for r in _ask(_tool(build), ["--examples"])]


def join(variant: str, params: dict) -> str:
    """A spec from its parts (the registry's grammar: variant[:key=value,...])."""
    return variant + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")


def with_params(spec: str, params: dict[str, str]) -> str:
    """`spec` with `params` appended (keys the spec does not set; validate.py refuses clashes)."""
    if not params:
        return spec
    extra = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{spec}{',' if ':' in spec else ':'}{extra}"


def label(answer: dict) -> str:
    """How figures name a spec: as written, except that a family member chosen by
    variant= (worm:variant=cache_worm64) goes by the member's own registered name."""
    params = dict(answer["params"])
    member = params.pop("variant", None)
    return join(member, params) if member else answer["input"].strip()
