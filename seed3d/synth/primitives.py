"""Watertight primitives, exact booleans (manifold3d) and a reference articulated cabinet built from them."""

from __future__ import annotations

import numpy as np

from seed3d.asset import Asset, Joint, Mesh, Part, PBRMaterial, PhysicalMaterial
from seed3d.typed import FloatArray, UInt8Array

# Unit-cube corners and the 6 faces as quads (outward, counter-clockwise seen from outside).
_CUBE_FACES = (
    ((1, 0, 0), [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)]),
    ((-1, 0, 0), [(0, 1, 0), (0, 0, 0), (0, 0, 1), (0, 1, 1)]),
    ((0, 1, 0), [(1, 1, 0), (0, 1, 0), (0, 1, 1), (1, 1, 1)]),
    ((0, -1, 0), [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)]),
    ((0, 0, 1), [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]),
    ((0, 0, -1), [(0, 1, 0), (1, 1, 0), (1, 0, 0), (0, 0, 0)]),
)


def box(lo: FloatArray, hi: FloatArray, uv: bool = False) -> Mesh:
    """An axis-aligned closed box from corner ``lo`` to ``hi``.

    With ``uv`` each face gets its own 4 vertices and a full [0, 1]² chart (24 vertices, still closed
    geometrically but not index-welded); without, 8 shared vertices (watertight by index).
    """
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    if np.any(hi <= lo):
        raise ValueError(f"box needs hi > lo on every axis, got lo={lo}, hi={hi}")
    size = hi - lo
    if uv:
        quads = np.array([q for _, q in _CUBE_FACES], np.float64)  # (6, 4, 3)
        verts = (lo + quads * size).reshape(-1, 3)
        base = np.arange(6)[:, None] * 4
        faces = np.concatenate([base + [0, 1, 2], base + [0, 2, 3]], axis=1).reshape(-1, 3)
        uvs = np.tile(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64), (6, 1))
        return Mesh(verts, faces, uvs)
    corners = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], np.float64)
    index = {tuple(c.astype(int)): n for n, c in enumerate(corners)}
    faces = []
    for _, quad in _CUBE_FACES:
        a, b, c, d = (index[q] for q in quad)
        faces += [(a, b, c), (a, c, d)]
    return Mesh(lo + corners * size, np.array(faces))


def _to_manifold(mesh: Mesh):  # type: ignore[no-untyped-def]
    import manifold3d

    return manifold3d.Manifold(manifold3d.Mesh64(
        vert_properties=mesh.vertices.astype(np.float64), tri_verts=mesh.faces.astype(np.uint64)))


def _from_manifold(man) -> Mesh:  # type: ignore[no-untyped-def]
    out = man.to_mesh64()
    return Mesh(np.asarray(out.vert_properties, np.float64)[:, :3], np.asarray(out.tri_verts, np.int64))


def difference(a: Mesh, *cutters: Mesh) -> Mesh:
    """Exact boolean ``a`` minus every cutter; the result is one closed, consistently oriented mesh."""
    result = _to_manifold(a)
    for c in cutters:
        result = result - _to_manifold(c)
    return _from_manifold(result)


def union(*meshes: Mesh) -> Mesh:
    """Exact boolean union of closed meshes."""
    result = _to_manifold(meshes[0])
    for m in meshes[1:]:
        result = result + _to_manifold(m)
    return _from_manifold(result)


def wood_textures(size: int = 64, seed: int = 0) -> tuple[UInt8Array, UInt8Array]:
    """A small procedural wood-grain base-colour map and its metallic-roughness map (G=rough, B=metal)."""
    rng = np.random.default_rng(seed)
    v, u = np.mgrid[0:size, 0:size] / size
    rings = np.sin((u * 9 + 0.6 * np.sin(v * 7 + rng.uniform(0, 6))) * np.pi * 2) * 0.5 + 0.5
    tone = 0.55 + 0.25 * rings[..., None]
    color = np.array([0.72, 0.48, 0.28]) * tone
    base = (np.clip(color, 0, 1) * 255).astype(np.uint8)
    mr = np.zeros((size, size, 3), np.uint8)
    mr[..., 1] = (150 + 60 * rings).astype(np.uint8)  # roughness 0.59 to 0.82
    mr[..., 2] = 0  # wood is not metallic
    return base, mr


def demo_cabinet(width: float = 0.6, depth: float = 0.45, height: float = 0.8,
                 wall: float = 0.018, gap: float = 0.003) -> Asset:
    """A wooden cabinet with a hinged, textured door (with a handle) above a sliding drawer.

    Front faces +X, origin at the centre of the bottom. The door is hinged on its left edge (seen from the
    front, -Y) and opens outward to 110°; the drawer slides out along +X by 80 % of its depth.
    """
    d2, w2 = depth / 2, width / 2
    split = height * 0.4  # top of the drawer compartment
    body = difference(
        box([-d2, -w2, 0], [d2, w2, height]),
        box([-d2 + wall, -w2 + wall, split + wall / 2], [d2 + 0.01, w2 - wall, height - wall]),
        box([-d2 + wall, -w2 + wall, wall], [d2 + 0.01, w2 - wall, split - wall / 2]),
    )
    # Door: a textured slab in front of the upper compartment, hinge line on its back-left edge.
    door_x0 = d2 + gap
    door = box([door_x0, -w2 + gap, split + gap], [door_x0 + wall, w2 - gap, height - gap], uv=True)
    handle = box([door_x0 + wall, w2 - 0.07, height - 0.2], [door_x0 + wall + 0.025, w2 - 0.05, height - 0.08])
    # Drawer: an open-top tray behind a front panel, inside the lower compartment with clearance.
    in_lo = np.array([-d2 + wall + gap, -w2 + wall + gap, wall + gap])
    in_hi = np.array([d2 - gap, w2 - wall - gap, split - wall / 2 - gap])
    tray = difference(box(in_lo, in_hi), box(in_lo + [wall, wall, wall], in_hi - [wall, wall, -0.01]))
    front = box([d2 + gap, -w2 + gap, gap], [d2 + gap + wall, w2 - gap, split - gap])
    drawer = union(tray, front)
    knob = box([d2 + gap + wall, -0.04, split / 2 - 0.015], [d2 + gap + wall + 0.025, 0.04, split / 2 + 0.015])

    wood_map, wood_mr = wood_textures()
    oak = PhysicalMaterial("wood", density=700.0, friction=0.5, restitution=0.2)
    steel = PhysicalMaterial("steel", density=7850.0, friction=0.4, restitution=0.3)
    wood = PBRMaterial("oak", (0.75, 0.55, 0.35, 1.0), metallic=0.0, roughness=0.7)
    wood_tex = PBRMaterial("oak_textured", (1.0, 1.0, 1.0, 1.0), metallic=1.0, roughness=1.0,
                           base_color_map=wood_map, metallic_roughness_map=wood_mr)
    metal = PBRMaterial("brushed_steel", (0.8, 0.8, 0.82, 1.0), metallic=1.0, roughness=0.35)
    parts = [
        Part("body", body, "body", wood, oak),
        Part("door", door, "door", wood_tex, oak),
        Part("door_handle", handle, "handle", metal, steel),
        Part("drawer", drawer, "drawer", wood, oak),
        Part("drawer_knob", knob, "knob", metal, steel),
    ]
    joints = [
        Joint("door_hinge", "revolute", "body", "door", origin=[door_x0, -w2 + gap, split + gap],
              axis=[0, 0, -1], lower=0.0, upper=np.deg2rad(110.0), damping=0.5, friction=0.2),
        Joint("door_handle_mount", "fixed", "door", "door_handle", origin=[door_x0 + wall, w2 - 0.06, height - 0.14]),
        Joint("drawer_slide", "prismatic", "body", "drawer", origin=[d2, 0.0, split / 2], axis=[1, 0, 0],
              lower=0.0, upper=0.8 * (in_hi[0] - in_lo[0]), damping=5.0, friction=0.5),
        Joint("drawer_knob_mount", "fixed", "drawer", "drawer_knob", origin=[d2 + gap + wall, 0.0, split / 2]),
    ]
    return Asset("demo_cabinet", parts, joints, metadata={"source": "seed3d.synth.primitives.demo_cabinet"})
