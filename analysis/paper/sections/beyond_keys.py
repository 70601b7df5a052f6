"""Section beyond (paper/sections/beyond.tex), its FP-against-key-count part: experiment
fp_vs_keys, the FP of 32- and 64-bit hashes as one filter grows to 10^9 keys."""

from __future__ import annotations

import math

from ...load import pooled_fp
from ..figures import hash_width_ratio
from ..numbers import fmt, power_of_ten
from ..section import Inputs, Section


def section(inputs: Inputs) -> Section:
    return Section(values=keys_values(inputs))


def _nearest(df, col: str, target: float):
    """The rows of df at the value of col nearest to target (on a log scale)."""
    vals = df[col].unique()
    best = min(vals, key=lambda v: abs(math.log(v / target)))
    return df[df[col] == best]


# The 32/64-bit FP ratio the text asks about: where the interval lies wholly above it.
RATIO_THRESHOLD = 1.1


def keys_values(inputs: Inputs) -> dict[str, str]:
    """Section beyond: FP against key count (fp_vs_keys) for 32- and 64-bit hashes. The 32/64 ratio
    for fastlocal near 10^7 and at the largest count, its 95% interval, the first key count whose
    interval lies wholly above 1.1, and the FP at the largest count for fastlocal (both widths)
    and the legacy filter."""
    names = ("keysRatioTenM", "keysRatioTenMLow", "keysRatioTenMHigh", "keysRatioMax", "keysMax",
             "keysRatioMaxLow", "keysRatioMaxHigh", "keysFirstTenPercent", "keysFastSixtyfourMax",
             "keysFastThirtytwoMax", "keysLegacyMax", "keysModelMaxRatio")
    # The threshold is a setting the text names: there with or without results.
    vals = {**dict.fromkeys(names, "--"), "keysThreshold": f"{RATIO_THRESHOLD:g}"}
    df = inputs.results("fp_vs_keys")
    if df is None:
        return vals
    r = hash_width_ratio(df)
    fast = r[r["base_filter"] == "fastlocal"].sort_values("keys")
    if not fast.empty:
        ten = _nearest(fast, "keys", 1e7).iloc[0]
        top = fast.iloc[-1]
        vals.update(keysRatioTenM=f"{ten['ratio']:.3f}", keysRatioTenMLow=f"{ten['lo']:.3f}",
                    keysRatioTenMHigh=f"{ten['hi']:.3f}", keysRatioMax=f"{top['ratio']:.2f}",
                    keysRatioMaxLow=f"{top['lo']:.2f}", keysRatioMaxHigh=f"{top['hi']:.2f}",
                    keysMax=power_of_ten(top["keys"]))
        above = fast[fast["lo"] > RATIO_THRESHOLD]
        vals["keysFirstTenPercent"] = power_of_ten(above["keys"].iloc[0]) if len(above) else "none"
    agg = pooled_fp(df[df["command"] == "fp"], ["base_filter", "hash_bits", "keys"])
    top_keys = agg["keys"].max()
    at = agg[agg["keys"] == top_keys].set_index(["base_filter", "hash_bits"])
    for key, (base, bits) in (("keysFastSixtyfourMax", ("fastlocal", 64)), ("keysFastThirtytwoMax", ("fastlocal", 32)),
                              ("keysLegacyMax", ("legacy", 32))):
        if (base, bits) in at.index:
            vals[key] = fmt(100 * float(at.loc[(base, bits), "fp"]), "percent")
    m = agg[agg["model_fp"] > 0]
    if len(m):
        vals["keysModelMaxRatio"] = f"{float((m['fp'] / m['model_fp']).max()):.3f}"
    return vals
