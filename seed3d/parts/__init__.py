"""Part decomposition: a mesh in, labelled closed parts out (joints unknown; ``seed3d.articulation`` adds them).

``segment`` (the point-prompted segmenter and automatic segmentation), ``complete`` (every cut part made closed,
with the hidden geometry it needs to move), ``shell`` (the merged shell of an asset's parts, the ground truth of
evaluation) and ``train`` (training the segmenter on ``seed3d data build`` shards).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from seed3d.asset import Asset, Mesh, Part
from seed3d.typed import ProgressCallback

if TYPE_CHECKING:
    from seed3d.parts.complete import CompletionConfig
    from seed3d.parts.segment import Segmenter

log = logging.getLogger(__name__)


def part_names(labels: list[str]) -> list[str]:
    """Unique part names from labels: the first body is ``body``, others ``{label}_{k}`` counted per label."""
    seen: dict[str, int] = {}
    names = []
    for label in labels:
        k = seen.get(label, 0)
        seen[label] = k + 1
        names.append(label if label == "body" and k == 0 else f"{label}_{k}")
    return names


#: The fewest faces a part is decimated to when ``decompose`` holds a face budget.
MIN_PART_FACES = 64


def _within_budget(meshes: list[Mesh | None], target_faces: int) -> list[Mesh | None]:
    """Parts decimated so that together they hold about ``target_faces`` faces (each at least MIN_PART_FACES)."""
    from seed3d.geometry.postprocess import decimate

    counts = [len(m.faces) if m is not None else 0 for m in meshes]
    total = sum(counts)
    if total <= target_faces:
        return meshes
    out = []
    for m, n in zip(meshes, counts, strict=True):
        share = max(MIN_PART_FACES, round(target_faces * n / total))
        out.append(decimate(m, share) if m is not None and n > share else m)
    log.info("parts decimated from %d to %d faces (target %d)", total,
             sum(len(m.faces) for m in out if m is not None), target_faces)
    return out


def decompose(mesh: Mesh, segmenter: Segmenter, name: str = "asset", num_parts: int | None = None,
              completion: CompletionConfig | None = None, progress: ProgressCallback | None = None,
              target_faces: int | None = None) -> Asset:
    """Segment ``mesh`` with a ``segment.Segmenter``, complete every part, and return them as an ``Asset`` whose
    joints are unknown (``joints_known=False``), each part of its label's likeliest material, made lighter when the
    completed part holds more volume than its label's wall allows (``Segmenter.physical``); ``num_parts`` fixes
    the number of parts (a cut part with no area to complete joins the body, and a thin sheet left inside a part's
    completed volume joins that part, so there may be fewer; ``metadata["parts"]["merged"]`` lists them).

    The segmenter subdivides long faces so that cuts can run between them; when the completed parts hold more than
    ``target_faces`` faces in all, each part over its share (in proportion to its faces, at least
    ``MIN_PART_FACES``) is decimated to it, staying closed."""
    from seed3d.parts.complete import complete_parts
    from seed3d.parts.prior import beside

    report = progress or (lambda f, m: None)
    t0 = time.perf_counter()
    report(0.0, "segmenting")
    seg = segmenter.segment_mesh(mesh, num_parts)
    t1 = time.perf_counter()
    report(0.5, f"completing {seg.num_parts} parts")
    meshes = complete_parts(seg.mesh, seg.face_part, seg.labels, completion)
    if target_faces is not None:
        meshes = _within_budget(meshes, target_faces)
    t2 = time.perf_counter()
    kept = [(m, label) for m, label in zip(meshes, seg.labels, strict=True) if m is not None]
    labels = [label for _, label in kept]
    parts = [Part(n, m, label=label, physical=segmenter.physical(label, m, beside(labels, k)))
             for k, (n, (m, label)) in enumerate(zip(part_names(labels), kept, strict=True))]
    meta = {"parts": {"labels": seg.labels, "scores": seg.scores, "faces": [int((seg.face_part == k).sum())
                                                                            for k in range(seg.num_parts)],
                      "merged": [k for k, m in enumerate(meshes) if m is None],
                      "seconds": {"segment": round(t1 - t0, 3), "complete": round(t2 - t1, 3)}}}
    report(1.0, f"{len(parts)} parts")
    log.info("%s: %d parts (%s) in %.1f s", name, len(parts), ", ".join(p.label for p in parts), t2 - t0)
    return Asset(name, parts, metadata=meta, joints_known=False)
