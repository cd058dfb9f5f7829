"""Label priors by relative size: how much of a merged shell's surface a part of each label covers.

The segmenter's label head sees a prompt's neighbourhood, not how big the part it cuts turns out to be, and its
probabilities for look-alike labels are close (a drawer front and the handle on it; the body and a drawer).
Size separates them: a handle covers well under 1 % of a cabinet's surface, a body most of it. ``SizePrior``
is the distribution of ``log10(area fraction)`` per label over a training split (surface points sample the shell
uniformly, so a part's share of points is its share of area), as a smoothed histogram. ``Segmenter.refine``
multiplies the prompts' mean label probabilities by a power of it (``p(label | prompts) · p(size | label) ** w``,
``w = SegmentConfig.size_prior_weight``, 0.5 by default; w = 1 is the plain Bayes product) when the model folder
holds one (``size_prior.json``, written by ``seed3d train part-seg``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from seed3d.asset import atomic_file
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.typed import PathType

#: File name of the prior inside a segmenter folder.
PRIOR_FILE = "size_prior.json"
#: Histogram bin edges over log10(area fraction); fractions below 1e-4 fall in the first bin.
EDGES: tuple[float, ...] = tuple(np.round(np.linspace(-4.0, 0.0, 17), 6).tolist())


@dataclass
class SizePrior:
    """Per label, the log probability of each bin of log10(area fraction) (``log_prob`` is (labels, bins))."""

    labels: tuple[str, ...]
    log_prob: np.ndarray
    counts: tuple[int, ...]
    """Training parts seen per label (a label never seen gets a flat row)."""

    def score(self, fraction: float) -> np.ndarray:
        """Log prior of every label for a part covering ``fraction`` of the shell's area."""
        x = np.log10(min(max(float(fraction), 1e-12), 1.0))
        b = int(np.clip(np.searchsorted(EDGES, x, side="right") - 1, 0, len(EDGES) - 2))
        return self.log_prob[:, b]

    def save(self, folder: PathType) -> Path:
        """Write ``size_prior.json`` into ``folder`` atomically; returns its path."""
        path = Path(folder) / PRIOR_FILE
        doc = {"edges_log10_fraction": list(EDGES), "labels": list(self.labels), "counts": list(self.counts),
               "log_prob": np.round(self.log_prob, 5).tolist()}
        with atomic_file(path) as tmp:
            tmp.write_text(json.dumps(doc, indent=1) + "\n")
        return path

    @classmethod
    def load(cls, folder: PathType) -> SizePrior | None:
        """The prior in ``folder``, or None when it has none; a malformed file is an ``AssetFormatError``."""
        path = Path(folder) / PRIOR_FILE
        if not path.is_file():
            return None
        try:
            doc = json.loads(path.read_text())
            log_prob = np.asarray(doc["log_prob"], np.float64)
            labels = tuple(str(s) for s in doc["labels"])
            edges = tuple(float(e) for e in doc["edges_log10_fraction"])
            counts = tuple(int(c) for c in doc["counts"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise AssetFormatError(f"{path}: not a size prior ({exc})") from exc
        if not np.allclose(edges, EDGES) or log_prob.shape != (len(labels), len(EDGES) - 1) or \
                len(counts) != len(labels) or not np.isfinite(log_prob).all():
            raise AssetFormatError(f"{path}: bins, labels and table do not match")
        return cls(labels, log_prob, counts)


def fit_size_prior(part: np.ndarray, label: np.ndarray, labels: tuple[str, ...], smoothing: float = 1.0
                   ) -> SizePrior:
    """The prior from per-point part indices and label ids, (shapes, points) each: every (shape, part) present
    adds its share of the shape's points to its label's histogram; counts get ``smoothing`` added per bin and
    are blurred over neighbouring bins, so no size has zero probability."""
    part, label = np.asarray(part), np.asarray(label)
    if part.shape != label.shape or part.ndim != 2 or not part.size:
        raise InvalidInputError(f"part and label must be matching (shapes, points) arrays, got {part.shape} and "
                                f"{label.shape}")
    if label.min() < 0 or label.max() >= len(labels):
        raise InvalidInputError(f"label ids must lie in 0..{len(labels) - 1}")
    bins = len(EDGES) - 1
    hist = np.zeros((len(labels), bins))
    n = part.shape[1]
    for p_row, l_row in zip(part, label, strict=True):  # one loop step per training shape
        _, first, count = np.unique(p_row, return_index=True, return_counts=True)
        x = np.log10(count / n)
        b = np.clip(np.searchsorted(EDGES, x, side="right") - 1, 0, bins - 1)
        np.add.at(hist, (l_row[first], b), 1.0)
    seen = hist.sum(axis=1)
    padded = np.pad(hist + smoothing, ((0, 0), (1, 1)), mode="edge")
    blurred = 0.25 * padded[:, :-2] + 0.5 * padded[:, 1:-1] + 0.25 * padded[:, 2:]
    prob = blurred / blurred.sum(axis=1, keepdims=True)
    return SizePrior(tuple(labels), np.log(prob), tuple(int(c) for c in seen))
