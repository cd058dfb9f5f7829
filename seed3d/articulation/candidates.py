"""Geometric operators of the articulation stage: part shapes, contacts between parts and candidate axes.

``Analysis(asset)`` samples every part's surface once and answers, lazily and cached:

- ``shape(part)``: oriented box, centroid, area, rotational symmetry (axis, centre, error);
- ``contact(a, b)``: how part ``a`` touches part ``b``: smallest surface distance, the contact patch on ``a``
  (its area, centroid, the contact normal from the gap vectors, the axis its normals turn round when it is a
  collar, a hub or a sleeve), and a class — ``flush`` (glued or resting: gap below ``flush_gap``),
  ``clearance`` (a running fit: gap up to ``clearance_gap``) or ``apart``;
- ``candidates(part, parent)``: candidate joint axes, each a direction, a pivot point, where it came from and a
  score: the contact plane normal, the axis of a cylindrical contact (a collar or a sleeve), the symmetry axis
  of a revolved part, the box axes through the centre, the twelve box edges and the principal axes.

Distances are exact point-to-triangle distances (open3d ray-casting scene) from area-weighted surface samples
plus the mesh vertices, so sharp corners are not missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from seed3d.articulation._geometry import (
    Box,
    DistanceField,
    Samples,
    canonical_sign,
    circle_centre,
    face_areas_normals,
    oriented_box,
    plane_basis,
    principal_axes,
    sample_surface,
    snap,
    stable_seed,
    symmetry_error,
    unit,
)
from seed3d.asset import Asset, Mesh, Part
from seed3d.typed import FloatArray

#: Contact classes.
FLUSH, CLEARANCE, APART = "flush", "clearance", "apart"


@dataclass
class AnalysisConfig:
    """Sampling density and the gaps that tell glued parts from moving ones."""

    spacing: float = 0.004
    """Target distance (m) between surface samples; counts are clipped to [min_samples, max_samples]."""
    min_samples: int = 400
    max_samples: int = 4000
    flush_gap: float = 0.0007
    """Parts closer than this (m) touch: glued, screwed on or resting (a handle on a door, a leg under a top)."""
    clearance_gap: float = 0.016
    """Parts apart by at most this (m) but more than ``flush_gap`` have a running clearance (a drawer in its
    carcass, a dial in front of its panel, a drum in its tub); farther parts do not touch."""
    patch_band: float = 0.0015
    """The contact patch is the surface within ``distance + max(patch_band, 0.3 distance)`` of the other part."""
    patch_samples: int = 300
    """A contact patch with fewer samples than this is sampled again, densely, over the faces it lies on."""
    reach: float = 0.05
    """Pairs whose boxes are farther apart than this (m) get no exact contact analysis."""
    symmetry_tolerance: float = 0.012
    """A part is a solid of revolution about an axis when ``symmetry_error`` is below this."""


@dataclass
class Shape:
    """What one part looks like: samples, oriented box, centroid, area and rotational symmetry."""

    name: str
    label: str
    samples: Samples
    box: Box
    centroid: FloatArray
    area: float
    symmetry_axis: FloatArray | None = None
    symmetry_centre: FloatArray | None = None
    symmetry_error: float = float("inf")

    @property
    def size(self) -> float:
        """Diagonal of the part's oriented box (m)."""
        return self.box.diagonal

    @property
    def symmetric(self) -> bool:
        """Whether a rotational symmetry axis was found."""
        return self.symmetry_axis is not None

    def long_axis(self, ratio: float = 1.8) -> FloatArray | None:
        """The box axis of the longest extent when it is at least ``ratio`` times the next one (else None)."""
        order = self.box.order()
        e = self.box.extents
        if e[order[2]] >= ratio * max(e[order[1]], 1e-9):
            return self.box.axes[order[2]]
        return None


@dataclass
class Contact:
    """How part ``part`` touches part ``other`` (seen from ``part``)."""

    part: str
    other: str
    distance: float
    """Smallest surface distance (m); 0 when they touch or overlap."""
    area: float
    """Area (m²) of ``part``'s contact patch."""
    centroid: FloatArray
    normal: FloatArray
    """Unit contact normal pointing from ``other`` towards ``part``: the mean surface normal of the patch samples
    closest to ``other`` (zero when they cancel)."""
    normal_strength: float
    """Length of the mean normal over the whole patch: 1 for a flat patch, near 0 for a sleeve all round."""
    spread: FloatArray
    """Eigenvalues (ascending) of the patch normals' scatter matrix."""
    spread_axes: FloatArray
    """The matching eigenvectors (rows)."""
    cylinder_axis: FloatArray | None
    points: FloatArray = field(repr=False)
    normals: FloatArray = field(repr=False)
    """Outward normals of ``part`` at ``points``."""
    flush_gap: float = 0.0007
    clearance_gap: float = 0.016

    @property
    def kind(self) -> str:
        """``flush``, ``clearance`` or ``apart`` (see ``AnalysisConfig``)."""
        if self.distance <= self.flush_gap:
            return FLUSH
        if self.distance <= self.clearance_gap:
            return CLEARANCE
        return APART

    @property
    def cylindrical(self) -> bool:
        """True when the patch normals sweep round one axis (a collar, a hub, a sleeve): see ``cylinder_axis``."""
        return self.cylinder_axis is not None

    @property
    def score(self) -> float:
        """How strongly the parts are joined: patch area over (gap + 1 mm)."""
        return self.area / (self.distance + 0.001)

    def summary(self) -> dict[str, Any]:
        """JSON-able facts (for reports and VLM prompts)."""
        return {"other": self.other, "gap_mm": round(1000 * self.distance, 2), "kind": self.kind,
                "area_cm2": round(1e4 * self.area, 3), "centroid": _r(self.centroid), "normal": _r(self.normal),
                "cylindrical": self.cylindrical}


@dataclass
class Candidate:
    """A candidate joint axis: a unit direction through a pivot, where it came from and how strongly."""

    index: int
    direction: FloatArray
    pivot: FloatArray
    source: str
    score: float = 0.5

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (rounded), as shown to a VLM."""
        return {"index": self.index, "direction": _r(self.direction, 4), "pivot": _r(self.pivot, 4),
                "source": self.source, "score": round(float(self.score), 3)}


def _r(v: FloatArray, nd: int = 4) -> list[float]:
    return [round(float(x), nd) + 0.0 for x in np.asarray(v).reshape(-1)]


class Analysis:
    """Shapes and contacts of an asset's parts, computed once and cached (see the module docstring)."""

    def __init__(self, asset: Asset, config: AnalysisConfig | None = None) -> None:
        self.asset = asset
        self.config = config or AnalysisConfig()
        self._parts = {p.name: p for p in asset.parts}
        self._shapes: dict[str, Shape] = {}
        self._fields: dict[str, DistanceField] = {}
        self._contacts: dict[tuple[str, str], Contact | None] = {}
        self._bounds = {p.name: p.mesh.bounds for p in asset.parts}

    # ---- shapes
    def part(self, name: str) -> Part:
        """The part called ``name``."""
        return self._parts[name]

    def shape(self, name: str) -> Shape:
        """The cached ``Shape`` of a part."""
        if name not in self._shapes:
            self._shapes[name] = self._make_shape(self._parts[name])
        return self._shapes[name]

    def union_shape(self, name: str, others: Sequence[str]) -> Shape:
        """The ``Shape`` of part ``name`` together with ``others`` (pieces of it glued on), under its name and label."""
        if not others:
            return self.shape(name)
        key = "+".join([name, *sorted(others)])
        if key not in self._shapes:
            mesh = Mesh.concatenate([self._parts[n].mesh for n in (name, *others)])
            self._shapes[key] = self._make_shape(Part(name, mesh, label=self._parts[name].label))
        return self._shapes[key]

    def _make_shape(self, part: Part) -> Shape:
        cfg = self.config
        area = float(face_areas_normals(part.mesh)[0].sum())
        count = int(np.clip(area / cfg.spacing**2, cfg.min_samples, cfg.max_samples))
        samples = sample_surface(part.mesh, count, stable_seed("articulation", part.name))
        pts = samples.points if len(samples.points) else part.mesh.vertices
        box = oriented_box(np.concatenate([pts, part.mesh.vertices]))
        centroid = pts.mean(axis=0) if len(pts) else box.centre
        shape = Shape(part.name, part.label, samples, box, centroid, area)
        self._find_symmetry(shape)
        return shape

    def _find_symmetry(self, shape: Shape) -> None:
        pts = shape.samples.points
        if len(pts) < 16:
            return
        sub = pts[:: max(1, len(pts) // 1500)]
        c, _, vecs = principal_axes(sub)
        tol = self.config.symmetry_tolerance
        # box axes first: they are exact for parts built or snapped along clean directions, where the principal
        # axes of random samples wander by a degree or two; a box axis within tolerance wins
        tried: list[tuple[FloatArray, FloatArray, float]] = []
        for a, centre in [(ax, shape.box.centre) for ax in shape.box.axes] + [(snap(v), c) for v in vecs]:
            if any(abs(float(a @ t[0])) > 0.999 for t in tried):
                continue
            tried.append((a, centre, symmetry_error(sub, centre, a, shape.size)))
        box_ok = [t for t in tried[:3] if t[2] <= tol]
        best = min(box_ok or tried, key=lambda t: t[2])
        shape.symmetry_error = float(best[2])
        if best[2] <= tol:
            shape.symmetry_axis = canonical_sign(best[0])
            shape.symmetry_centre = np.asarray(best[1], np.float64)

    # ---- contacts
    def field(self, name: str) -> DistanceField:
        """The cached distance field of a part's mesh."""
        if name not in self._fields:
            self._fields[name] = DistanceField(self._parts[name].mesh)
        return self._fields[name]

    def box_gap(self, a: str, b: str) -> float:
        """Gap (m) between the axis-aligned boxes of two parts (0 when they overlap)."""
        ba, bb = self._bounds[a], self._bounds[b]
        sep = np.maximum(ba[0] - bb[1], bb[0] - ba[1])
        return float(np.linalg.norm(np.maximum(sep, 0.0)))

    def contact(self, a: str, b: str) -> Contact | None:
        """How part ``a`` touches part ``b`` (None when their boxes are more than ``reach`` apart)."""
        key = (a, b)
        if key not in self._contacts:
            self._contacts[key] = None if self.box_gap(a, b) > self.config.reach else self._make_contact(a, b)
        return self._contacts[key]

    def distance(self, a: str, b: str) -> float:
        """Smallest surface distance between two parts (the box gap when they are out of reach)."""
        c = self.contact(a, b)
        return self.box_gap(a, b) if c is None else c.distance

    def _make_contact(self, a: str, b: str) -> Contact:
        cfg = self.config
        sa = self.shape(a)
        fb = self.field(b)
        d = fb.distance(sa.samples.points)
        dv = fb.distance(self._parts[a].mesh.vertices)
        # the other way too: b's vertices and samples near a (a corner of b on a face of a)
        sb = self.shape(b)
        fa = self.field(a)
        back = min(float(fa.distance(self._parts[b].mesh.vertices).min(initial=np.inf)),
                   float(fa.distance(sb.samples.points).min(initial=np.inf)))
        dmin = float(min(d.min(initial=np.inf), dv.min(initial=np.inf), back))
        band = max(cfg.patch_band, 0.3 * dmin)
        sel = d <= dmin + band
        if not np.any(sel):  # the closest point is a vertex between samples: take the nearest samples
            sel = d <= float(np.min(d)) + band
        samples = sa.samples
        if sel.sum() < cfg.patch_samples and samples.faces is not None:
            # a small patch on large faces: sample those faces densely for a sharper patch
            near = set(np.unique(samples.faces[sel]).tolist())
            vd = dv <= dmin + band  # faces with a vertex in the patch count too
            if vd.any():
                fv = self._parts[a].mesh.faces
                near |= set(np.flatnonzero(vd[fv].any(axis=1)).tolist())
            faces = np.array(sorted(near), np.int64)
            faces_area = float(face_areas_normals(self._parts[a].mesh)[0][faces].sum())
            patch_area = max(float(sel.sum()) * samples.weight, 1e-9)
            count = int(np.clip(4 * cfg.patch_samples * faces_area / patch_area, 4 * cfg.patch_samples, 50_000))
            dense = sample_surface(self._parts[a].mesh, count, stable_seed("patch", a, b), faces)
            dd = fb.distance(dense.points)
            keep = dd <= dmin + band
            if keep.sum() > sel.sum():
                samples, d, sel = dense, dd, keep
        pts, nrm = samples.points[sel], samples.normals[sel]
        mean = nrm.mean(axis=0)
        strength = float(np.linalg.norm(mean))
        # the direction of the contact comes from the closest samples only: on a curved patch (a ball or a
        # hub against a face) the mean over the whole patch tilts towards wherever the patch is wider
        k = max(8, len(pts) // 10)
        near = np.argsort(d[sel], kind="stable")[:k]
        closest = nrm[near].mean(axis=0)
        if dmin > 1e-4:  # apart: the gap vectors (from the other's closest points) are exact even on facets
            gaps = pts[near] - fb.closest(pts[near])
            lengths = np.linalg.norm(gaps, axis=1, keepdims=True)
            ok = lengths[:, 0] > 1e-6
            if ok.any():
                closest = -(gaps[ok] / lengths[ok]).mean(axis=0)
        cn = float(np.linalg.norm(closest))
        vals, vecs = np.linalg.eigh(nrm.T @ nrm / max(len(nrm), 1))
        vecs = vecs.T
        axis = cylinder_axis(nrm, list(vecs))
        return Contact(a, b, dmin, float(sel.sum() * samples.weight), pts.mean(axis=0),
                       -closest / cn if cn > 1e-9 else np.zeros(3), strength, vals, vecs, axis, pts, nrm,
                       cfg.flush_gap, cfg.clearance_gap)

    # ---- candidates
    def candidates(self, name: str, parent: str | None) -> list[Candidate]:
        """Candidate joint axes of part ``name`` relative to ``parent`` (see the module docstring)."""
        shape = self.shape(name)
        out: list[Candidate] = []

        def add(direction: FloatArray, pivot: FloatArray, source: str, score: float) -> None:
            d = snap(direction)
            if not np.any(d):
                return
            for c in out:  # the same line twice is one candidate (keep the first source)
                if abs(float(c.direction @ d)) > 0.9995 and np.linalg.norm(
                        np.cross(np.asarray(pivot) - c.pivot, d)) < 1e-4:
                    return
            out.append(Candidate(len(out), d, np.asarray(pivot, np.float64), source, float(score)))

        contact = self.contact(name, parent) if parent is not None else None
        if contact is not None:
            if contact.normal_strength > 1e-6:
                add(contact.normal, contact.centroid, "contact_normal", min(1.0, contact.normal_strength))
            if contact.cylinder_axis is not None:
                axis = contact.cylinder_axis
                band = np.abs(contact.normals @ axis) < 0.3
                pivot = cylinder_pivot(contact.points[band] if band.sum() >= 8 else contact.points, axis,
                                       contact.centroid)
                add(axis, pivot, "contact_cylinder", 0.8)
            elong = patch_long_axis(contact.points)
            if elong is not None:
                add(elong, contact.centroid, "contact_long_axis", 0.5)
        if shape.symmetric:
            add(shape.symmetry_axis, shape.symmetry_centre, "symmetry",  # type: ignore[arg-type]
                1.0 - shape.symmetry_error / self.config.symmetry_tolerance)
        box = shape.box
        for k in range(3):
            add(box.axes[k], box.centre, f"box_axis_{k}", 0.4)
        for k in range(3):
            i, j = [m for m in range(3) if m != k]
            for si in (-1, 1):
                for sj in (-1, 1):
                    p = box.centre + si * box.extents[i] / 2 * box.axes[i] + sj * box.extents[j] / 2 * box.axes[j]
                    add(box.axes[k], p, f"box_edge_{k}{'-+'[si > 0]}{'-+'[sj > 0]}", 0.3)
        c, _, vecs = principal_axes(shape.samples.points) if len(shape.samples.points) > 3 else (
            box.centre, None, box.axes)
        for k, a in enumerate(vecs):
            add(a, c, f"principal_{k}", 0.2)
        return out


def cylinder_axis(normals: FloatArray, tries: list[FloatArray], tolerance: float = 0.02) -> FloatArray | None:
    """The axis a patch's normals turn round, if they do (a collar, a hub, a sleeve), else None.

    On a cylinder about ``a`` (with its end caps) every normal is either across ``a`` (the band) or along it (a
    cap), so ``min((n·a)², 1 − (n·a)²)`` is about 0 for each; the best of ``tries`` (and the world axes) wins
    when that mean is below ``tolerance`` and the band normals really turn (spread over 40° or more).
    """
    if len(normals) < 8:
        return None
    best, score = None, float("inf")
    for a in [*tries, *np.eye(3)]:
        a = unit(a)
        c2 = (normals @ a) ** 2
        s = float(np.mean(np.minimum(c2, 1.0 - c2)))
        if s < score - 1e-9:
            best, score = a, s
    if best is None or score > tolerance:
        return None
    band = normals[np.abs(normals @ best) < 0.3]
    if len(band) < 8:
        return None
    across = band - np.outer(band @ best, best)
    vals = np.linalg.eigvalsh(across.T @ across / len(band))
    return snap(best) if vals[1] > 0.04 else None


def cylinder_pivot(points: FloatArray, axis: FloatArray, centroid: FloatArray) -> FloatArray:
    """Centre of the circle the patch ``points`` lie on (projected along ``axis``), at the centroid's height."""
    basis = plane_basis(axis)
    rel = points - centroid
    centre2, _, _ = circle_centre(rel @ basis.T)
    return centroid + centre2 @ basis


def patch_long_axis(points: FloatArray, ratio: float = 2.5) -> FloatArray | None:
    """The direction a contact patch is long in (a hinge line, a hub resting on a post), if it is elongated."""
    if len(points) < 6:
        return None
    _, vals, vecs = principal_axes(points)
    if vals[2] > ratio**2 * max(vals[1], 1e-12):
        return unit(vecs[2])
    return None


def barrel_centre(points: FloatArray, normals: FloatArray, axis: FloatArray, near: FloatArray, reach: float,
                  max_radius: float, min_radius: float = 0.002) -> FloatArray | None:
    """Centre (on the line through it along ``axis``) of the round barrel or knuckle nearest ``near`` on a part's
    surface, or None when there is none within ``reach``.

    A Hough vote: every sample within ``reach`` of ``near`` whose normal runs across ``axis`` points, from its
    outward normal, at the centre of a circle of radius r through it; over radii from ``min_radius`` to
    ``max_radius``, the centre most samples agree on wins when their normals cover at least a third of the circle
    (a flat face or a corner agrees on no single point over such a spread of directions)."""
    from scipy.spatial import cKDTree

    a = unit(axis)
    sel = (np.linalg.norm(points - near, axis=1) <= reach) & (np.abs(normals @ a) < 0.2)
    if sel.sum() < 12 or max_radius <= min_radius:
        return None
    basis = plane_basis(a)
    p2 = (points[sel] - near) @ basis.T
    n2 = normals[sel] @ basis.T
    n2 = n2 / np.maximum(np.linalg.norm(n2, axis=1, keepdims=True), 1e-12)
    angle = np.arctan2(n2[:, 1], n2[:, 0])
    best: tuple[int, FloatArray] | None = None
    for r in np.geomspace(min_radius, max_radius, 24):
        q = p2 - r * n2
        tol = max(0.1 * r, 0.0005)
        counts = np.array([len(x) for x in cKDTree(q).query_ball_point(q, tol)])
        k = int(np.argmax(counts))
        members = np.linalg.norm(q - q[k], axis=1) <= tol
        bins = np.unique(np.floor((angle[members] + np.pi) / (np.pi / 6)).astype(int) % 12)
        if len(bins) >= 4 and (best is None or int(members.sum()) > best[0]):
            best = (int(members.sum()), q[members].mean(axis=0))
    if best is None:
        return None
    return near + best[1] @ basis


def curvature_pivot(points: FloatArray, axis: FloatArray, near: FloatArray, radius: float,
                    max_radius: float, sphere: bool = False) -> FloatArray | None:
    """Centre of the round surface near ``near`` (a knuckle, a hub), or None when it is flat or irregular.

    The points within ``radius`` of ``near`` are fitted with a sphere (when ``sphere``; a ball joint) and else
    with a circle after projection along ``axis`` (a cylinder about the axis); a fit is kept when it is tight
    (RMS below 8 % of its radius) and small (radius up to ``max_radius``).
    """
    sel = np.linalg.norm(points - near, axis=1) <= radius
    if sel.sum() < 12:
        return None
    pts = points[sel]
    if sphere:
        centre, r, res = sphere_fit(pts)
        if 0 < r <= max_radius and res <= 0.08 * r:
            return centre
    basis = plane_basis(axis)
    rel = pts - near
    centre2, r, res = circle_centre(rel @ basis.T)
    if not (0 < r <= max_radius) or res > 0.08 * r:
        return None
    return near + centre2 @ basis


def sphere_fit(points: FloatArray) -> tuple[FloatArray, float, float]:
    """Least-squares sphere through 3-D points: centre, radius and RMS residual."""
    a = np.concatenate([2 * points, np.ones((len(points), 1))], axis=1)
    b = (points**2).sum(axis=1)
    sol, *_ = np.linalg.lstsq(a, b, rcond=None)
    c = sol[:3]
    r = float(np.sqrt(max(sol[3] + c @ c, 0.0)))
    res = float(np.sqrt(np.mean((np.linalg.norm(points - c, axis=1) - r) ** 2)))
    return c, r, res
