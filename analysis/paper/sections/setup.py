"""Section setup (paper/sections/setup.tex, and the title's dates in filterlab.tex): the machine,
compiler and build from the experiments' meta.json, and the machine experiment's memory facts."""

from __future__ import annotations

import json

from ...tex import escape
from ..figures import FIGURES
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    # Every experiment the report reads: those the claims and the figures name.
    experiments = sorted({c.ours["experiment"] for c in inputs.claims} | {e for e, _ in FIGURES.values()})
    return Section(values={**setup_values(inputs, experiments), **machine_values(inputs)})


def setup_values(inputs: Inputs, experiments: list[str]) -> dict[str, str]:
    """Machine and build facts from the experiments' meta.json (the first that has each)."""
    vals: dict[str, str] = {}
    metas_by_experiment = {}
    for exp in experiments:
        p = inputs.results_root / exp / "meta.json"
        if p.exists():
            metas_by_experiment[exp] = json.loads(p.read_text())
    metas = list(metas_by_experiment.values())
    if not metas:  # "--" for every fact, so the title and the setup section still build
        return dict.fromkeys(("cpu", "cores", "memGiB", "os", "caches", "compiler", "cxxFlags", "commits",
                              "commitsWord", "dateFirst", "dateLast", "loadMax", "cpuKinds"), "--")
    m = metas[0]
    machine = m.get("machine", {})
    build = m.get("build", {})
    flags = build.get("flags", {}) if isinstance(build, dict) else {}
    vals["cpu"] = escape(machine.get("cpu", "?"))
    vals["cores"] = str(machine.get("cores", "?"))
    vals["memGiB"] = f"{machine.get('mem_available_bytes', 0) / 2**30:.0f}"
    vals["os"] = escape(machine.get("os", "?"))
    caches = machine.get("caches") or []
    vals["caches"] = escape(", ".join(f"L{c['level']} {c['type'].lower()} {c['size']}" for c in caches)) or "not recorded"
    vals["compiler"] = escape(build.get("compiler", "?") if isinstance(build, dict) else "?")
    vals["cxxFlags"] = escape(" ".join(x for x in (flags.get("CMAKE_CXX_FLAGS", ""),
                                                   flags.get("CMAKE_CXX_FLAGS_RELEASE", "")) if x))
    # The results come from many runs: the title names the span of their dates and how many
    # commits built them (each experiment's meta.json names its own commit).
    commits = {str(x.get("commit")) for x in metas if x.get("commit")}
    dates = sorted(str(x["date"])[:10] for x in metas if x.get("date"))
    vals["commits"] = str(len(commits)) if commits else "?"
    vals["commitsWord"] = "commit" if len(commits) == 1 else "commits"
    vals["dateFirst"] = escape(dates[0]) if dates else "?"
    vals["dateLast"] = escape(dates[-1]) if dates else "?"
    vals["cpuKinds"] = cpu_kinds(experiments, metas_by_experiment)
    loads = [x.get("machine", {}).get("load_average") for x in metas if x.get("machine", {}).get("load_average")]
    vals["loadMax"] = f"{max(l[0] for l in loads):.1f}" if loads else "not recorded"
    return vals


def cpu_kinds(experiments: list[str], metas: dict[str, dict]) -> str:
    """Which host CPU each experiment ran on, where its meta.json records it (CPU family, model
    and vector ISA: one model name covers several core generations), grouped by CPU; the
    experiments whose meta.json predates the record are counted apart."""
    groups: dict[str, list[str]] = {}
    unrecorded = 0
    for exp in (e for e in experiments if e in metas):
        machine = metas[exp].get("machine", {})
        if "vector_isa" not in machine:
            unrecorded += 1
            continue
        kind = (f"family {machine.get('cpu_family', '?')} model {machine.get('cpu_model_number', '?')}, "
                f"{machine['vector_isa']}")
        groups.setdefault(kind, []).append(exp)
    parts = [f"{kind}: " + ", ".join(f"\\texttt{{{escape(e)}}}" for e in exps) for kind, exps in groups.items()]
    if unrecorded:
        parts.append(f"not recorded for the other {unrecorded}")
    return "; ".join(parts) if parts else "not recorded"


def machine_values(inputs: Inputs) -> dict[str, str]:
    """The machine experiment's facts: the page size the TLB really caches for 2 MiB guest
    pages, and at the largest working set the independent line-read floor (2 MiB pages,
    prefetch 32, one thread) and the dependent-load latency."""
    df = inputs.results("machine")
    if df is None:
        return {k: "--" for k in ("translationHuge", "floorNs", "latencyNs", "floorMiB")}
    tr = df[(df["measure"] == "translation") & (df["page_bytes"] == 2 ** 21)]
    big = df[df["working_set_bytes"] == df["working_set_bytes"].max()]
    floor = big[(big["measure"] == "random_line_read") & (big["page_bytes"] == 2 ** 21) & (big["threads"] == 1)
                & (big["prefetch_distance"] > 0)]
    lat = big[(big["measure"] == "dependent_load") & (big["page_bytes"] == 2 ** 21)]
    return {"translationHuge": f"{int(tr['translation_page_bytes'].iloc[0]) // 1024}~KiB" if len(tr) else "--",
            "floorNs": f"{floor['ns_per_line'].median():.1f}" if len(floor) else "--",
            "latencyNs": f"{lat['ns_per_line'].median():.0f}" if len(lat) else "--",
            "floorMiB": f"{df['working_set_bytes'].max() / 2**20:.0f}"}
