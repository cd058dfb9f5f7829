"""Watertight primitives, exact booleans (manifold3d) and a reference articulated cabinet built from them."""

from __future__ import annotations

import numpy as np

from seed3d.asset import Asset, Joint, Mesh, Part, PBRMaterial, PhysicalMaterial
from seed3d.asset import rotation as rotation3
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

    if mesh.uv is not None:  # split at UV seams: weld coincident vertices back together
        mesh = mesh.welded()
    man = mesh.to_manifold()
    status = man.status()
    if status != manifold3d.Error.NoError:
        raise ValueError(f"mesh is not a closed manifold ({status.name}); booleans need closed meshes")
    return man


def difference(a: Mesh, *cutters: Mesh) -> Mesh:
    """Exact boolean ``a`` minus every cutter; the result is one closed, consistently oriented mesh."""
    result = _to_manifold(a)
    for c in cutters:
        result = result - _to_manifold(c)
    return Mesh.from_manifold(result)


def union(*meshes: Mesh) -> Mesh:
    """Exact boolean union of closed meshes."""
    result = _to_manifold(meshes[0])
    for m in meshes[1:]:
        result = result + _to_manifold(m)
    return Mesh.from_manifold(result)


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


# --------------------------------------------------------------------------------------------- more solids
#
# Every builder below returns one closed, outward-oriented mesh (watertight by index). Booleans go through
# manifold3d, which needs index-manifold input: meshes split at UV seams are welded first.


def rotation(axis: FloatArray, angle: float) -> FloatArray:
    """4x4 rotation by ``angle`` radians about ``axis`` through the origin (right-hand rule)."""
    m = np.eye(4)
    m[:3, :3] = rotation3(axis, angle)
    return m


def translation(offset: FloatArray) -> FloatArray:
    """4x4 translation by ``offset``."""
    m = np.eye(4)
    m[:3, 3] = offset
    return m


def rotation_about(axis: FloatArray, angle: float, point: FloatArray) -> FloatArray:
    """4x4 rotation by ``angle`` about the line through ``point`` along ``axis``."""
    p = np.asarray(point, np.float64)
    return translation(p) @ rotation(axis, angle) @ translation(-p)


def _z_to(direction: FloatArray) -> FloatArray:
    """3x3 rotation taking +Z onto ``direction`` (unit)."""
    d = np.asarray(direction, np.float64)
    d = d / np.linalg.norm(d)
    z = np.array([0.0, 0.0, 1.0])
    c = float(d @ z)
    if c > 1 - 1e-12:
        return np.eye(3)
    if c < -1 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    ax = np.cross(z, d)
    return rotation(ax, float(np.arccos(np.clip(c, -1, 1))))[:3, :3]


def signed_volume(mesh: Mesh) -> float:
    """Signed enclosed volume (positive for a closed, outward-oriented mesh)."""
    t = mesh.vertices[mesh.faces]
    return float(np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0)


def _outward(mesh: Mesh) -> Mesh:
    """Flip every face when the signed volume is negative."""
    if signed_volume(mesh) < 0:
        return Mesh(mesh.vertices, mesh.faces[:, ::-1].copy(), mesh.uv)
    return mesh


def lathe(profile: FloatArray, segments: int = 48, phase: float = 0.0) -> Mesh:
    """Revolve a profile of (r, z) points about +Z into a closed, outward-oriented surface.

    Either both end points lie on the axis (r = 0: they become poles, as in a vase or a solid of revolution,
    whose outline may go up the outside, over a rim and down the inside) and every other point has r > 0, or
    no point lies on the axis and the profile is a closed loop (a torus-like ring).
    """
    prof = np.asarray(profile, np.float64).reshape(-1, 2)
    if len(prof) < 3:
        raise ValueError("lathe needs at least 3 profile points")
    if np.any(prof[:, 0] < 0):
        raise ValueError("lathe profile radii must be >= 0")
    on_axis = prof[:, 0] <= 1e-12
    n = int(segments)
    ang = phase + 2 * np.pi * np.arange(n) / n
    cs, sn = np.cos(ang), np.sin(ang)
    j = np.arange(n)
    jn = (j + 1) % n
    if on_axis[0] and on_axis[-1]:
        if np.any(on_axis[1:-1]):
            raise ValueError("only the end points of an open lathe profile may lie on the axis")
        rings = prof[1:-1]
        k = len(rings)
        ring_v = np.stack([rings[:, :1] * cs, rings[:, :1] * sn, np.repeat(rings[:, 1:], n, axis=1)], axis=-1)
        verts = np.concatenate([ring_v.reshape(-1, 3), [[0, 0, prof[0, 1]], [0, 0, prof[-1, 1]]]])
        bottom, top = k * n, k * n + 1
        rk = np.arange(k - 1)[:, None] * n
        a, b = (rk + j).ravel(), (rk + jn).ravel()
        c, d = a + n, b + n
        quads = np.concatenate([np.stack([a, c, d], 1), np.stack([a, d, b], 1)])
        fan_bot = np.stack([np.full(n, bottom), j, jn], 1)
        last = (k - 1) * n
        fan_top = np.stack([last + j, np.full(n, top), last + jn], 1)
        faces = np.concatenate([fan_bot, quads, fan_top])
    elif not np.any(on_axis):
        k = len(prof)
        ring_v = np.stack([prof[:, :1] * cs, prof[:, :1] * sn, np.repeat(prof[:, 1:], n, axis=1)], axis=-1)
        verts = ring_v.reshape(-1, 3)
        rk = np.arange(k)[:, None] * n
        rk1 = ((np.arange(k) + 1) % k)[:, None] * n
        a, b = (rk + j).ravel(), (rk + jn).ravel()
        c, d = (rk1 + j).ravel(), (rk1 + jn).ravel()
        faces = np.concatenate([np.stack([a, c, d], 1), np.stack([a, d, b], 1)])
    else:
        raise ValueError("a lathe profile must start and end on the axis, or not touch it at all")
    return _outward(Mesh(verts, faces))


def place(mesh: Mesh, direction: FloatArray = (0, 0, 1), at: FloatArray = (0, 0, 0)) -> Mesh:
    """Rotate a mesh built along +Z so that +Z points along ``direction``, then move its origin to ``at``."""
    m = np.eye(4)
    m[:3, :3] = _z_to(direction)
    m[:3, 3] = at
    return mesh.transformed(m)


def cylinder(radius: float, height: float, segments: int = 32, direction: FloatArray = (0, 0, 1),
             at: FloatArray = (0, 0, 0), radius_top: float | None = None) -> Mesh:
    """A closed cylinder (or frustum with ``radius_top``) from ``at`` along ``direction`` for ``height``."""
    rt = radius if radius_top is None else radius_top
    prof = [(0, 0), (radius, 0), (rt, height), (0, height)] if rt > 0 else [(0, 0), (radius, 0), (0, height)]
    return place(lathe(prof, segments), direction, at)


def cylinder_between(p0: FloatArray, p1: FloatArray, radius: float, segments: int = 24) -> Mesh:
    """A closed cylinder of ``radius`` whose axis runs from ``p0`` to ``p1``."""
    p0, p1 = np.asarray(p0, np.float64), np.asarray(p1, np.float64)
    d = p1 - p0
    return cylinder(radius, float(np.linalg.norm(d)), segments, d, p0)


def sphere(radius: float, center: FloatArray = (0, 0, 0), segments: int = 32) -> Mesh:
    """A closed UV sphere."""
    t = np.linspace(-np.pi / 2, np.pi / 2, max(segments // 2, 4) + 1)
    prof = np.stack([radius * np.cos(t), radius * np.sin(t)], 1)
    prof[0, 0] = prof[-1, 0] = 0.0
    return lathe(prof, segments).translated(center)


def torus(major: float, minor: float, segments: int = 48, minor_segments: int = 16,
          direction: FloatArray = (0, 0, 1), at: FloatArray = (0, 0, 0)) -> Mesh:
    """A closed torus around ``direction`` through ``at`` (ring radius ``major``, tube radius ``minor``)."""
    if minor >= major:
        raise ValueError("torus needs minor < major")
    t = 2 * np.pi * np.arange(minor_segments) / minor_segments
    prof = np.stack([major + minor * np.cos(t), minor * np.sin(t)], 1)
    return place(lathe(prof, segments), direction, at)


def hull(points: FloatArray) -> Mesh:
    """The convex hull of points as a closed, outward-oriented mesh (qhull, triangulated facets)."""
    from scipy.spatial import ConvexHull

    pts = np.asarray(points, np.float64).reshape(-1, 3)
    h = ConvexHull(pts, qhull_options="Qt")
    used, faces = np.unique(h.simplices, return_inverse=True)
    faces = faces.reshape(-1, 3)
    verts = pts[used]
    t = verts[faces]
    normal = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    inward = np.einsum("ij,ij->i", normal, t[:, 0] - verts.mean(axis=0)) < 0
    faces[inward] = faces[inward][:, ::-1]
    return Mesh(verts, faces)


def rounded_box(lo: FloatArray, hi: FloatArray, radius: float, segments: int = 6) -> Mesh:
    """An axis-aligned box with edges and corners rounded by ``radius``, built as a box grown by a ball.

    A latitude-longitude ball grid is split into octants that are pushed out to the corners of the inner box;
    the flat faces are the strips between octants and the two caps. ``segments`` per quarter circle.
    """
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    r = float(min(radius, 0.5 * float(np.min(hi - lo))))
    if r <= 0:
        return box(lo, hi)
    k = max(int(segments), 1)
    c, h = (lo + hi) / 2, (hi - lo) / 2 - r
    t = np.linspace(0.0, np.pi / 2, k + 1)
    ct, st = np.cos(t), np.sin(t)
    ct[-1], st[-1] = 0.0, 1.0
    # longitude columns quadrant by quadrant (exact quarter turns), with the octant's corner signs
    cols_c = np.concatenate([ct, -st, -ct, st])
    cols_s = np.concatenate([st, ct, -st, -ct])
    sx = np.repeat([1.0, -1.0, -1.0, 1.0], k + 1)
    sy = np.repeat([1.0, 1.0, -1.0, -1.0], k + 1)
    # latitude rows from the bottom pole to the equator (lower octants), then equator to the top pole
    rows_c = np.concatenate([ct[::-1], ct])
    rows_s = np.concatenate([-st[::-1], st])
    sz = np.repeat([-1.0, 1.0], k + 1)
    x = c[0] + sx[None] * h[0] + r * rows_c[:, None] * cols_c[None]
    y = c[1] + sy[None] * h[1] + r * rows_c[:, None] * cols_s[None]
    z = c[2] + sz[:, None] * h[2] + r * rows_s[:, None] + 0.0 * cols_c[None]
    nr, nc = x.shape
    verts = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(nr - 1), np.arange(nc), indexing="ij")
    a = (i * nc + j).ravel()
    b_ = (i * nc + (j + 1) % nc).ravel()
    quads = np.concatenate([np.stack([a, b_, b_ + nc], 1), np.stack([a, b_ + nc, a + nc], 1)])
    corners = np.arange(4) * (k + 1)  # one column per octant at the poles
    top = (nr - 1) * nc + corners
    caps = np.array([[corners[0], corners[2], corners[1]], [corners[0], corners[3], corners[2]],
                     [top[0], top[1], top[2]], [top[0], top[2], top[3]]])
    return _outward(Mesh(verts, np.concatenate([quads, caps])).welded())


def prism(polygon: FloatArray, z0: float, z1: float) -> Mesh:
    """Extrude a simple counter-clockwise XY polygon from ``z0`` to ``z1`` into a closed mesh."""
    import manifold3d

    cs = manifold3d.CrossSection([np.asarray(polygon, np.float64).reshape(-1, 2)])
    return Mesh.from_manifold(cs.extrude(z1 - z0)).translated([0, 0, z0])


def intersection(a: Mesh, *others: Mesh) -> Mesh:
    """Exact boolean intersection of closed meshes."""
    result = _to_manifold(a)
    for m in others:
        result = result ^ _to_manifold(m)
    return Mesh.from_manifold(result)


def is_watertight(mesh: Mesh) -> bool:
    """True when, after welding, every edge is used exactly once in each direction (closed, consistent)."""
    m = mesh.welded()
    if not len(m.faces):
        return False
    f = m.faces
    e = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    n = len(m.vertices)
    key = e[:, 0] * n + e[:, 1]
    rev = e[:, 1] * n + e[:, 0]
    uniq, counts = np.unique(key, return_counts=True)
    return bool(np.all(counts == 1) and np.all(np.isin(rev, uniq)))


def box_uv(mesh: Mesh, span: float | None = None) -> Mesh:
    """Planar box-projection UVs: each face is projected along its dominant normal axis.

    Vertices are split where faces of different projection axes meet (the mesh stays closed after welding).
    UVs are ``(coordinate - min) / span`` with ``span`` the largest extent by default, so they lie in [0, 1].
    """
    m = mesh.welded() if mesh.uv is not None else mesh
    v, f = m.vertices, m.faces
    if not len(f):
        return Mesh(v, f, np.zeros((len(v), 2)))
    t = v[f]
    normal = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
    axis = np.argmax(np.abs(normal), axis=1)
    key = (f * 3 + axis[:, None]).ravel()
    uniq, inv = np.unique(key, return_inverse=True)
    nv = v[uniq // 3]
    ax = uniq % 3
    lo = v.min(axis=0)
    span = float(span if span is not None else max(float(np.max(v.max(axis=0) - lo)), 1e-9))
    rel = (nv - lo) / span
    u_axis = np.where(ax == 0, 1, 0)
    v_axis = np.where(ax == 2, 1, 2)
    rows = np.arange(len(nv))
    uv = np.stack([rel[rows, u_axis], rel[rows, v_axis]], 1)
    return Mesh(nv, inv.reshape(-1, 3), np.clip(uv, 0.0, 1.0))
