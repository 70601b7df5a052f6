"""The model-accuracy table (analysis/paper/models.py) on small frames whose verdicts are known:
each kind's promise held and broken at a point whose z and relative error are set exactly."""

import math

import pandas as pd
import pytest

from analysis.paper.sections.models import model_table, model_table_tex, model_values

Q = 10**9


def _row(label, kind, bpk, model, z, error=0.0, dispersion=1.0, bits_per_key=None):
    """One fp record whose measured rate sits z binomial sigma from `model`."""
    sigma = math.sqrt(model * (1 - model) / Q)
    return {"command": "fp", "base_label": label, "model_kind": kind, "model_max_relative_error": error,
            "bpk": bpk, "bits_per_key": bits_per_key if bits_per_key is not None else bpk, "queries": Q,
            "model_fp": model, "fp": model + z * sigma, "dispersion": dispersion}


def _table(rows):
    return model_table(pd.DataFrame(rows)).set_index("variant")


def test_each_kind_holds_or_not():
    rows = [
        _row("exact_ok", "exact", 6, 0.05, 3.9), _row("exact_ok", "exact", 10, 0.01, -3.9),
        _row("exact_bad", "exact", 6, 0.05, 0.0), _row("exact_bad", "exact", 10, 0.01, 4.1),
        # 1% error stated: 0.01 * 0.01 = 1e-4 absolute plus 4 sigma (~1.26e-5); z = 30 is ~9.5e-5.
        _row("approx_ok", "approximation", 10, 0.01, -30.0, error=0.01),
        _row("approx_bad", "approximation", 10, 0.01, -40.0, error=0.01),
        _row("lower_ok", "lower_bound", 10, 0.01, 500.0), _row("lower_bad", "lower_bound", 10, 0.01, -4.5),
        _row("upper_ok", "upper_bound", 10, 0.01, -500.0), _row("upper_bad", "upper_bound", 10, 0.01, 4.5),
    ]
    t = _table(rows)
    for v in ("exact_ok", "approx_ok", "lower_ok", "upper_ok"):
        assert t.loc[v, "holds"], v
    for v in ("exact_bad", "approx_bad", "lower_bad", "upper_bad"):
        assert not t.loc[v, "holds"], v
    assert t.loc["exact_bad", "zmax"] == pytest.approx(4.1)
    assert t.loc["exact_ok", "ratio_10"] == pytest.approx(1 - 3.9 * math.sqrt(0.01 * 0.99 / Q) / 0.01)


def test_layout_sized_variants_land_in_the_nearest_column_and_values_count_kinds():
    rows = [_row("xor", "exact", float("nan"), 0.0039, 1.0, bits_per_key=9.04),
            _row("dyn", "approximation", 24, 0.0005, -12.0, error=0.018, dispersion=1.2),
            _row("old", "lower_bound", 24, 0.0005, 300.0)]
    t = model_table(pd.DataFrame(rows))
    assert t.set_index("variant").loc["xor", "z_10"] == pytest.approx(1.0)
    values = model_values(t, Q, 1000)
    assert values["modelsTotal"] == "3" and values["modelsExact"] == "1" and values["modelsApprox"] == "1"
    assert values["modelsBounds"] == "1" and values["modelsHold"] == "3" and values["modelsBroken"] == "none"
    assert values["modelsApproxMaxError"] == "1.8" and values["modelsDispersionMax"] == "1.20"
    tex = model_table_tex(t)
    assert r"approx. $\pm$1.8\%" in tex and "lower bound" in tex


def test_a_variant_with_two_kinds_is_an_error():
    rows = [_row("v", "exact", 6, 0.05, 0.0), _row("v", "approximation", 10, 0.01, 0.0, error=0.01)]
    with pytest.raises(ValueError, match="several model kinds"):
        model_table(pd.DataFrame(rows))
