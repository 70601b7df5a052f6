"""What every figure shares: the non-interactive backend, the seaborn theme sized
for a two-column paper, one fixed colour and marker per filter (the same in every
figure), and where legends go.

Colours are fixed by filter family, never by position in a figure: fastlocal is
the same blue in the FP plot, the speed bars and the engine figures. Variants of
one family that differ in a parameter a figure shows side by side (the 32-bit
hash, binary fuse's arity) keep the family's colour and differ in shade and line
style. Names that are not filters (benchmarks, levels, policies) get a stable
colour from their name, moved to the next free one only where two names of one
figure would collide."""

from __future__ import annotations

import zlib

import matplotlib
import matplotlib.colors as mcolors
import seaborn as sns

# Figures are written to files, never shown: the non-interactive backend for every process
# that draws them. Every module of the package loads this one through analysis/__init__.py
# (plots imports it) before any figure is made; selecting the backend after pyplot is
# imported is fine (matplotlib resolves it at the first figure, and use() switches it).
matplotlib.use("Agg")

# Column width of a two-column paper is about 3.4 in; figures are drawn at
# COLUMN or PAGE width and placed at 100%, so 8 pt text stays 8 pt in print.
COLUMN = 3.4
PAGE = 7.0
sns.set_theme(style="whitegrid", context="paper", rc={
    "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7, "ytick.labelsize": 7,
    "legend.fontsize": 7, "legend.title_fontsize": 7, "lines.linewidth": 1.2, "lines.markersize": 4,
    "savefig.dpi": 200, "pdf.fonttype": 42})

FP_LABEL = "false-positive rate (%)"
BPK_LABEL = "bits per key"

# family -> (colour, marker). tab10 for the families a reader compares most.
_FAMILIES = {
    "fastlocal": ("tab:blue", "o"),
    "legacy": ("tab:orange", "s"),
    "legacy_block": ("tab:brown", "v"),
    "dynamic": ("tab:green", "^"),
    "standard": ("0.25", "D"),
    "sbbf": ("tab:cyan", "P"),
    "ribbon": ("tab:red", "*"),
    "xor": ("tab:purple", "X"),
    "binary_fuse": ("tab:pink", "h"),
    "onebit": ("tab:olive", "d"),
    "none": ("0.6", "."),
    "published": ("black", "x"),
    # Range filters (filters/range/): colours outside tab10 and the worm palettes.
    "grafite": ("#8b0000", "o"),
    "bucketing": ("#daa520", "s"),
    "rosetta": ("#4b0082", "^"),
    "prefix_bloom": ("#2f4f4f", "D"),
    "surf": ("#ff1493", "v"),
    "memento": ("#228b22", "P"),
    "rencoder": ("#008b8b", "p"),
}
# The wormhashing family: one fixed colour each from a palette disjoint from tab10.
_WORM = ["cache_worm64", "cache_worm64_from32", "cache_worm64_alt", "cache_worm64_block",
         "cache_worm64_block_from32", "cache_mul64_block", "cache_mul64_block_from32", "cache_block64",
         "cache_dbl", "cache_rocksdb_dynamic", "cache_rocksdb_full", "cache_simd_fastrange32", "cache_simd_k8",
         "rocksdb_dynamic"]
_WORM_COLORS = sns.color_palette("Dark2", 8) + sns.color_palette("Set1", 9)[:6]
_WORM_MARKERS = "<>p8HdvsD^o*Xh"
for _i, _name in enumerate(_WORM):
    _FAMILIES[_name] = (_WORM_COLORS[_i], _WORM_MARKERS[_i])

_FALLBACK = sns.color_palette("tab20", 20)


def family(label: str) -> str:
    """The filter family a label names: `fastlocal hash=32` and `fastlocal:bpk=10` are fastlocal,
    `worm:variant=cache_dbl,...` is cache_dbl."""
    label = str(label).strip()
    if label.startswith("worm:") and "variant=" in label:
        return label.split("variant=", 1)[1].split(",", 1)[0].split(" ", 1)[0]
    for sep in (":", " ", "("):
        label = label.split(sep, 1)[0]
    return label


def _shade(label: str) -> float:
    """0 for the family's plain member, else how far to darken: the 32-bit hash and
    the 4-wise/16-bit members of a family are drawn darker than their default."""
    s = str(label)
    return 0.35 * (("hash=32" in s) + ("arity=4" in s) + ("fingerprint=16" in s))


def _darken(color, amount: float):
    r, g, b = mcolors.to_rgb(color)
    return (r * (1 - amount), g * (1 - amount), b * (1 - amount))


def is_filter(label: str) -> bool:
    return family(label) in _FAMILIES


def color(label: str):
    """The fixed colour of a filter label (see the module comment)."""
    fam = family(label)
    if fam not in _FAMILIES:
        return _FALLBACK[zlib.crc32(str(label).encode()) % len(_FALLBACK)]
    amount = min(_shade(label), 0.6)
    return _darken(_FAMILIES[fam][0], amount) if amount else mcolors.to_rgb(_FAMILIES[fam][0])


def marker(label: str) -> str:
    fam = family(label)
    return _FAMILIES[fam][1] if fam in _FAMILIES else "o"


def linestyle(label: str) -> str:
    """Dashed for the 32-bit-hash member of a family, so it reads apart from the 64-bit one."""
    return "--" if "hash=32" in str(label) else "-"


def palette(labels) -> dict:
    """label -> colour for the labels of one figure: fixed per filter; stable per name
    otherwise, with collisions inside this figure moved to the next free colour."""
    out, used = {}, set()
    for lab in dict.fromkeys(labels):
        if is_filter(lab):
            out[lab] = color(lab)
            continue
        i = zlib.crc32(str(lab).encode()) % len(_FALLBACK)
        for step in range(len(_FALLBACK)):
            if (i + step) % len(_FALLBACK) not in used:
                i = (i + step) % len(_FALLBACK)
                break
        used.add(i)
        out[lab] = _FALLBACK[i]
    return out


def legend(ax, labels_count: int) -> None:
    """Beside the axes when there are many series, so it never hides data."""
    if labels_count > 8:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1 if labels_count <= 30 else 2)
    else:
        ax.legend()
