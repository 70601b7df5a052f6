"""Asking the C++ filter registry about specs: `filterlab-tool check-spec`
(one JSON line per spec, every spec checked in one call). Builds without that
command fall back to `filterlab-sim model --filter SPEC` one spec at a time."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path


class RegistryUnavailable(Exception):
    pass


def _tool(build: Path) -> Path:
    return build / "filterlab-tool"


def _has_check_spec(build: Path) -> bool:
    tool = _tool(build)
    if not tool.exists():
        return False
    out = subprocess.run([str(tool), "check-spec", "--help"], capture_output=True, text=True)
    return out.returncode == 0 and "check-spec" in out.stdout


def check_specs(build: Path, specs: list[str]) -> dict[str, dict]:
    """spec -> {"ok": bool, "error": str} or {"ok": True, "canonical", "bits_per_key", ...}."""
    specs = list(dict.fromkeys(specs))
    if not specs:
        return {}
    if _has_check_spec(build):
        out = subprocess.run([str(_tool(build)), "check-spec", *specs], capture_output=True, text=True)
        records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        if len(records) != len(specs):
            raise RegistryUnavailable(f"filterlab-tool check-spec answered {len(records)} of {len(specs)} specs: "
                                      f"{out.stderr.strip()}")
        for r in records:
            if not r["ok"]:
                r["error"] = _bare_error(r["spec"], r["error"])
        return {r["spec"]: r for r in records}
    sim = build / "sim" / "filterlab-sim"
    if not sim.exists():
        raise RegistryUnavailable(f"neither {_tool(build)} (check-spec) nor {sim} exists; build them first "
                                  "(./filterlab build)")
    result = {}
    for spec in specs:
        out = subprocess.run([str(sim), "model", "--filter", spec, "--keys", "1"], capture_output=True, text=True)
        if out.returncode == 0:
            rec = json.loads(out.stdout.splitlines()[0])
            result[spec] = {"spec": spec, "ok": True, "canonical": rec.get("filter"),
                            "bits_per_key": rec.get("bits_per_key"), "probes": rec.get("probes"),
                            "hash_bits": rec.get("hash_bits"), "variant": rec.get("variant")}
        else:
            msg = out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
            msg = _bare_error(spec, re.sub(r"^filterlab-sim model: --filter: ", "", msg))
            result[spec] = {"spec": spec, "ok": False, "error": msg}
    return result


def _bare_error(spec: str, error: str) -> str:
    """The registry's reason without the status name and the spec (the caller names the spec)."""
    error = re.sub(r"^Invalid argument: ", "", error)
    prefix = f"filter spec '{spec}': "
    return error[len(prefix):] if error.startswith(prefix) else error


def example_specs(build: Path) -> list[str]:
    """Every example spec of every registered variant (what "all" means in a config)."""
    if _has_check_spec(build):
        out = subprocess.run([str(_tool(build)), "check-spec", "--examples"], capture_output=True, text=True)
        return [json.loads(line)["spec"] for line in out.stdout.splitlines() if line.startswith("{")]
    tool = _tool(build)
    if not tool.exists():
        raise RegistryUnavailable(f"{tool} does not exist; build it first (./filterlab build)")
    out = subprocess.run([str(tool), "list-filters"], capture_output=True, text=True, check=True)
    return [m.group(1) for m in re.finditer(r"^\s+e\.g\. (\S+)$", out.stdout, re.M)]
