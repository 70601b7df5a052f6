"""meta.json: what produced a results table — commit, build flags, compiler,
CPU, cores, memory, date, the config itself — so every number can be traced."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import subprocess
from pathlib import Path

from .validate import mem_available
from .workers import ROOT


def _run(argv, cwd=None) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def git_info() -> dict:
    commit = _run(["git", "rev-parse", "HEAD"], cwd=ROOT)
    dirty = bool(_run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT))
    return {"commit": commit or None, "dirty": dirty}


def build_info(build: Path) -> dict:
    cache = {}
    try:
        for line in (build / "CMakeCache.txt").read_text().splitlines():
            m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line)
            if m:
                cache[m.group(1)] = m.group(2)
    except OSError:
        pass
    build_type = cache.get("CMAKE_BUILD_TYPE", "")
    flags = {k: v for k, v in cache.items()
             if k in ("CMAKE_BUILD_TYPE", "CMAKE_CXX_FLAGS", f"CMAKE_CXX_FLAGS_{build_type.upper()}",
                      "CMAKE_CXX_COMPILER") or k.startswith("FILTERLAB_")}
    compiler = cache.get("CMAKE_CXX_COMPILER")
    version = _run([compiler, "--version"]).splitlines()[0] if compiler else ""
    return {"dir": str(build), "flags": flags, "compiler": version or compiler}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_identity(cpuinfo: str | None = None) -> dict:
    """What tells two hosts of one model name apart (a cloud's "AMD EPYC" is several core
    generations): the CPU family and model numbers and the widest vector ISA the code can use
    (AVX-512 when avx512f is listed, else AVX2, else none), from /proc/cpuinfo's first CPU."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return {}
    fields = {}
    for line in cpuinfo.splitlines():
        if not line.strip():
            break  # the first CPU's block ends here
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    flags = set(fields.get("flags", "").split())
    out = {"vector_isa": "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "none"}
    for key, name in (("cpu family", "cpu_family"), ("model", "cpu_model_number")):
        if fields.get(key, "").isdigit():
            out[name] = int(fields[key])
    return out


def cpu_caches() -> list[dict]:
    """The caches of CPU 0 as the kernel lists them: level, type, size (e.g. 1 Data 48K)."""
    out = []
    for d in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            out.append({k: (d / k).read_text().strip() for k in ("level", "type", "size")})
        except OSError:
            continue
    return out


def load_average() -> list[float]:
    """1-, 5- and 15-minute load averages when the run ended: a shared machine shows here."""
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except (OSError, ValueError):
        return []


def at_start() -> dict:
    """What must be read before the runs start: the time, the commit the build was made
    from (a commit made while a long sweep runs is not in its binaries) and the load."""
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), **git_info(),
            "load_average": load_average()}


def write_meta(path: Path, plan, executor, start: dict, resumed: int, cluster: str | None) -> dict:
    meta = {
        "experiment": plan.config.name,
        "description": plan.config.description,
        "claim": plan.config.claim,
        "date": start["date"],
        "finished": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "commit": start["commit"],
        "dirty": start["dirty"],
        "build": build_info(plan.build),
        "build_ids": plan.build_ids,
        "machine": {"host": platform.node(), "cpu": cpu_model(), **cpu_identity(), "cores": os.cpu_count(),
                    "mem_available_bytes": mem_available(), "os": platform.platform(), "caches": cpu_caches(),
                    "load_average": start["load_average"], "load_average_end": load_average()},
        "cluster": cluster,
        "runs": {"planned": len(plan.runs), "reused": resumed, "failed": len(executor.failures)},
        "failures": [{"run": f.run.describe(), "argv": f.outcome["argv"], "returncode": f.outcome["returncode"],
                      "stderr": f.outcome["stderr"][-4000:]} for f in executor.failures],
        "notes": plan.notes,
        "plots": plan.config.plots,
        "tables": plan.config.tables,
        "config_path": str(plan.config.path),
        "config": plan.config.text,
    }
    path.write_text(json.dumps(meta, indent=2) + "\n")
    return meta
