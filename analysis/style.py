"""What every figure shares: the non-interactive backend, the seaborn theme,
colours per series and where legends go."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import seaborn as sns  # noqa: E402

sns.set_theme(style="whitegrid", context="paper")

FP_LABEL = "false-positive rate"
BPK_LABEL = "bits per key"


def palette(labels) -> dict:
    """One distinct colour per label, in order."""
    labels = list(labels)
    colors = sns.color_palette("tab10" if len(labels) <= 10 else "husl", len(labels))
    return dict(zip(labels, colors))


def legend(ax, labels_count: int) -> None:
    """Beside the axes when there are many series, so it never hides data."""
    if labels_count > 8:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1 if labels_count <= 30 else 2)
    else:
        ax.legend(fontsize=7)
