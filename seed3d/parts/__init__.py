"""Part decomposition: a mesh in, labelled closed parts out (joints unknown; ``seed3d.articulation`` adds them).

``segment`` (the point-prompted segmenter and automatic segmentation), ``complete`` (every cut part made closed,
with the hidden geometry it needs to move), ``shell`` (the merged shell of an asset's parts, the ground truth of
evaluation) and ``train`` (training the segmenter on ``seed3d data build`` shards).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from seed3d.asset import Asset, Mesh, Part
from seed3d.typed import ProgressCallback

if TYPE_CHECKING:
    from seed3d.parts.complete import CompletionConfig
    from seed3d.parts.segment import MeshSegmentation, Segmenter

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


#: A closed component of the input holding at least this share of its area counts as a body of its own.
BODY_SHARE = 0.01
#: The label of a body other than the largest that the segmenter saw only body in: a part of no known kind, which
#: articulation moves by its shape and its clearance (``RuleReasoner``'s generic rule), never as structure.
OTHER_BODY = "part"
#: The closed bodies must hold at least this share of the input's area for ``by_bodies`` to apply.
BODIES_COVER = 0.95


#: A segmenter part with more than this share of its area off its main body spans two bodies.
SPAN_SHARE = 0.05
#: The segmenter's cut of a mesh of several bodies is kept when no part spans two bodies, only the largest body is
#: cut, and it has at most this many parts per body (the frame with a handle or a knob of its own is two);
#: otherwise ``by_bodies`` replaces it.
PARTS_PER_BODY = 2
#: A body whose thinnest principal extent is at most this share of its middle one is a panel.
PANEL_SHARE = 0.25


def _unnamed(subs: list[Any], body_of: np.ndarray, k: int) -> str:
    """The label of body ``k`` that the segmenter saw only body in: ``door`` for a panel (it hinges on an edge),
    else ``OTHER_BODY``."""
    points = np.concatenate([np.asarray(m.vertices) for c, m in enumerate(subs) if body_of[c] == k])
    extents = np.sort(np.ptp((points - points.mean(axis=0)) @ np.linalg.svd(points - points.mean(axis=0),
                                                                         full_matrices=False)[2].T, axis=0))
    return "door" if extents[0] <= PANEL_SHARE * extents[1] else OTHER_BODY


def by_bodies(mesh: Mesh, seg: MeshSegmentation) -> list[tuple[Mesh, str]] | None:
    """One closed part per body when ``mesh`` is made of several (None otherwise), with its label.

    A mesh of two or more closed, separate components (a CAD export of a cabinet and its drawer, a frame and its
    sash) holds one rigid solid in each. When the segmenter's cut disagrees with them (a part spans two bodies, a
    body other than the largest is cut in pieces — a press's handle cut in two —, or there are more than
    ``PARTS_PER_BODY`` parts per body: a frame cut in 15 pieces), its cuts are undone and each body is one part.
    The largest body is ``body``; each other takes the label of most of its area in ``seg`` other than ``body``
    (when it has none: ``door`` for a panel, else ``OTHER_BODY``); components under ``BODY_SHARE`` of the area
    (screws, loose bits) join the nearest body. A single shell (what the geometry stage generates) is left to the
    segmenter, as is a mesh whose closed bodies hold under ``BODIES_COVER`` of its area."""
    import trimesh
    from scipy.spatial import cKDTree

    tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=True)
    if len(tm.faces) < 8:
        return None
    comp = np.full(len(tm.faces), -1, np.int64)
    for c, faces in enumerate(trimesh.graph.connected_components(tm.face_adjacency, nodes=np.arange(len(tm.faces)),
                                                                 min_len=1)):
        comp[faces] = c
    count = int(comp.max()) + 1
    if count < 2:
        return None
    area = np.asarray(tm.area_faces)
    comp_area = np.bincount(comp, weights=area, minlength=count)
    total = float(area.sum())
    subs = [tm.submesh([np.flatnonzero(comp == c)], append=True) for c in range(count)]
    closed = np.array([bool(m.is_watertight) for m in subs])
    big = np.flatnonzero(comp_area >= BODY_SHARE * total)
    if len(big) < 2 or float(comp_area[big][closed[big]].sum()) < BODIES_COVER * total:
        return None
    centres = np.asarray(tm.triangles_center)
    body_of = np.full(count, -1, np.int64)
    body_of[big] = np.arange(len(big))
    for c in np.flatnonzero(body_of < 0):  # small bits join the nearest body
        here = centres[comp == c].mean(axis=0)
        body_of[c] = int(np.argmin([float(np.linalg.norm(centres[comp == b] - here, axis=1).min()) for b in big]))
    face_body = body_of[comp]
    # the segmenter's faces (of its subdivided shell) lie on the input's: each goes to the nearest input face's body
    seg_tm = trimesh.Trimesh(seg.mesh.vertices, seg.mesh.faces, process=False)
    nearest = cKDTree(centres).query(np.asarray(seg_tm.triangles_center))[1]
    seg_body = face_body[nearest]
    seg_area = np.asarray(seg_tm.area_faces)
    table = np.zeros((seg.num_parts, len(big)))
    np.add.at(table, (seg.face_part, seg_body), seg_area)
    spans = table.max(axis=1) < (1.0 - SPAN_SHARE) * table.sum(axis=1)
    largest = int(np.argmax(comp_area[big]))
    # the parts holding a share of a body's area; a body other than the largest is one rigid piece (a handle, a
    # sash, a drawer), so a cut through it is not kept
    pieces = (table >= SPAN_SHARE * np.maximum(table.sum(axis=0), 1e-12)).sum(axis=0)
    split = bool(np.delete(pieces, largest).max(initial=0) > 1)
    if not spans.any() and not split and seg.num_parts <= PARTS_PER_BODY * len(big):
        return None  # the segmenter's cut agrees with the bodies: kept
    labels = []
    for k in range(len(big)):
        here = seg_body == k
        share = np.bincount(seg.face_part[here], weights=seg_area[here], minlength=seg.num_parts)
        votes: dict[str, float] = {}
        for part, weight in enumerate(share):
            votes[seg.labels[part]] = votes.get(seg.labels[part], 0.0) + float(weight)
        if k != largest:  # a second body is not the structure: what else the segmenter saw in it names it
            votes = {label: v for label, v in votes.items() if label != "body" and v > 0}
        labels.append(max(votes, key=lambda label: votes[label]) if votes else _unnamed(subs, body_of, k))
    labels[largest] = "body"
    out = []
    for k in range(len(big)):
        piece = tm.submesh([np.flatnonzero(face_body == k)], append=True)
        out.append((Mesh(np.asarray(piece.vertices), np.asarray(piece.faces)), labels[k]))
    order = sorted(range(len(out)), key=lambda k: (out[k][1] != "body", -comp_area[big[k]]))
    return [out[k] for k in order]


def decompose(mesh: Mesh, segmenter: Segmenter, name: str = "asset", num_parts: int | None = None,
              completion: CompletionConfig | None = None, progress: ProgressCallback | None = None,
              target_faces: int | None = None, bodies: bool = False) -> Asset:
    """Segment ``mesh`` with a ``segment.Segmenter``, complete every part, and return them as an ``Asset`` whose
    joints are unknown (``joints_known=False``), each part of its label's likeliest material, made lighter when the
    completed part holds more volume than its label's wall allows (``Segmenter.physical``); ``num_parts`` fixes
    the number of parts (a cut part with no area to complete joins the body, and a thin sheet left inside a part's
    completed volume joins that part, so there may be fewer; ``metadata["parts"]["merged"]`` lists them).

    The segmenter subdivides long faces so that cuts can run between them; when the completed parts hold more than
    ``target_faces`` faces in all, each part over its share (in proportion to its faces, at least
    ``MIN_PART_FACES``) is decimated to it, staying closed. With ``bodies`` (and no ``num_parts``), a mesh of several
    closed bodies gets one part per body (``by_bodies``)."""
    from seed3d.parts.complete import complete_parts
    from seed3d.parts.prior import beside

    report = progress or (lambda f, m: None)
    t0 = time.perf_counter()
    report(0.0, "segmenting")
    seg = segmenter.segment_mesh(mesh, num_parts, progress=lambda f, m: report(0.5 * f, m))
    whole = by_bodies(mesh, seg) if bodies and num_parts is None else None
    if whole is not None:
        log.info("%s: %d closed bodies; one part each instead of the segmenter's %d", name, len(whole),
                 seg.num_parts)
        labels = [label for _, label in whole]
        parts = [Part(n, m, label=label, physical=segmenter.physical(label, m, beside(labels, k)))
                 for k, (n, (m, label)) in enumerate(zip(part_names(labels), whole, strict=True))]
        meta = {"parts": {"labels": labels, "bodies": True, "segmenter_labels": seg.labels,
                          "seconds": {"segment": round(time.perf_counter() - t0, 3), "complete": 0.0}}}
        report(1.0, f"{len(parts)} parts")
        return Asset(name, parts, metadata=meta, joints_known=False)
    t1 = time.perf_counter()
    report(0.5, f"completing {seg.num_parts} parts")
    meshes = complete_parts(seg.mesh, seg.face_part, seg.labels, completion,
                            progress=lambda f, m: report(0.5 + 0.45 * f, m))
    if target_faces is not None:
        report(0.95, "decimating parts over the face budget")
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
