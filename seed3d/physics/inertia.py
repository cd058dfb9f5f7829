"""Mass, centre of mass and inertia tensor of a part from its mesh × density.

The mesh is welded (UV seams closed), each closed shell is oriented outward (cavities inward) and the
volume integrals are summed over signed tetrahedra (one per face, apex at the vertex centroid), all
vectorised. A mesh that is not closed after welding is replaced by its convex hull (``source="hull"``,
with a warning). Flat, line-like or tiny parts are thickened / clamped to sane minimums and a warning
says so, so the tensor is never singular and always satisfies the triangle inequality.
"""

from __future__ import annotations

import logging

import numpy as np

from seed3d.asset import Inertial, Mesh
from seed3d.errors import InvalidInputError
from seed3d.physics import _geometry as geo
from seed3d.typed import FloatArray, IntArray

logger = logging.getLogger(__name__)

#: Parts thinner than this (meters) along a principal axis are treated as this thick.
MIN_THICKNESS = 1e-3
#: Smallest mass (kg) handed to a simulator; lighter parts are scaled up to it (with a warning).
MIN_MASS = 1e-6
#: Smallest principal moment (kg·m²); smaller ones are raised to it (with a warning).
MIN_INERTIA = 1e-10
#: Smallest ratio of the smallest to the largest principal moment (keeps the tensor well conditioned).
MIN_INERTIA_RATIO = 1e-6


def mass_properties(vertices: FloatArray, faces: IntArray, density: float) -> tuple[float, FloatArray, FloatArray]:
    """Mass, centre of mass and inertia about the centre of mass of a closed, outward-oriented mesh.

    Signed-tetrahedron integration: each face (a, b, c) with the apex at the vertex centroid adds
    volume det/6, first moment det/24·(a+b+c) and second moment det/120·(aaᵀ+bbᵀ+ccᵀ+ssᵀ), s = a+b+c.
    """
    ref = vertices.mean(axis=0)
    a = vertices[faces[:, 0]] - ref
    b = vertices[faces[:, 1]] - ref
    c = vertices[faces[:, 2]] - ref
    det = np.einsum("ij,ij->i", a, np.cross(b, c))
    volume = det.sum() / 6.0
    s = a + b + c
    first = (det[:, None] * s).sum(axis=0) / 24.0
    second = np.einsum("i,ij,ik->jk", det, a, a) + np.einsum("i,ij,ik->jk", det, b, b) + np.einsum(
        "i,ij,ik->jk", det, c, c) + np.einsum("i,ij,ik->jk", det, s, s)
    second /= 120.0
    if not volume > 0:
        return 0.0, ref.copy(), np.zeros((3, 3))
    d = first / volume
    cov = second - volume * np.outer(d, d)
    inertia = density * (np.trace(cov) * np.eye(3) - cov)
    inertia = (inertia + inertia.T) / 2.0
    return float(density * volume), ref + d, inertia


def _box_properties(extents: FloatArray, axes: FloatArray, density: float) -> tuple[float, FloatArray]:
    mass = density * float(np.prod(extents))
    x2, y2, z2 = np.asarray(extents) ** 2
    local = mass / 12.0 * np.diag([y2 + z2, x2 + z2, x2 + y2])
    return mass, axes.T @ local @ axes


def inertia_problems(mass: float, com: FloatArray, inertia: FloatArray) -> list[str]:
    """What is physically wrong with an inertial (empty list when nothing is).

    Checks: finite positive mass; finite 3-vector centre of mass; finite, symmetric, positive-definite
    3×3 tensor whose principal moments satisfy the triangle inequality (A + B ≥ C for every order).
    """
    problems: list[str] = []
    try:
        mass = float(mass)
    except (TypeError, ValueError):
        return [f"mass {mass!r} is not a number"]
    if not np.isfinite(mass) or mass <= 0:
        problems.append(f"mass must be finite and positive, got {mass}")
    com_arr = np.asarray(com, dtype=np.float64)
    if com_arr.shape != (3,) or not np.all(np.isfinite(com_arr)):
        problems.append(f"centre of mass must be 3 finite numbers, got {com_arr.tolist()}")
    tensor = np.asarray(inertia, dtype=np.float64)
    if tensor.shape != (3, 3):
        return [*problems, f"inertia must be a 3×3 tensor, got shape {tensor.shape}"]
    if not np.all(np.isfinite(tensor)):
        return [*problems, "inertia tensor has non-finite entries"]
    scale = float(np.abs(tensor).max())
    if float(np.abs(tensor - tensor.T).max()) > 1e-9 * max(scale, 1e-300):
        problems.append("inertia tensor is not symmetric")
    moments = np.linalg.eigvalsh((tensor + tensor.T) / 2.0)
    if not moments[0] > 0:
        problems.append(f"inertia tensor is not positive definite (principal moments {moments.tolist()})")
    elif moments[0] + moments[1] < moments[2] * (1.0 - 1e-9):
        problems.append(f"principal moments {moments.tolist()} violate the triangle inequality (A + B ≥ C)")
    return problems


def _clamp(mass: float, com: FloatArray, inertia: FloatArray, warnings: list[str],
           min_mass: float, min_inertia: float) -> Inertial | None:
    """Raise too small masses / moments; returns None when the input cannot be repaired."""
    if not (np.isfinite(mass) and mass > 0 and np.all(np.isfinite(inertia))):
        return None
    if mass < min_mass:
        warnings.append(f"mass {mass:.3g} kg is below the minimum {min_mass:g} kg (a tiny part); raised to it")
        inertia = inertia * (min_mass / mass)
        mass = min_mass
    moments, rot = np.linalg.eigh((inertia + inertia.T) / 2.0)
    floor = max(min_inertia, MIN_INERTIA_RATIO * float(moments[-1]))
    if moments[0] < floor:
        warnings.append(f"smallest principal moment {moments[0]:.3g} kg·m² raised to {floor:.3g} "
                        "(a tiny or needle-like part)")
        moments = np.maximum(moments, floor)
        inertia = rot @ np.diag(moments) @ rot.T
        inertia = (inertia + inertia.T) / 2.0
    return Inertial(mass, com, inertia)


def compute_inertial(mesh: Mesh, density: float, warnings: list[str] | None = None, *,
                     min_thickness: float = MIN_THICKNESS, min_mass: float = MIN_MASS,
                     min_inertia: float = MIN_INERTIA) -> Inertial:
    """Mass properties of ``mesh`` (asset frame) filled with material of ``density`` kg/m³.

    ``source`` is ``"mesh"`` for a mesh that is closed after welding, ``"hull"`` when its convex hull
    (or, for a flat mesh, a thin principal-axes box) had to stand in. Anything approximated or clamped
    is described in ``warnings`` (appended to when given) and logged.
    """
    density = float(density)
    if not np.isfinite(density) or density <= 0:
        raise InvalidInputError(f"density must be a positive number of kg/m³, got {density}")
    if not len(mesh.faces):
        raise InvalidInputError("cannot compute mass properties of a mesh without faces")
    notes: list[str] = []
    vertices, faces = geo.weld(mesh.vertices, mesh.faces)
    result: Inertial | None = None
    if len(faces) and geo.is_closed(faces, len(vertices)):
        faces, oriented = geo.orient_outward(vertices, faces)
        if oriented:
            mass, com, inertia = mass_properties(vertices, faces, density)
            if mass > 0:
                result = _clamp(mass, com, inertia, notes, min_mass, min_inertia)
                if result is not None and inertia_problems(result.mass, result.com, result.inertia):
                    result = None
            if result is None:
                notes.append("closed mesh encloses no usable volume; used its convex hull")
        else:
            notes.append("mesh is closed but its faces cannot be oriented coherently; used its convex hull")
    else:
        notes.append("mesh is not watertight (open after welding seams); mass properties from its convex hull")
    if result is None:
        points = vertices if len(vertices) else mesh.vertices
        hull = geo.convex_hull(points)
        centre, axes, extents = geo.pca_box(points, min_thickness)
        if hull is not None and float(np.min(extents)) > min_thickness:
            mass, com, inertia = mass_properties(hull[0], hull[1], density)
            result = _clamp(mass, com, inertia, notes, min_mass, min_inertia)
        if result is None or inertia_problems(result.mass, result.com, result.inertia):
            notes.append(f"part is flat or degenerate (principal extents {np.round(extents, 6).tolist()} m); "
                         f"mass properties of a box at least {min_thickness * 1000:g} mm thick")
            mass, inertia = _box_properties(extents, axes, density)
            result = _clamp(mass, centre, inertia, notes, min_mass, min_inertia)
            assert result is not None  # the box has positive extents
        result.source = "hull"
    else:
        result.source = "mesh"
    for note in notes:
        logger.warning(note)
    if warnings is not None:
        warnings.extend(notes)
    return result
