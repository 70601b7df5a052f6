"""The report's section registry (analysis/paper/sections/): every module is found and named
after the section of the text it serves, and two sections may not define one value or file."""

import pytest

from analysis.paper.generate import SectionClash, run_sections
from analysis.paper.paths import PAPER
from analysis.paper.section import Inputs, Section
from analysis.paper.sections import SECTIONS


def test_every_section_module_names_a_section_of_the_text():
    texts = {p.stem for p in (PAPER / "sections").glob("*.tex")}
    assert SECTIONS, "no section modules found"
    for name in SECTIONS:
        assert name in texts or name.split("_", 1)[0] in texts, (
            f"analysis/paper/sections/{name}.py: no paper/sections/{name}.tex (nor {name.split('_', 1)[0]}.tex)")


def test_two_sections_defining_one_value_are_refused(tmp_path):
    one = {"a": lambda inputs: Section(values={"x": "1"}), "b": lambda inputs: Section(values={"x": "2"})}
    with pytest.raises(SectionClash, match="value 'x' is defined by both section a and section b"):
        run_sections(Inputs(tmp_path), one)
    files = {"a": lambda inputs: Section(files={"t.tex": ""}), "b": lambda inputs: Section(files={"t.tex": ""})}
    with pytest.raises(SectionClash, match="file 't.tex'"):
        run_sections(Inputs(tmp_path), files)


def test_sections_merge_values_and_files(tmp_path):
    merged = run_sections(Inputs(tmp_path), {"a": lambda inputs: Section(values={"x": "1"}, files={"a.tex": "A"}),
                                             "b": lambda inputs: Section(values={"y": "2"})})
    assert merged.values == {"x": "1", "y": "2"} and merged.files == {"a.tex": "A"}


def test_harness_address_factor_counts_the_hash_values_of_every_slot():
    # Enumerate the harness's map floor(h N / 2^a) over every a-bit h for small key counts.
    from collections import Counter

    from analysis.paper.sections.range_filters import harness_address_factor
    for n in (10, 1000, 5000):
        slots = int(n / 0.95 + n ** 0.5)
        a = slots.bit_length()
        per_slot = Counter((h * slots) >> a for h in range(1 << a))
        assert len(per_slot) == slots
        expected = slots * sum(c * c for c in per_slot.values()) / float(1 << (2 * a))
        assert harness_address_factor(n) == pytest.approx(expected, rel=1e-12)
        assert 1.0 <= harness_address_factor(n) <= 9 / 8  # values per slot differ by at most one


def test_peer_fp_values_compare_the_two_rates_in_binomial_sigmas():
    # Two Rosetta cells and rows the summary must skip (another variant; a non-empty workload).
    import pandas as pd

    from analysis.paper.sections.range_filters import peer_fp_values
    cells = pd.DataFrame({
        "variant": ["rosetta", "rosetta", "grafite", "rosetta"],
        "fpr_ours": [0.028, 0.40, 0.5, float("nan")], "fpr_paper": [0.029, 0.40, 0.1, float("nan")],
        "queries_ours": [1e5, 1e5, 1e6, 1e5], "queries_paper": [1e5, 1e5, 1e6, 1e5]})
    # Cell 1: sigma = sqrt((0.028 0.972 + 0.029 0.971) / 10^5) = 7.44e-4, z = -0.001 / sigma = -1.34.
    assert peer_fp_values(cells, "rosetta", "Rosetta") == {"rangeRosettaPeerFp": "0.97--1.00",
                                                            "rangeRosettaPeerFpZ": "1.3"}
    assert peer_fp_values(cells, "rencoder", "REncoder") == {}
    # Grafite's cell: sigma = sqrt((0.5 0.5 + 0.1 0.9) / 10^6) = 5.83e-4, z = 0.4 / sigma = 686.
    assert peer_fp_values(cells, "grafite", "Grafite") == {"rangeGrafitePeerFp": "5.00--5.00",
                                                            "rangeGrafitePeerFpZ": "686.0"}


def test_rencoder_default_fp_is_the_default_layouts_rate_over_the_harness(tmp_path):
    # Two cells over two rounds: medians 0.0065 / 0.0088 = 0.74 and 0.6 / 0.68 = 0.88; the rows of
    # ours-as-the-harness and of another family do not enter.
    from analysis.paper.section import Inputs
    from analysis.paper.sections.range_filters import rencoder_default_fp
    assert rencoder_default_fp(Inputs(tmp_path)) == {}
    (tmp_path / "range_filters_peers").mkdir()
    rows = ["round,code,variant,arg,workload,fpr"]
    for rnd in (1, 2):
        rows += [f"{rnd},ours-default,rencoder,20,2^5 uncorrelated,{0.0064 + 0.0002 * (rnd - 1)}",
                 f"{rnd},paper,rencoder,20,2^5 uncorrelated,0.0088",
                 f"{rnd},ours,rencoder,20,2^5 uncorrelated,0.5",
                 f"{rnd},ours-default,rencoder,16,2^10 uncorrelated,0.6",
                 f"{rnd},paper,rencoder,16,2^10 uncorrelated,0.68",
                 f"{rnd},paper,rosetta,16,2^10 uncorrelated,0.01"]
    (tmp_path / "range_filters_peers" / "peers.csv").write_text("\n".join(rows) + "\n")
    assert rencoder_default_fp(Inputs(tmp_path)) == {"rangeREncoderDefaultFp": "0.74--0.88"}
