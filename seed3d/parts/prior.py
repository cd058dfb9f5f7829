"""Label priors by relative size: how much of a merged shell's surface a part of each label covers.

The segmenter's label head sees a prompt's neighbourhood, not how big the part it cuts turns out to be, and its
probabilities for look-alike labels are close (a drawer front and the handle on it; the body and a drawer).
Size separates them: a handle covers well under 1 % of a cabinet's surface, a body most of it. ``SizePrior``
is the distribution of ``log10(area fraction)`` per label over a training split (surface points sample the shell
uniformly, so a part's share of points is its share of area), as a smoothed histogram. ``Segmenter.refine``
multiplies the prompts' mean label probabilities by a power of it (``p(label | prompts) · p(size | label) ** w``,
``w = SegmentConfig.size_prior_weight``, 0.5 by default; w = 1 is the plain Bayes product) when the model folder
holds one (``size_prior.json``, written by ``seed3d train part-seg``).

``MaterialPrior`` is the other half of what a label says: what the training parts with that label were made of.
The segmenter finds a part's label, not its material; ``Segmenter.physical`` gives a part its label's commonest
material (wheels rubber, doors wood, handles steel, bulbs glass) instead of one density for every part, so
masses, inertias and contact friction come out near the real ones (``material_prior.json``, written with the size
prior from the synth assets behind the training split). It also keeps, per label, the median wall (``wall``: twice
the volume over the area, a panel's thickness, a hollow part's wall) of the training parts: a completed part is
solid where a real drawer, drum or cabinet is a box of panels, so its mass is capped at wall × area × density
(the material's density scaled down, ``MaterialPrior.material`` with the part's mesh). A label alone is a weak
guess where one label stands for parts of several materials (a laptop's base is electronics, a desk lamp's steel):
the prior also counts which other labels stood beside each material in the training assets, and given the labels
of the other parts of an asset it picks the material a naive Bayes model of them finds likeliest.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from seed3d.asset import Asset, Mesh, PhysicalMaterial, atomic_file
from seed3d.errors import AssetFormatError, InvalidInputError
from seed3d.physics._geometry import signed_volume
from seed3d.typed import PathType

#: File name of the prior inside a segmenter folder.
PRIOR_FILE = "size_prior.json"
#: File name of the label -> material prior inside a segmenter folder.
MATERIAL_FILE = "material_prior.json"
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


def wall(mesh: Mesh) -> float:
    """Twice the volume a closed mesh encloses over its area (m): the thickness of a panel or of a hollow part's
    wall (each side counts half the area), a third of a solid cube's side; 0 for a mesh without area."""
    area = float(mesh.face_areas_normals()[0].sum())
    return 2.0 * abs(signed_volume(mesh.vertices, mesh.faces)) / area if area > 0 else 0.0


@dataclass
class MaterialPrior:
    """Per label, how many training parts were made of each physical material, the commonest of them, which labels
    stood beside each of them, and the median wall of the parts."""

    materials: dict[str, PhysicalMaterial]
    """Label -> its commonest material (the first by name on a tie)."""
    counts: dict[str, dict[str, int]]
    """Label -> material name -> training parts."""
    walls: dict[str, float] = field(default_factory=dict)
    """Label -> the median ``wall`` (m) of its training parts (a label without one: masses are not capped)."""
    together: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    """Label -> material name -> the label of another part in the same asset -> training parts (a lamp's base
    with a shade beside it is steel, a laptop's with a keyboard electronics)."""
    known: dict[str, PhysicalMaterial] = field(default_factory=dict)
    """Material name -> its values, for every material in ``counts``."""
    material_walls: dict[str, dict[str, float]] = field(default_factory=dict)
    """Label -> material name -> the median ``wall`` of its training parts of that material: a wooden body is a box
    of 17 mm panels, an appliance's body a solid of its shell's effective density (walls of 50 mm and more)."""

    def material(self, label: str, mesh: Mesh | None = None, context: Iterable[str] = ()) -> PhysicalMaterial | None:
        """A copy of ``label``'s likeliest material (None for a label the training parts never had): its commonest
        one, or, given the labels of the other parts of the asset (``context``), the one a naive Bayes model of
        which labels stood beside each material (``together``) finds likeliest from those present. Given the
        part's closed ``mesh``, a part whose volume exceeds its label's wall (for that material, when the training
        parts had it) times its area (a completed drawer, solid where the real one is a box of panels) gets the
        density scaled so its mass is wall × area × density, named "… (hollow)"."""
        found = self.materials.get(label)
        if found is None:
            return None
        context = set(context)
        if context and label in self.together:
            found = self.known[self._likeliest(label, context)]
        limit = self.material_walls.get(label, {}).get(found.name, self.walls.get(label))
        if mesh is None or limit is None:
            return replace(found)
        own = wall(mesh)  # 2 · volume / area: the capped mass wall · area · density is the mass · 2 · wall / own
        if own <= 2.0 * limit:
            return replace(found)
        return replace(found, name=f"{found.name} (hollow)", density=found.density * 2.0 * limit / own)

    def _likeliest(self, label: str, context: set[str]) -> str:
        """argmax over materials m of log P(m | label) + Σ over the labels l of ``context`` ever seen beside
        ``label`` of log P(l beside | label, m), with add-one smoothing (the first name on a tie). Only labels
        present count: a part the segmenter missed is no evidence."""
        counts, together = self.counts[label], self.together[label]
        present = context & set().union(*together.values())

        def score(name: str) -> float:
            n = counts[name]
            return math.log(n + 1.0) + sum(math.log((together[name].get(other, 0) + 1.0) / (n + 2.0))
                                           for other in present)

        return max(sorted(together), key=score)

    def save(self, folder: PathType) -> Path:
        """Write ``material_prior.json`` into ``folder`` atomically; returns its path."""
        path = Path(folder) / MATERIAL_FILE

        def values(m: PhysicalMaterial) -> dict[str, Any]:
            return {"name": m.name, "density": m.density, "friction": m.friction, "restitution": m.restitution}

        doc = {"labels": {label: {"material": values(m),
                                  "counts": dict(sorted(self.counts[label].items(), key=lambda kv: (-kv[1], kv[0]))),
                                  **({"wall_m": round(self.walls[label], 6)} if label in self.walls else {}),
                                  **({"wall_m_by_material": {n: round(w, 6) for n, w in
                                                             sorted(self.material_walls[label].items())}}
                                     if label in self.material_walls else {}),
                                  **({"together": {n: dict(sorted(c.items())) for n, c in
                                                   sorted(self.together[label].items())}}
                                     if label in self.together else {})}
                          for label, m in sorted(self.materials.items())},
               **({"materials": {n: values(m) for n, m in sorted(self.known.items())}} if self.known else {})}
        with atomic_file(path) as tmp:
            tmp.write_text(json.dumps(doc, indent=1) + "\n")
        return path

    @classmethod
    def load(cls, folder: PathType) -> MaterialPrior | None:
        """The prior in ``folder``, or None when it has none; a malformed file is an ``AssetFormatError``."""
        path = Path(folder) / MATERIAL_FILE
        if not path.is_file():
            return None
        try:
            whole = json.loads(path.read_text())
            doc = whole["labels"]
            materials = {str(k): PhysicalMaterial(**v["material"]) for k, v in doc.items()}
            counts = {str(k): {str(n): int(c) for n, c in v["counts"].items()} for k, v in doc.items()}
            walls = {str(k): float(v["wall_m"]) for k, v in doc.items() if "wall_m" in v}
            material_walls = {str(k): {str(n): float(w) for n, w in v["wall_m_by_material"].items()}
                              for k, v in doc.items() if "wall_m_by_material" in v}
            together = {str(k): {str(n): {str(o): int(c) for o, c in beside.items()}
                                 for n, beside in v["together"].items()} for k, v in doc.items() if "together" in v}
            known = {str(n): PhysicalMaterial(**m) for n, m in whole.get("materials", {}).items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError, InvalidInputError) as exc:
            raise AssetFormatError(f"{path}: not a material prior ({exc})") from exc
        every = [*walls.values(), *(w for by in material_walls.values() for w in by.values())]
        if not all(np.isfinite(w) and w > 0 for w in every):
            raise AssetFormatError(f"{path}: walls must be positive lengths")
        missing = sorted({n for label, by in together.items() for n in by if n not in known or n not in counts[label]})
        if missing:
            raise AssetFormatError(f"{path}: materials {missing} of 'together' have no values or counts")
        return cls(materials, counts, walls, together, known, material_walls)


def beside(labels: list[str], k: int) -> set[str]:
    """The labels of every part but the ``k``-th: what stood beside it (``MaterialPrior.together``)."""
    return {label for j, label in enumerate(labels) if j != k}


def fit_material_prior(assets: Iterable[Asset]) -> MaterialPrior:
    """The prior from assets whose parts carry their physical materials: one count per part, and each part's
    ``wall`` towards its label's median; a material name met with two different sets of values is an
    ``InvalidInputError``."""
    counts: dict[str, Counter[str]] = {}
    walls: dict[str, list[float]] = {}
    by_material: dict[str, dict[str, list[float]]] = {}
    known: dict[str, PhysicalMaterial] = {}
    together: dict[str, dict[str, Counter[str]]] = {}
    for asset in assets:
        labels = [p.label for p in asset.parts]
        for k, part in enumerate(asset.parts):
            m = part.physical
            if known.setdefault(m.name, m) != m:
                raise InvalidInputError(f"material {m.name!r} has two sets of values: {known[m.name]} and {m}")
            counts.setdefault(part.label, Counter())[m.name] += 1
            walls.setdefault(part.label, []).append(wall(part.mesh))
            by_material.setdefault(part.label, {}).setdefault(m.name, []).append(walls[part.label][-1])
            together.setdefault(part.label, {}).setdefault(m.name, Counter()).update(beside(labels, k))
    if not counts:
        raise InvalidInputError("no parts to fit a material prior on")
    materials = {label: replace(known[min(c, key=lambda n: (-c[n], n))]) for label, c in counts.items()}
    medians = {label: float(np.median(w)) for label, w in walls.items() if np.median(w) > 0}
    per_material = {label: {n: float(np.median(w)) for n, w in by.items() if np.median(w) > 0}
                    for label, by in by_material.items()}
    return MaterialPrior(materials, {label: dict(c) for label, c in counts.items()}, medians,
                         {label: {n: dict(c) for n, c in by.items()} for label, by in together.items()}, known,
                         {label: by for label, by in per_material.items() if by})
