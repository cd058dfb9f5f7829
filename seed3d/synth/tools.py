"""Handheld tools and small devices (PartNet-Mobility classes): pivots, buttons, caps, keys.

Scissors and pliers are two halves on a pivot rivet: each half lies in its own layer where the halves cross
(a lap joint) and, away from the pivot, its handle (and a plier's jaw) may run through the whole thickness in
the half's own sector, so the halves open without passing through each other. Eyeglasses fold their temples
on hinges at the end pieces; a stapler's arm lifts on a pin between two cheeks; a pen's push button clicks
into its barrel or its cap pulls off; a pocket knife's blade swings out of its handle on a pivot pin.
Everything lies as the object lies on a desk (+Z up), its long axis along X.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.collision import annulus_sectors, rectilinear_boxes, reduced_hull, subtract_prism
from seed3d.synth.core import AssetBuilder, Category, choice, finish_param, frange, irange
from seed3d.synth.materials import finish
from seed3d.synth.primitives import (
    _to_manifold,
    box,
    cylinder,
    difference,
    hull,
    intersection,
    lathe,
    prism,
    rotation_about,
    rounded_box,
    sphere,
    union,
)
from seed3d.typed import FloatArray

#: Running clearance between parts that move against each other (the category checks need 1 mm at rest).
GAP = 0.0012


def _clean(mesh: Mesh) -> Mesh:
    """A boolean result without its sliver faces: edges shorter than a micrometre collapsed (exact booleans of
    pieces that share faces leave them; engines' loaders count zero-area faces as defects)."""
    return Mesh.from_manifold(_to_manifold(mesh).simplify(1e-6))


def _add(b: AssetBuilder, name: str, mesh: Mesh, *args: object, **kwargs: object) -> str:
    """``AssetBuilder.add`` with the part's mesh cleaned of sliver faces."""
    return b.add(name, _clean(mesh), *args, **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------- 2-D helpers


def _ccw(poly: FloatArray) -> np.ndarray:
    """The polygon's points in counter-clockwise order."""
    p = np.asarray(poly, np.float64).reshape(-1, 2)
    area = 0.5 * float(np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1]))
    return p if area > 0 else p[::-1].copy()


def _slab(poly: FloatArray, z0: float, z1: float) -> Mesh:
    """A convex (or any simple) XY polygon extruded from ``z0`` to ``z1``."""
    return prism(_ccw(poly), z0, z1)


def _ellipse(c: FloatArray, ax: float, ay: float, n: int = 32, a0: float = 0.0, a1: float = 2 * np.pi
             ) -> np.ndarray:
    """Points on an ellipse centred at ``c`` (semi-axes ``ax`` along X, ``ay`` along Y) from angle a0 to a1."""
    t = np.linspace(a0, a1, n, endpoint=not np.isclose(a1 - a0, 2 * np.pi))
    return np.stack([c[0] + ax * np.cos(t), c[1] + ay * np.sin(t)], 1)


def _mirror(poly: FloatArray) -> np.ndarray:
    """A polygon mirrored across the XZ plane (y → -y)."""
    p = np.asarray(poly, np.float64).reshape(-1, 2).copy()
    p[:, 1] *= -1
    return p


def _clip_x(mesh: Mesh, lo: float, hi: float) -> Mesh | None:
    """The part of a closed mesh with ``lo <= x <= hi`` (None when that is empty)."""
    blo, bhi = mesh.bounds
    if bhi[0] <= lo + 1e-9 or blo[0] >= hi - 1e-9:
        return None
    if blo[0] >= lo and bhi[0] <= hi:
        return mesh
    cut = intersection(mesh, box([max(lo, blo[0] - 1), blo[1] - 1, blo[2] - 1], [min(hi, bhi[0] + 1), bhi[1] + 1,
                                                                                 bhi[2] + 1]))
    return cut if len(cut.faces) and _to_manifold(cut).volume() > 1e-12 else None


def _yzx(mesh: Mesh) -> Mesh:
    """Map a mesh built with (u, v, w) = (x, y, z) onto (y, z, x): a shape drawn in XY, extruded along Z, stands
    in the YZ plane extruded along X (a cyclic permutation: a proper rotation)."""
    m = np.zeros((4, 4))
    m[1, 0] = m[2, 1] = m[0, 2] = m[3, 3] = 1.0
    return mesh.transformed(m)


def _xz(mesh: Mesh) -> Mesh:
    """Map a mesh drawn in XY and extruded along Z onto the XZ plane, extruded along +Y ((x, y, z) → (x, -z, y)
    turned by a quarter about X: a proper rotation)."""
    m = np.eye(4)
    m[1:3, 1:3] = [[0, -1], [1, 0]]
    return mesh.transformed(m)


# --------------------------------------------------------------------------------------------- two-half tools


@dataclass
class _Half:
    """One half of a pivoting tool, drawn with its pivot at the origin; ``own`` pieces lie in the half's layer,
    ``full`` pieces and ``rings`` (finger loops: centre, semi-axes, ring width) through the whole thickness."""

    own: list[np.ndarray] = field(default_factory=list)
    full: list[np.ndarray] = field(default_factory=list)
    rings: list[tuple[tuple[float, float], float, float, float]] = field(default_factory=list)


def _ring_pieces(c: tuple[float, float], ax: float, ay: float, w: float, z0: float, z1: float,
                 n: int = 40, sectors: int = 10) -> tuple[Mesh, list[Mesh]]:
    """An elliptical finger loop: its closed mesh and convex sector pieces (their inner chords inside the hole)."""
    outer = _ellipse(c, ax, ay, n)
    inner = _ellipse(c, ax - w, ay - w, n)
    mesh = difference(_slab(outer, z0, z1), _slab(inner, z0 - 0.001, z1 + 0.001))
    per = n // sectors
    pieces = []
    for s in range(sectors):
        idx = np.arange(s * per, s * per + per + 1) % n
        pts2 = np.concatenate([outer[idx], inner[idx]])
        pieces.append(hull(np.concatenate([np.c_[pts2, np.full(len(pts2), z0)], np.c_[pts2, np.full(len(pts2), z1)]])))
    return mesh, pieces


def _half_pieces(half: _Half, z_own: tuple[float, float], z_full: tuple[float, float]) -> tuple[list[Mesh],
                                                                                                list[Mesh]]:
    """(solid pieces whose union is the half, convex collision pieces) of a half."""
    solids = [_slab(p, *z_own) for p in half.own] + [_slab(p, *z_full) for p in half.full]
    pieces = [reduced_hull(s) for s in solids]
    for c, ax, ay, w in half.rings:
        mesh, ring = _ring_pieces(c, ax, ay, w, *z_full)
        solids.append(mesh)
        pieces += ring
    return solids, pieces


def _split(solids: list[Mesh], pieces: list[Mesh], split_x: float, front: bool) -> tuple[Mesh | None, list[Mesh]]:
    """The half's material in front of (``front``) or behind ``split_x``: one mesh and its collision pieces."""
    lo, hi = (split_x, np.inf) if front else (-np.inf, split_x)
    kept = [m for m in (_clip_x(s, lo, hi) for s in solids) if m is not None]
    if not kept:
        return None, []
    cols = [reduced_hull(m) for m in (_clip_x(p, lo, hi) for p in pieces) if m is not None]
    return union(*kept), cols


def _pivot_tool(b: AssetBuilder, a: _Half, bh: _Half, t_layer: float, t_full: float, split_x: float,
                r_pin: float, open_deg: float, steel: object, handle_fin: object, handle_physical: str | None
                ) -> None:
    """Build a two-half pivoting tool: half ``a`` (lower layer, the root) and half ``bh`` (upper layer, turning
    about +Z through the origin by up to ``open_deg``); material behind ``split_x`` is the handles' finish."""
    za = (0.0, t_layer)
    zb = (t_layer + GAP, 2 * t_layer + GAP)
    zf = (0.0, t_full)
    # the rivet: a shank through both layers with a head above the upper half (a clearance hole in that half)
    head_r = r_pin + 0.0025
    rivet = [cylinder(r_pin, zb[1] + GAP, 24, at=(0, 0, 0)),
             cylinder(head_r, 0.0012, 24, at=(0, 0, zb[1] + GAP))]
    hole = cylinder(r_pin + GAP, zb[1] + 0.01, 24, at=(0, 0, -0.005))
    sa, pa = _half_pieces(a, za, zf)
    sb, pb = _half_pieces(bh, zb, zf)
    a_steel, a_cols = _split(sa, pa, split_x, True)
    b_steel, b_cols = _split(sb, pb, split_x, True)
    if a_steel is None or b_steel is None:
        raise ValueError("a pivoting tool's halves need material in front of the handles' split")
    a_steel = union(a_steel, *rivet)
    b_steel = difference(b_steel, hole)
    a_cols += [reduced_hull(r) for r in rivet]
    b_cols = subtract_prism(b_cols, cylinder(r_pin + GAP, zb[1] + 0.01, 8, at=(0, 0, -0.005)), (0, 0, 1))
    root = _add(b, "half_a", a_steel, "body", steel, collision=a_cols)
    up = float(np.deg2rad(open_deg))
    _add(b, "half_b", b_steel, "lever", steel, root, "lever", origin=[0, 0, zb[0]], axis=[0, 0, 1], upper=up,
         joint_name="pivot", collision=b_cols)
    for name, solids, pieces, parent in (("handle_a", sa, pa, root), ("handle_b", sb, pb, "half_b")):
        m, cols = _split(solids, pieces, split_x, False)
        if m is not None:
            _add(b, name, m, "handle", handle_fin, parent, physical=handle_physical, collision=cols)


def build_scissors(b: AssetBuilder) -> None:
    """Scissors: two steel blades crossing at a pivot screw, each with a moulded finger loop (a larger loop for
    the fingers on one half, a thumb loop on the other); the upper half turns about the screw to open."""
    p = b.p
    L = p["length"]
    Lb = L * b.draw("blade_fraction")
    tb = b.draw("blade_thickness")
    wb = b.draw("blade_width")
    steel = b.draw("blade_finish")
    hfin = b.draw("handle_finish")
    Lh = L - Lb
    R = max(0.0055, wb * 0.42)  # the boss round the screw
    # blade A: its spine on -Y, its edge running straight from the boss to the tip on the centre line
    tip = p["tip"]
    tip_w = 0.0008 if tip == "pointed" else wb * 0.16
    blade = np.array([(0.0, -wb * 0.5), (Lb * 0.55, -wb * 0.42), (Lb - tip_w, -tip_w * 1.2), (Lb, 0.0),
                      (Lb - tip_w * 0.5, wb * 0.12), (0.0, wb * 0.3)])
    boss = _ellipse((0, 0), R, R, 24)
    # finger loops: the big loop behind on +Y (half A), the thumb loop on -Y (half B), side by side
    wl = b.draw("loop_width")
    ay_a, ay_b = b.draw("finger_loop") / 2 + wl, b.draw("thumb_loop") / 2 + wl
    ax_a = min((Lh - 0.022) / 2, ay_a * 1.5)  # the loops' fronts stay 22 mm behind the screw
    ax_b = min((Lh - 0.022 - Lh * 0.08) / 2, ay_b * 1.3)
    ca = (-Lh + ax_a, GAP / 2 + 0.0004 + ay_a)
    cb = (-Lh + Lh * 0.08 + ax_b, -(GAP / 2 + 0.0004 + ay_b))
    split = -0.016  # steel in front of it (out of the other blade's reach), the moulded handle behind

    def shank(c: tuple[float, float], ax: float, ay: float, side: float) -> np.ndarray:
        end = c[0] + ax - wl * 0.5
        return np.array([(0.002, -side * 0.0035), (0.002, side * 0.004), (end, c[1] + side * min(0.004, ay * 0.3)),
                         (end, c[1] - side * min(0.004, ay * 0.3))])

    t_full = 2 * tb + GAP + b.draw("handle_extra")
    a = _Half(own=[blade, boss, shank(ca, ax_a, ay_a, 1.0)], rings=[(ca, ax_a, ay_a, wl)])
    bh = _Half(own=[_mirror(blade), boss, shank(cb, ax_b, ay_b, -1.0)], rings=[(cb, ax_b, ay_b, wl)])
    # the shanks run from the boss to the loops through the whole thickness behind the split
    for half, c, ax, ay, side in ((a, ca, ax_a, ay_a, 1.0), (bh, cb, ax_b, ay_b, -1.0)):
        half.full.append(_clip_poly_x(shank(c, ax, ay, side), -np.inf, split))
    open_deg = b.draw("open_angle")
    _pivot_tool(b, a, bh, tb, t_full, split, 0.0016, open_deg, steel, hfin, None)
    b.attributes.update({
        "materials": {"blades": steel, "handles": hfin},
        "extras": [f"{'pointed' if tip == 'pointed' else 'rounded'} tips",
                   f"blades that open to {round(open_deg)} degrees about a pivot screw",
                   "a finger loop and a thumb loop"]})


def _clip_poly_x(poly: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """A convex polygon clipped to ``lo <= x <= hi`` (Sutherland-Hodgman on two vertical lines)."""
    def clip(pts: np.ndarray, x0: float, keep_above: bool) -> np.ndarray:
        out = []
        n = len(pts)
        for i in range(n):
            p, q = pts[i], pts[(i + 1) % n]
            pin = p[0] >= x0 if keep_above else p[0] <= x0
            qin = q[0] >= x0 if keep_above else q[0] <= x0
            if pin:
                out.append(p)
            if pin != qin:
                t = (x0 - p[0]) / (q[0] - p[0])
                out.append(p + t * (q - p))
        return np.array(out)

    pts = _ccw(poly)
    if np.isfinite(lo):
        pts = clip(pts, lo, True)
    if np.isfinite(hi):
        pts = clip(pts, hi, False)
    return pts


def build_pliers(b: AssetBuilder) -> None:
    """Pliers: two forged halves crossing at a rivet in a lap joint, jaws in front, long handles behind with
    rubber or plastic grips; the upper half turns about the rivet to open the jaws (and spread the handles)."""
    p = b.p
    L = p["length"]
    T = b.draw("thickness")
    Lj = L * b.draw("jaw_fraction")
    wj = b.draw("jaw_width")
    steel = b.draw("steel_finish")
    gfin = b.draw("grip_finish")
    kind = p["kind"]
    R = wj * 1.05
    tl = (T - GAP) / 2
    x0 = R + GAP  # where each half runs through the whole thickness (beyond the other half's boss)
    g2 = GAP / 2 + 0.0002
    tip_w = wj * (0.22 if kind == "needle_nose" else 0.6)
    jaw_len = Lj * (1.5 if kind == "needle_nose" else 1.0)
    Lh = L - jaw_len
    # half A: the jaw in front on -Y, the handle behind on +Y (the halves cross at the rivet)
    jaw = np.array([(x0, -wj), (jaw_len, -tip_w), (jaw_len, -g2), (x0, -g2)])
    neck_f = np.array([(-0.001, -wj), (x0 + 0.0005, -wj), (x0 + 0.0005, -g2), (-0.001, -g2)])
    spread = b.draw("handle_spread")
    wh = wj * 0.8
    handle = np.array([(-x0, g2), (-x0, wj), (-Lh, spread + wh), (-Lh, spread)])
    neck_b = np.array([(0.001, g2), (0.001, wj), (-x0 - 0.0005, wj), (-x0 - 0.0005, g2)])
    boss = _ellipse((0, 0), R, R, 28)
    end = _ellipse((-Lh, spread + wh / 2), wh * 0.6, wh / 2, 20)  # the grip's rounded end
    a = _Half(own=[boss, neck_f, neck_b], full=[jaw, handle, end])
    bh = _Half(own=[boss, _mirror(neck_f), _mirror(neck_b)], full=[_mirror(jaw), _mirror(handle), _mirror(end)])
    split = -(x0 + (Lh - x0) * 0.3)  # the grips cover the handles behind it
    open_deg = b.draw("open_angle")
    _pivot_tool(b, a, bh, tl, T, split, 0.0028, open_deg, steel, gfin,
                "rubber" if gfin.kind == "rubber" else None)
    b.attributes.update({
        "kind": "needle-nose" if kind == "needle_nose" else "combination",
        "materials": {"body": steel, "grips": gfin},
        "extras": [f"jaws that open to {round(open_deg)} degrees on a rivet", "cushioned grips on the handles"]})


# --------------------------------------------------------------------------------------------- eyeglasses


def _rim_shape(shape: str, w: float, h: float, n: int = 40) -> np.ndarray:
    """A lens outline (u across, v up) centred at the origin: round, oval or rectangular (rounded corners)."""
    if shape == "rectangular":
        r = min(w, h) * 0.22
        corners = [(w / 2 - r, h / 2 - r, 0.0), (-w / 2 + r, h / 2 - r, np.pi / 2), (-w / 2 + r, -h / 2 + r, np.pi),
                   (w / 2 - r, -h / 2 + r, 1.5 * np.pi)]
        k = np.linspace(0, np.pi / 2, 8)
        pts = [np.stack([cx + r * np.cos(a0 + k), cy + r * np.sin(a0 + k)], 1) for cx, cy, a0 in corners]
        return np.concatenate(pts)
    if shape == "round":
        return _ellipse((0, 0), w / 2, h / 2, n)
    # oval: a superellipse, squarer than an ellipse
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    c, s = np.cos(t), np.sin(t)
    e = 0.6
    return np.stack([w / 2 * np.sign(c) * np.abs(c) ** e, h / 2 * np.sign(s) * np.abs(s) ** e], 1)


def _grow(poly: np.ndarray, d: float) -> np.ndarray:
    """A convex-ish outline pushed outward by ``d`` along the directions from its centre (for rim outlines)."""
    c = poly.mean(axis=0)
    v = poly - c
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return poly + v / np.maximum(n, 1e-12) * d


def build_eyeglasses(b: AssetBuilder) -> None:
    """Eyeglasses standing open: a front of two rims with lenses and a bridge, and two temples that fold
    inward on hinges at the end pieces (as far as the other temple and the front allow)."""
    p = b.p
    shape = p["lens_shape"]
    lw, lh = b.draw("lens_width"), b.draw("lens_height")
    bridge = b.draw("bridge_width")
    rim = b.draw("rim_width")
    tf = b.draw("front_thickness")
    Lt = b.draw("temple_length")
    fin = b.draw("frame_finish")
    lens_fin = b.draw("lens_finish")
    tt, ht = 0.0025 if fin.kind == "plastic" else 0.0016, 0.004 if fin.kind == "plastic" else 0.003
    if fin.kind != "plastic":  # wire-thin metal rims
        rim, tf = rim * 0.55, tf * 0.6
    xf = 0.0  # the front's front face
    zc = lh / 2 + rim  # lens centre height: the rims stand on z = 0
    inner = _rim_shape(shape, lw, lh)
    outer = _grow(inner, rim)
    cy = bridge / 2 + lw / 2 + rim * 0.3
    front_parts, lenses = [], []
    for s in (1, -1):
        ring = difference(_slab(outer + [s * cy, zc], -tf, 0), _slab(inner + [s * cy, zc], -tf - 0.001, 0.001))
        front_parts.append(_yzx(ring))
        lens = _yzx(_slab(inner + [s * cy, zc], -tf * 0.7, -tf * 0.3))
        lenses.append(lens)
    # the bridge: a bar between the rims near their top
    zb = zc + lh * 0.22
    front_parts.append(box([xf - tf, -cy + lw / 2 * 0.9, zb - rim * 0.55], [xf - tf * 0.2, cy - lw / 2 * 0.9,
                                                                             zb + rim * 0.55]))
    # end pieces (lugs) at the outer top of each rim reach back to the hinges
    y_edge = cy + float(outer[:, 0].max())  # the rims' outer edge
    zt = zc + lh * 0.25
    lug = b.draw("lug_depth")
    xp = xf - tf - lug  # the hinge line's x (the temples' front end is GAP behind it)
    W = 2 * (y_edge + 0.001)
    for s in (1, -1):
        # behind, the lug is as wide as the temple (whose inner front corner is the hinge); further forward it
        # widens onto the rim
        y0, y1 = sorted((s * (y_edge + 0.001 - tt), s * (y_edge + 0.001)))
        front_parts.append(box([xp, y0, zt - ht / 2], [xf - tf * 0.5, y1, zt + ht / 2]))
        y0, y1 = sorted((s * (y_edge - 0.004), s * (y_edge + 0.001)))
        front_parts.append(box([xp + min(0.003, lug * 0.5), y0, zt - ht / 2], [xf - tf * 0.5, y1, zt + ht / 2]))
    front = union(*front_parts)
    root = _add(b, "front", front, "frame", fin)
    for k, lens in enumerate(lenses):
        _add(b, f"lens_{k}", lens, "panel", lens_fin, root, physical="plastic" if lens_fin.colour == "clear" else None)
    # temples: a bar back from the hinge, then the earpiece bending down to the desk
    bend = Lt * b.draw("bend_at")
    ang = float(np.arctan2(zt - ht / 2, Lt - bend))
    drop = zt - ht / 2 * np.cos(ang) + 0.0003  # the earpiece's tip reaches the desk (trimmed flat at z = 0)
    ang = float(np.arctan2(drop, Lt - bend))
    ear = float(np.hypot(Lt - bend, drop))
    temples = []
    for s in (1, -1):
        y_out = s * W / 2
        y_in = y_out - s * tt
        ylo, yhi = sorted((y_in, y_out))
        bar = box([xp - bend, ylo, zt - ht / 2], [xp - GAP, yhi, zt + ht / 2])
        ep = box([xp - bend - ear, ylo, zt - ht / 2], [xp - bend + 0.0005, yhi, zt + ht / 2])
        ep = _clip_z(ep.transformed(rotation_about([0, 1, 0], -ang, [xp - bend, 0, zt])), 0.0)
        # the hinge at the temple's inner front corner: the temple folds inward behind the front
        temples.append((union(bar, ep), np.array([xp, y_in, zt]), np.array([0, 0, float(s)]), [bar, ep]))
    fin_phys = "plastic" if fin.kind == "plastic" else None
    folds = []
    for k, (name, (temple, pivot, axis, pieces)) in enumerate(zip(("temple_left", "temple_right"), temples,
                                                                  strict=True)):
        other = temples[1 - k][0]
        fold = _fold_limit(temple, pivot, axis, [front, *lenses, other])
        folds.append(fold)
        _add(b, name, temple, "arm", fin, root, "lid", origin=pivot, axis=axis, upper=fold, physical=fin_phys,
              collision=[reduced_hull(pc) for pc in pieces])
    b.attributes.update({
        "shape": shape, "materials": {"frame": fin, "lenses": lens_fin},
        "extras": [f"{shape} lenses {round(lw * 1000)} mm wide",
                   f"temples that fold in up to {round(float(np.rad2deg(min(folds))))} degrees on hinges"]})


def _clip_z(mesh: Mesh, z0: float) -> Mesh:
    """The part of a closed mesh above ``z0``."""
    lo, hi = mesh.bounds
    if lo[2] >= z0:
        return mesh
    return intersection(mesh, box([lo[0] - 1, lo[1] - 1, z0], [hi[0] + 1, hi[1] + 1, hi[2] + 1]))


def _fold_limit(part: Mesh, pivot: FloatArray, axis: FloatArray, others: list[Mesh], most: float = 90.0) -> float:
    """The largest fold (rad, 5° steps, at most ``most`` degrees) for which ``part`` turned about the hinge keeps
    1 mm from every other part at every step on the way."""
    solids = [_to_manifold(o) for o in others]
    best = 0.0
    for deg in np.arange(5.0, most + 1e-9, 5.0):
        moved = _to_manifold(part.transformed(rotation_about(axis, np.deg2rad(deg), pivot)))
        if any(moved.min_gap(o, 0.002) < 0.0011 for o in solids):
            break
        best = float(np.deg2rad(deg))
    return best


# --------------------------------------------------------------------------------------------- stapler


def build_stapler(b: AssetBuilder) -> None:
    """A desk stapler: a base with an anvil at the front and two cheeks at the back holding a pin, and the arm
    (cover over the staple channel) hinged on that pin, resting above the base and lifting at the front."""
    p = b.p
    L = p["length"]
    W = b.draw("width")
    tb = b.draw("base_thickness")
    fin = b.draw("body_finish")
    afin = b.draw("arm_finish", when=False, otherwise=fin) if not p["two_tone"] else b.draw("arm_finish")
    metal = "sheet_metal"
    gap = b.draw("arm_gap")
    ha = b.draw("arm_height")
    base = rounded_box([-L / 2, -W / 2, 0], [L / 2, W / 2, tb], min(0.004, tb * 0.45), 3)
    wa = W - 2 * 0.0045  # the arm between two cheeks 3.3 mm thick, with a running gap
    rk = ha * 0.5
    x_ax = -L / 2 + rk + 0.006
    z_ax = tb + gap + rk
    cheek_t = (W - wa) / 2 - GAP
    cheeks = [box([-L / 2 + 0.002, lo, tb - 0.001], [x_ax + rk * 0.9, hi, z_ax + rk * 0.8])
              for lo, hi in ((W / 2 - cheek_t, W / 2), (-W / 2, -W / 2 + cheek_t))]
    r_pin = 0.0018
    pin = cylinder(r_pin, W - 0.002, 16, (0, 1, 0), (x_ax, -W / 2 + 0.001, z_ax))
    anvil = box([L / 2 - 0.032, -0.007, tb - 0.0003], [L / 2 - 0.012, 0.007, tb + 0.0012])
    root = _add(b, "base", union(base, *cheeks, pin), "base", fin, physical=metal,
                 collision=[reduced_hull(base), *cheeks, reduced_hull(pin)])
    _add(b, "anvil", anvil, "other", b.draw("anvil_finish"), root)
    # the arm: a knuckle round the pin, a rounded cover forward to the head, a nose a little lower at the front
    front = L / 2 - 0.004
    knuckle = cylinder(rk, wa, 24, (0, 1, 0), (x_ax, -wa / 2, z_ax))
    cover = rounded_box([x_ax, -wa / 2, z_ax - rk], [front, wa / 2, z_ax - rk + ha], min(0.006, ha * 0.35), 3)
    nose = rounded_box([front - 0.03, -wa / 2 + 0.002, z_ax - rk - gap * 0.5], [front, wa / 2 - 0.002,
                                                                                  z_ax - rk + 0.004], 0.002, 2)
    arm = difference(union(knuckle, cover, nose), cylinder(r_pin + GAP, W, 16, (0, 1, 0), (x_ax, -W / 2, z_ax)))
    pieces = subtract_prism([reduced_hull(knuckle), reduced_hull(cover), reduced_hull(nose)],
                            cylinder(r_pin + GAP, W, 8, (0, 1, 0), (x_ax, -W / 2, z_ax)), (0, 1, 0))
    up = b.draw("open_angle")
    _add(b, "arm", arm, "arm", afin, root, "lid", origin=[x_ax, 0, z_ax], axis=[0, -1, 0],
          upper=float(np.deg2rad(up)), physical=metal, collision=pieces)
    b.attributes.update({
        "materials": {"body": fin, "arm": afin},
        "extras": [f"an arm hinged at the back that lifts {round(up)} degrees", "an anvil at the front"]})


# --------------------------------------------------------------------------------------------- pen


def _along_x(profile: list[tuple[float, float]], x0: float, sides: int) -> Mesh:
    """A lathe profile (r, s) turned about the X axis from ``x0`` (s along +X), a flat face down."""
    m = lathe(profile, sides, phase=np.pi / sides)
    # +Z → +X: (x, y, z) → (z, y, -x) keeps a face centred on -X at the bottom
    t = np.eye(4)
    t[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
    t[0, 3] = x0
    return m.transformed(t)


def build_pen(b: AssetBuilder) -> None:
    """A ballpoint pen lying on the desk: a click pen (a push button at the back presses into the barrel) or a
    capped pen (the cap pulls off the front); a clip on top keeps it from rolling."""
    p = b.p
    L = p["length"]
    r = b.draw("barrel_radius")
    sides = 6 if p["barrel"] == "hexagonal" else 12  # a dodecagon lies still on a flat, as a rounder one would not
    rc = r * np.cos(np.pi / sides)  # the flats' distance from the axis
    fin = b.draw("body_finish")
    cfin = b.draw("clip_finish")
    tipfin = b.draw("tip_finish")
    mech = p["mechanism"]
    x_back = -L / 2
    cone = L * 0.1
    z_c = rc  # the axis height: the barrel lies on a flat
    lift = np.array([0, 0, z_c])
    attrs: dict[str, object] = {"materials": {"body": fin, "clip": cfin}}
    light = "aluminium" if fin.kind != "plastic" else None  # a metal pen is a thin aluminium or brass tube
    clip_parent = "barrel"
    if mech == "click":
        x0 = x_back + 0.01  # the button sticks 10 mm out of the back
        body_len = L - 0.01 - 0.0048
        main = _along_x([(0, 0), (r, 0), (r, body_len - cone), (0, body_len - cone)], x0, sides)
        nose = _along_x([(0, 0), (r, 0), (r * 0.3, cone), (0, cone)], x0 + body_len - cone, sides)
        rb = r * 0.5
        bore = cylinder(rb + GAP, 0.02, 20, (1, 0, 0), (x0 - 0.005, 0, z_c))
        barrel = difference(union(main, nose).translated(lift), bore)
        cols = subtract_prism([reduced_hull(main.translated(lift)), reduced_hull(nose.translated(lift))],
                              cylinder(rb + GAP, 0.02, 8, (1, 0, 0), (x0 - 0.005, 0, z_c)), (1, 0, 0))
        root = _add(b, "barrel", barrel, "body", fin, collision=cols, physical=light)
        travel = b.draw("click_travel")
        # the plunger stops 1.5 mm short of the bore's floor when pressed home; a wider round end outside
        inside = 0.015 - travel - 0.0015
        btn = union(cylinder(rb, inside + 0.01, 20, (1, 0, 0), (x_back, 0, z_c)),
                    cylinder(rb * 1.15, 0.004, 20, (1, 0, 0), (x_back, 0, z_c)))
        _add(b, "button", btn, "button", b.draw("button_finish"), root, "button", origin=[x_back, 0, z_c],
              axis=[1, 0, 0], upper=travel)
        clip_x0, foot_front = x0 + 0.003, False
        attrs["buttons"] = 1
        attrs["extras"] = ["a click button at the back", "a pocket clip"]
        tip_x = x0 + body_len
    else:
        grip = L * b.draw("grip_fraction")  # the section the cap covers, narrower by the cap's wall and a clearance
        rs = rc - 0.0011 - GAP
        s_step = L - 0.0048 - grip
        main = _along_x([(0, 0), (r, 0), (r, s_step), (0, s_step)], x_back, sides)
        neck = _along_x([(0, 0), (rs, 0), (rs, grip - cone), (0, grip - cone)], x_back + s_step, 24)
        nose = _along_x([(0, 0), (rs, 0), (rs * 0.4, cone), (0, cone)], x_back + s_step + grip - cone, 24)
        parts = [m.translated(lift) for m in (main, neck, nose)]
        root = _add(b, "barrel", union(*parts), "body", fin, collision=[reduced_hull(m) for m in parts],
                     physical=light)
        tip_x = x_back + L - 0.0048
        x_cap0 = x_back + s_step + GAP
        depth = (tip_x + 0.0048 + GAP) - x_cap0  # the cavity reaches 1.2 mm past the writing tip
        cap_len = depth + 0.0015
        to_x = np.eye(4)
        to_x[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]
        to_x[:3, 3] = [x_cap0, 0, z_c]
        cap_out = _along_x([(0, 0), (r, 0), (r, cap_len), (0, cap_len)], x_cap0, sides).translated(lift)
        cavity = lathe([(0, -0.001), (rs + GAP, -0.001), (rs + GAP, depth), (0, depth)], 24).transformed(to_x)
        cap = difference(cap_out, cavity)
        end = _along_x([(0, 0), (r, 0), (r, cap_len - depth), (0, cap_len - depth)], x_cap0 + depth,
                       sides).translated(lift)
        cap_pieces = [reduced_hull(end)] + [pc.transformed(to_x) for pc in
                                             annulus_sectors(rs + GAP, rc, 0.0, depth, 24, 8)]
        travel = depth + 0.002  # pulled clear of the tip
        _add(b, "cap", cap, "lid", fin, root, "slide", origin=[x_cap0, 0, z_c], axis=[1, 0, 0], upper=travel,
              physical=light, collision=cap_pieces)
        clip_parent, clip_x0, foot_front = "cap", x_cap0 + 0.002, True
        attrs["lid"] = {"type": "pull-off cap"}
        attrs["extras"] = ["a cap that pulls off the front", "a clip on the cap"]
    tip_m = _along_x([(0, 0), (r * 0.3, 0), (r * 0.18, 0.004), (0, 0.0048)], tip_x, 16).translated(lift)
    _add(b, "tip", tip_m, "other", tipfin, root)
    # the clip: a strip 1.2 mm over the barrel (or cap), fixed by a foot at one end, a bead at the other
    cw = min(0.0035, r * 0.7)
    clip_len = min(0.04, L * 0.28) if mech == "click" else cap_len - 0.004
    ztop = z_c + rc
    strip = box([clip_x0, -cw / 2, ztop + GAP], [clip_x0 + clip_len, cw / 2, ztop + GAP + 0.001])
    fx = clip_x0 + clip_len - 0.004 if foot_front else clip_x0
    bx = clip_x0 if foot_front else clip_x0 + clip_len - 0.004
    foot = box([fx, -cw / 2, ztop - 0.0003], [fx + 0.004, cw / 2, ztop + GAP + 0.0005])
    bead = box([bx, -cw / 2, ztop + 0.0004], [bx + 0.004, cw / 2, ztop + GAP + 0.0005])
    _add(b, "clip", union(strip, foot, bead), "other", cfin, clip_parent)
    attrs["kind"] = "click" if mech == "click" else "capped"
    b.attributes.update(attrs)


# --------------------------------------------------------------------------------------------- pocket knife


def build_knife(b: AssetBuilder) -> None:
    """A folding pocket knife lying on its side: two scales with a back spine, and a blade that swings out of
    the handle on a pivot pin (closed at rest, open to a straight line)."""
    p = b.p
    Lh = p["handle_length"]
    Wh = b.draw("handle_width")
    ts = b.draw("scale_thickness")
    tb = b.draw("blade_thickness")
    fin = b.draw("handle_finish")
    bfin = b.draw("blade_finish")
    Lb = Lh * b.draw("blade_fraction")
    r_pin = 0.002
    zb0 = ts + GAP
    zb1 = zb0 + tb
    T = zb1 + GAP + ts
    # the pivot at the handle's front end; the handle runs back along -X, its spine on +Y, open on -Y
    yc = 0.0
    xf = Wh * 0.5
    shape = p["handle_shape"]
    rr = Wh * 0.5
    outline = np.concatenate([_ellipse((0, yc), xf, rr, 12, -np.pi / 2, np.pi / 2 + 1e-9)[:12],
                              _ellipse((-Lh + rr, yc), rr, rr, 12, np.pi / 2, 1.5 * np.pi + 1e-9)[:12]])
    if shape == "slim":
        outline[:, 1] *= 0.9
    spine_w = 0.0022
    # the blade's tang: a disc round the pivot, the blade itself running back inside the handle when closed
    rt = Wh * 0.5 - spine_w - GAP - 0.0004
    if shape == "slim":
        rt = Wh * 0.45 - spine_w - GAP - 0.0004
    y_spine = rt + GAP  # the spine's inner face
    scales = [_slab(outline, 0.0, ts), _slab(outline, T - ts, T)]
    spine = box([-Lh + rr * 0.6, y_spine, ts - 0.0003], [-rt - GAP - 0.002, y_spine + spine_w, T - ts + 0.0003])
    pin = cylinder(r_pin, T, 20, at=(0, 0, 0))
    handle = union(*scales, spine, pin)
    root = _add(b, "handle", handle, "handle", fin, physical="aluminium" if fin.kind == "brushed_metal" else None,
                 collision=[reduced_hull(s) for s in scales] +
                 [spine, reduced_hull(pin)])
    # blade: drawn closed (pointing -X), its edge toward the open side (-Y), spine toward the handle's spine
    bw = rt * 1.6
    style = p["blade_style"]
    if style == "drop_point":
        blade = np.array([(0.0, -bw * 0.55), (-Lb * 0.8, -bw * 0.5), (-Lb, -bw * 0.1), (-Lb * 0.85, bw * 0.3),
                          (0.0, rt * 0.9)])
    else:  # clip point: a straight edge and a clipped spine near the tip
        blade = np.array([(0.0, -bw * 0.55), (-Lb * 0.85, -bw * 0.55), (-Lb, -bw * 0.35), (-Lb * 0.7, bw * 0.15),
                          (-Lb * 0.6, rt * 0.9), (0.0, rt * 0.9)])
    blade[:, 1] = np.minimum(blade[:, 1], rt * 0.9)
    tang = _ellipse((0, 0), rt, rt, 24)
    blade_m = union(_slab(blade, zb0, zb1), _slab(tang, zb0, zb1))
    hole = cylinder(r_pin + GAP, T + 0.01, 20, at=(0, 0, -0.005))
    blade_m = difference(blade_m, hole)
    nick = cylinder(0.0018, tb + 0.002, 12, at=(-Lb * 0.35, rt * 0.9, zb0 - 0.001))
    blade_m = difference(blade_m, nick)
    pieces = subtract_prism([reduced_hull(_slab(blade, zb0, zb1)), reduced_hull(_slab(tang, zb0, zb1))],
                            cylinder(r_pin + GAP, T + 0.01, 8, at=(0, 0, -0.005)), (0, 0, 1))
    _add(b, "blade", blade_m, "other", bfin, root, "lever", origin=[0, 0, zb0], axis=[0, 0, 1], upper=np.pi,
          collision=pieces)
    b.attributes.update({
        "kind": "pocket", "materials": {"handle": fin, "blade": bfin},
        "extras": [f"a {style.replace('_', ' ')} blade {round(Lb * 1000)} mm long that folds into the handle"]})


# --------------------------------------------------------------------------------------------- USB stick


def build_usb(b: AssetBuilder) -> None:
    """A USB flash drive lying flat: a body with a USB-A plug in front, covered by a cap that pulls off or by a
    metal cover that swivels half a turn about a pin near the back."""
    p = b.p
    L = p["length"]
    W = b.draw("width")
    H = b.draw("thickness")
    fin = b.draw("body_finish")
    mfin = b.draw("connector_finish")
    style = p["style"]
    cw, ch, cl = 0.012, 0.0045, 0.012  # the USB-A plug's shell
    tc = 0.0006  # swivel cover's sheet steel
    z0 = tc + GAP if style == "swivel" else 0.0
    zc = z0 + H / 2
    body = rounded_box([-L, -W / 2, z0], [0, W / 2, z0 + H], min(0.003, H * 0.45), 3)
    root = _add(b, "body", body, "body", fin, collision=[reduced_hull(body)])
    shell = difference(box([-0.003, -cw / 2, zc - ch / 2], [cl, cw / 2, zc + ch / 2]),
                       box([0.001, -cw / 2 + 0.0004, zc - ch / 2 + 0.0004], [cl + 0.01, cw / 2 - 0.0004,
                                                                             zc + ch / 2 - 0.0004]))
    _add(b, "plug", shell, "other", mfin, root, physical="steel")
    tongue = box([0.001, -0.0055, zc - ch / 2 + 0.0004], [cl - 0.0006, 0.0055, zc - ch / 2 + 0.0022])
    _add(b, "tongue", tongue, "other", b.draw("tongue_finish"), root)
    attrs: dict[str, object] = {"materials": {"body": fin}}
    if style == "cap":
        x0 = GAP
        depth = cl + GAP - x0 + 0.001  # the cavity reaches past the plug's tip
        outer = rounded_box([x0, -W / 2, z0], [x0 + depth + 0.0015, W / 2, z0 + H], min(0.003, H * 0.45), 3)
        cavity = box([x0 - 0.001, -cw / 2 - GAP, zc - ch / 2 - GAP], [x0 + depth, cw / 2 + GAP, zc + ch / 2 + GAP])
        cap = difference(outer, cavity)
        pieces = subtract_prism([reduced_hull(outer)], cavity, (1, 0, 0))
        travel = max(depth + 0.002, 0.021)  # pulled clear of the plug (and far enough to read as pulled off)
        _add(b, "cap", cap, "lid", b.draw("cap_finish", when=False, otherwise=fin), root, "slide",
             origin=[x0, 0, zc], axis=[1, 0, 0], upper=travel, collision=pieces)
        attrs["lid"] = {"type": "pull-off cap"}
        attrs["extras"] = ["a USB-A plug under a cap that pulls off"]
    else:
        x_p = -L + min(0.006, L * 0.15)
        rp = 0.0012
        pin = cylinder(rp, 2 * tc + 2 * GAP + H - 0.0006, 16, at=(x_p, 0, 0.0003))
        _add(b, "pin", pin, "other", mfin, root)
        d_tip = np.hypot(cl - x_p, cw / 2)
        x_bend = x_p + d_tip + GAP + 0.0003  # the bend's inner face clears the plug's corners all the way round
        wc = min(W, cw + 0.006)
        top = 2 * tc + 2 * GAP + H
        # the plates run half into the bend, whose sides and ends stay 0.1 mm inside theirs (faces merely touching
        # or flush leave sliver triangles in the union)
        outline = np.concatenate([_ellipse((x_p, 0), wc / 2, wc / 2, 16, np.pi / 2, 1.5 * np.pi),
                                  [(x_bend + tc / 2, -wc / 2), (x_bend + tc / 2, wc / 2)]])
        plates = [_slab(outline, 0, tc), _slab(outline, top - tc, top)]
        e = 0.0001
        bend = box([x_bend, -wc / 2 + e, e], [x_bend + tc, wc / 2 - e, top - e])
        hole = cylinder(rp + GAP, top + 0.002, 16, at=(x_p, 0, -0.001))
        cover = difference(union(*plates, bend), hole)
        pieces = subtract_prism([reduced_hull(pl) for pl in plates], cylinder(rp + GAP, top + 0.002, 8,
                                                                             at=(x_p, 0, -0.001)), (0, 0, 1))
        _add(b, "cover", cover, "other", b.draw("cover_finish"), root, "lever", origin=[x_p, 0, 0], axis=[0, 0, 1],
             upper=np.pi, physical="steel", collision=[*pieces, bend])
        attrs["extras"] = ["a metal cover that swivels half a turn to uncover the USB-A plug"]
    attrs["kind"] = "swivel" if style == "swivel" else "capped"
    b.attributes.update(attrs)


# --------------------------------------------------------------------------------------------- lighter


def build_lighter(b: AssetBuilder) -> None:
    """A disposable lighter standing upright: a moulded tank, a steel hood holding the spark wheel on its axle,
    and the gas lever in front of the wheel that presses down into its pocket."""
    p = b.p
    H = p["height"]
    W = b.draw("width")
    D = b.draw("depth")
    fin = b.draw("body_finish")
    hfin = b.draw("hood_finish")
    Hb = H - b.draw("hood_height")  # the tank's top
    # the tank: a rounded-rectangle section standing on its flat base
    rc = D * 0.42
    section = np.concatenate([_ellipse((cx, cy), rc, rc, 7, a0, a0 + np.pi / 2) for cx, cy, a0 in
                              ((D / 2 - rc, W / 2 - rc, 0.0), (-D / 2 + rc, W / 2 - rc, np.pi / 2),
                               (-D / 2 + rc, -W / 2 + rc, np.pi), (D / 2 - rc, -W / 2 + rc, 1.5 * np.pi))])
    tank_solid = _slab(section, 0.0, Hb)
    tank = tank_solid
    rw = b.draw("wheel_radius")
    ww = min(W * 0.38, 0.009)
    # the wheel towards the back, leaving the lever in front at least 2.5 mm deep
    xw = min(-D * 0.12, D / 2 - 0.0012 - 0.0025 - rw - GAP - 0.0005)
    zw = Hb + rw + 0.0025
    t_plate = 0.0008
    yp = ww / 2 + GAP  # the hood's side plates' inner faces
    # the gas lever (fork): in front of the wheel, sitting in a pocket in the tank's top
    travel = b.draw("lever_travel")
    fx0, fx1 = xw + rw + GAP + 0.0005, D / 2 - 0.0012
    fy = ww / 2
    # the lever's foot sits 2 mm deep in the pocket and stops 1.2 mm short of its floor when pressed
    pocket = box([fx0 - GAP, -fy - GAP, Hb - 0.002 - travel - GAP], [fx1 + GAP, fy + GAP, Hb + 0.01])
    tank = difference(tank, pocket)
    tank_cols = subtract_prism([reduced_hull(tank_solid)], pocket, (0, 0, 1))
    root = _add(b, "tank", tank, "body", fin, collision=tank_cols)
    # the hood: two steel cheeks standing on the tank's top either side of the wheel, joined by the axle and a
    # bridge in front of the wheel's top
    plates = [box([-D / 2 + 0.0008, s0, Hb - 0.0005], [D / 2 - 0.0008, s1, zw + rw + 0.0015])
              for s0, s1 in ((yp, yp + t_plate), (-yp - t_plate, -yp))]
    axle = cylinder(0.0008, 2 * yp + 0.0002, 12, (0, 1, 0), (xw, -yp - 0.0001, zw))
    _add(b, "hood", union(*plates, axle), "frame", hfin, root, physical="steel",
         collision=[*plates, reduced_hull(axle)])
    wheel = difference(cylinder(rw, ww, 24, (0, 1, 0), (xw, -ww / 2, zw)),
                       cylinder(0.0008 + GAP, ww + 0.002, 12, (0, 1, 0), (xw, -ww / 2 - 0.001, zw)))
    # knurling: shallow grooves across the rim
    grooves = [box([-rw - 0.001, -ww, -0.0002], [-rw + 0.0003, ww, 0.0002]).transformed(
        rotation_about([0, 1, 0], a, [0, 0, 0])).translated([xw, 0, zw]) for a in np.linspace(0, 2 * np.pi, 16,
                                                                                             endpoint=False)]
    wheel = difference(wheel, *grooves)
    wheel_cols = subtract_prism([reduced_hull(cylinder(rw - 0.0003, ww, 16, (0, 1, 0), (xw, -ww / 2, zw)))],
                                cylinder(0.0008 + GAP, ww + 0.002, 8, (0, 1, 0), (xw, -ww / 2 - 0.001, zw)), (0, 1, 0))
    _add(b, "wheel", wheel, "wheel", finish("brushed_metal", "stainless steel"), "hood", "wheel",
         origin=[xw, 0, zw], axis=[0, 1, 0], physical="steel", collision=wheel_cols)
    fork = rounded_box([fx0, -fy, Hb - 0.002], [fx1, fy, Hb + 0.0035], 0.0008, 2)
    _add(b, "lever", fork, "button", b.draw("lever_finish"), root, "button", origin=[(fx0 + fx1) / 2, 0, Hb],
         axis=[0, 0, -1], upper=travel)
    b.attributes.update({
        "kind": "disposable", "materials": {"body": fin, "hood": hfin}, "buttons": 1,
        "extras": ["a spark wheel that turns under the thumb", "a gas lever that presses down"]})


# --------------------------------------------------------------------------------------------- remote control


def build_remote(b: AssetBuilder) -> None:
    """A TV remote lying on its back: a rounded body with a power button near the front and a grid of keys, each
    in its own pocket, pressing down."""
    p = b.p
    L = p["length"]
    W = b.draw("width")
    H = b.draw("thickness")
    fin = b.draw("body_finish")
    kfin = b.draw("key_finish")
    rows, cols = p["rows"], p["columns"]
    travel = b.draw("key_travel")
    r = min(H * 0.4, W * 0.2)
    depth = travel + GAP + 0.002  # pocket depth: each key sits 2 mm in it when pressed home
    y_span = W - 2 * r - 0.004
    ky = min(0.011, (y_span - (cols - 1) * 0.003) / cols)
    kx = ky * 0.7
    pitch_y = (y_span - ky) / max(cols - 1, 1)
    pitch_x = kx + 0.005
    x_front = L / 2 - r - 0.01  # the power button's centre
    keys = [(x_front, 0.0, ky * 0.9, ky * 0.9, True)]
    x_top = x_front - 0.022
    for i in range(rows):
        for j in range(cols):
            keys.append((x_top - i * pitch_x, -y_span / 2 + ky / 2 + j * pitch_y if cols > 1 else 0.0, kx, ky, False))
    if keys[-1][0] - kx / 2 < -L / 2 + r + 0.01:
        raise ValueError("remote keys do not fit")  # ranges keep them inside; a given length too short is refused
    pockets = [box([x - sx / 2 - GAP, y - sy / 2 - GAP, H - depth], [x + sx / 2 + GAP, y + sy / 2 + GAP, H + 0.01])
               for x, y, sx, sy, _ in keys]
    shell = rounded_box([-L / 2, -W / 2, 0], [L / 2, W / 2, H], r, 4)
    body = difference(shell, *pockets)
    lower = intersection(shell, box([-L / 2 - 0.01, -W / 2 - 0.01, -0.01], [L / 2 + 0.01, W / 2 + 0.01, H - depth]))
    top_layer = difference(box([-L / 2 + r, -W / 2 + r, H - depth], [L / 2 - r, W / 2 - r, H]), *pockets)
    root = _add(b, "body", body, "body", fin, physical="electronics",
                collision=[reduced_hull(lower), *rectilinear_boxes(top_layer)])
    pfin = b.draw("power_finish")
    for k, (x, y, sx, sy, power) in enumerate(keys):
        key = rounded_box([x - sx / 2, y - sy / 2, H - depth + travel + GAP], [x + sx / 2, y + sy / 2,
                                                                              H + 0.0015], 0.001, 2)
        _add(b, "power" if power else f"key_{k}", key, "button", pfin if power else kfin, root, "button",
             origin=[x, y, H], axis=[0, 0, -1], upper=travel, collision=[reduced_hull(key)])
    b.attributes.update({
        "materials": {"body": fin, "keys": kfin}, "buttons": len(keys),
        "extras": ["a power button at the top", f"{rows} rows of {cols} keys"]})


# --------------------------------------------------------------------------------------------- flip phone


def build_phone(b: AssetBuilder) -> None:
    """A flip phone lying closed: a base with a keypad, and a lid with the screen on its inside, hinged on the
    base's back edge and opening past upright."""
    p = b.p
    D = p["length"]
    W = b.draw("width")
    tb = b.draw("base_thickness")
    tl = b.draw("lid_thickness")
    fin = b.draw("body_finish")
    r = min(0.006, W * 0.12)
    base = rounded_box([-D / 2, -W / 2, 0], [D / 2, W / 2, tb], r, 3)
    # a keypad well in the base's top
    kx0, kx1 = -D / 2 + 0.008, D / 2 - 0.006
    well = box([kx0, -W / 2 + 0.005, tb - 0.0008], [kx1, W / 2 - 0.005, tb + 0.01])
    body = difference(base, well)
    root = _add(b, "base", body, "base", fin, physical="electronics",
                collision=subtract_prism([reduced_hull(base)], well, (0, 0, 1)))
    keys = []
    rows, cols = 5, 3
    kw = (W - 0.01 - 0.0016 - (cols - 1) * 0.0015) / cols
    kd = (kx1 - kx0 - 0.0016 - (rows - 1) * 0.0015) / rows
    for i in range(rows):
        for j in range(cols):
            x = kx0 + 0.0008 + i * (kd + 0.0015)
            y = -W / 2 + 0.0058 + j * (kw + 0.0015)
            keys.append(rounded_box([x, y, tb - 0.0008], [x + kd, y + kw, tb - 0.0001], 0.0003, 1))
    _add(b, "keypad", union(*keys), "keyboard", b.draw("key_finish"), root, physical="plastic",
         origin=[(kx0 + kx1) / 2, 0, tb - 0.0008])
    lid = rounded_box([-D / 2, -W / 2, tb + GAP], [D / 2, W / 2, tb + GAP + tl], r, 3)
    rim = 0.004
    recess = box([-D / 2 + 0.012, -W / 2 + rim, tb + GAP - 0.001], [D / 2 - rim, W / 2 - rim, tb + GAP + 0.0006])
    lid_m = difference(lid, recess)
    up = float(np.deg2rad(b.draw("open_angle")))
    _add(b, "lid", lid_m, "screen", fin, root, "lid", origin=[-D / 2, 0, tb + GAP], axis=[0, -1, 0], upper=up,
         physical="electronics", collision=subtract_prism([reduced_hull(lid)], recess, (0, 0, 1)))
    panel = box([-D / 2 + 0.0128, -W / 2 + rim + 0.0008, tb + GAP + 0.0001],
                [D / 2 - rim - 0.0008, W / 2 - rim - 0.0008, tb + GAP + 0.0006])
    _add(b, "display", panel, "panel", finish("glass", "smoked"), "lid")
    # the small outer display and camera lens on the lid's outside, towards the hinge
    zt = tb + GAP + tl
    outer = box([-D / 2 + 0.01, -W * 0.3, zt - 0.0003], [-D / 2 + 0.01 + D * 0.3, W * 0.3, zt + 0.0004])
    lens = cylinder(0.0025, 0.0007, 20, at=(-D / 2 + 0.01 + D * 0.3 + 0.006, 0, zt - 0.0003))
    _add(b, "outer_display", union(outer, lens), "panel", finish("glass", "smoked"), "lid")
    b.attributes.update({
        "kind": "flip", "materials": {"body": fin}, "state": "closed",
        "extras": [f"a lid that flips open to {round(float(np.rad2deg(up)))} degrees", "a screen inside the lid",
                   "a keypad"]})


# --------------------------------------------------------------------------------------------- mouse


def build_mouse(b: AssetBuilder) -> None:
    """A computer mouse: a domed shell, two buttons over its front half that press down, and a scroll wheel
    between them turning about its axle."""
    p = b.p
    L = p["length"]
    W = b.draw("width")
    H = b.draw("height")
    fin = b.draw("body_finish")
    bfin = b.draw("button_finish", when=False, otherwise=fin) if not p["two_tone"] else b.draw("button_finish")
    hump = b.draw("hump_back")

    def warp(x: np.ndarray) -> np.ndarray:
        """Shift the middle back by up to ``hump`` x length, ends fixed: the dome peaks behind the middle."""
        return x - hump * L * (1 - (2 * x / L) ** 2)

    dome = sphere(1.0, (0, 0, 0), 48).transformed(np.diag([L / 2, W / 2, H, 1.0]))
    v = dome.vertices.copy()
    v[:, 0] = warp(v[:, 0])
    shell = intersection(Mesh(v, dome.faces), box([-L, -W, 0], [L, W, H * 1.1]))
    grid = np.linspace(-L / 2, L / 2, 401)
    travel = b.draw("button_travel")
    xs = -L * 0.04  # the buttons' back edge
    zc = H * b.draw("split_height")  # the buttons' lower edge
    rw, ww = b.draw("wheel_radius"), 0.0065
    xw = L * 0.2
    x0 = float(np.interp(xw, warp(grid), grid))  # where on the undistorted dome the wheel's x lies
    z_surf = H * float(np.sqrt(max(1 - (2 * x0 / L) ** 2, 0.0)))
    zw = z_surf + 0.002 - rw  # the wheel stands 2 mm above the shell
    cut = box([xs - GAP, -W, zc - travel - GAP], [L, W, H * 1.2])
    slot = box([xw - rw - GAP, -ww / 2 - GAP, zw - rw - GAP], [xw + rw + GAP, ww / 2 + GAP, H * 1.2])
    body = difference(shell, cut, slot)
    pieces = subtract_prism([reduced_hull(shell)], cut, (0, 1, 0))
    pieces = subtract_prism(pieces, slot, (0, 0, 1))
    root = _add(b, "body", body, "body", fin, physical="appliance_shell", collision=pieces)
    for name, lo_y, hi_y in (("button_left", ww / 2 + GAP, W), ("button_right", -W, -ww / 2 - GAP)):
        btn = intersection(shell, box([xs, lo_y, zc], [L, hi_y, H * 1.2]))
        _add(b, name, btn, "button", bfin, root, "button", origin=[L * 0.25, (lo_y + hi_y) / 2, zc], axis=[0, 0, -1],
             upper=travel, collision=[reduced_hull(btn)])
    wheel = cylinder(rw, ww, 32, (0, 1, 0), (xw, -ww / 2, zw))
    _add(b, "wheel", wheel, "wheel", b.draw("wheel_finish"), root, "wheel", origin=[xw, 0, zw], axis=[0, 1, 0],
         collision=[reduced_hull(wheel)])
    b.attributes.update({
        "materials": {"body": fin, "buttons": bfin}, "buttons": 2, "wheels": 1,
        "extras": ["two click buttons", "a scroll wheel between them"]})


# --------------------------------------------------------------------------------------------- wall switch


def build_switch(b: AssetBuilder) -> None:
    """A surface-mounted toggle light switch, upright as on a wall: a box, a plate with one or two slots, and in
    each a toggle (a hub and a tapered bat) that flips from down (off) to up (on) about a horizontal pivot."""
    p = b.p
    Hp = p["height"]
    gangs = p["gangs"]
    Wp = Hp if gangs == 1 else Hp * b.draw("double_width")
    tp = b.draw("plate_thickness")
    fin = b.draw("body_finish")
    tfin = b.draw("toggle_finish", when=False, otherwise=fin) if not p["metal_toggle"] else b.draw("toggle_finish")
    flip = float(np.deg2rad(b.draw("throw")))  # each way from the middle
    L_bat = b.draw("bat_length")
    r_h = 0.0032
    hub_w = 0.008
    x_r, z_c = tp * 0.45, Hp / 2
    bd = b.draw("box_depth")
    plate = rounded_box([0, -Wp / 2, 0], [tp, Wp / 2, Hp], min(0.0025, tp * 0.3), 3)
    back = rounded_box([-bd, -Wp / 2 + 0.002, 0], [0.0005, Wp / 2 - 0.002, Hp - 0.002], 0.003, 3)
    ys = [0.0] if gangs == 1 else [-Wp * 0.22, Wp * 0.22]
    r0 = min(0.0022, r_h * 0.7)
    # the slot clears the hub, and the leaning bat where it leaves the plate's front face
    hs = max(r_h, (tp - x_r) * np.tan(flip) + r0 / np.cos(flip) + 0.0002) + GAP
    slots = [box([-0.001, y - hub_w / 2 - GAP, z_c - hs], [tp + 0.001, y + hub_w / 2 + GAP, z_c + hs]) for y in ys]
    # the surface-mount box the switch sits on (it stands the switch on a desk as it sits on a wall), with a
    # recess behind each slot for the toggle's hub
    recesses = [box([-0.004, y - hub_w / 2 - GAP, z_c - hs], [0.001, y + hub_w / 2 + GAP, z_c + hs]) for y in ys]
    cols = [reduced_hull(back)]
    for r in recesses:
        cols = subtract_prism(cols, r, (1, 0, 0))
    root = _add(b, "box", difference(back, *recesses), "body", b.draw("box_finish", when=False, otherwise=fin),
                collision=cols)
    cols = [reduced_hull(plate)]
    for sl in slots:
        cols = subtract_prism(cols, sl, (1, 0, 0))
    _add(b, "plate", difference(plate, *slots), "panel", fin, root, collision=cols)
    down = rotation_about([0, 1, 0], flip, [x_r, 0, z_c])  # drawn off: the bat points down-forward
    for k, y in enumerate(ys):
        hub = cylinder(r_h, hub_w, 24, (0, 1, 0), (x_r, y - hub_w / 2, z_c))
        bat = cylinder(r0, L_bat, 20, (1, 0, 0), (x_r, y, z_c), radius_top=r0 * 0.75)
        tip = sphere(r0 * 0.95, (x_r + L_bat, y, z_c), 16)
        toggle = union(hub, bat, tip).transformed(down)
        _add(b, f"toggle_{k}" if gangs > 1 else "toggle", toggle, "lever", tfin, root, "lever",
             origin=[x_r, y, z_c], axis=[0, -1, 0], upper=2 * flip,
             collision=[reduced_hull(hub.transformed(down)), reduced_hull(union(bat, tip).transformed(down))])
    b.attributes.update({
        "kind": "toggle", "materials": {"plate": fin, "toggles": tfin},
        "extras": [f"{'a toggle' if gangs == 1 else 'two toggles'} that flip{'s' if gangs == 1 else ''} up and down",
                   "a wall plate on a surface-mount box"]})


# --------------------------------------------------------------------------------------------- keyboard


def build_keyboard(b: AssetBuilder) -> None:
    """A compact computer keyboard: a case with one recessed well, four rows of keys and a bottom row with a
    spacebar between modifier keys, every key pressing down on its own."""
    p = b.p
    cols = p["columns"]
    pitch = 0.01905  # the standard key pitch (3/4 inch)
    cap = pitch - b.draw("key_gap")
    margin = b.draw("margin")
    tb = b.draw("case_height")
    travel = b.draw("key_travel")
    fin = b.draw("body_finish")
    kfin = b.draw("key_finish")
    rows = 5
    W = cols * pitch + 2 * margin
    D = rows * pitch + 2 * margin
    floor = tb - (travel + GAP + 0.002)  # each key's skirt sits 2 mm into the well
    edge = margin - (pitch - cap) / 2 - GAP  # the well's wall stands GAP outside the outer keycaps
    case = rounded_box([-D / 2, -W / 2, 0], [D / 2, W / 2, tb], min(0.004, tb * 0.3), 3)
    well = box([-D / 2 + edge, -W / 2 + edge, floor], [D / 2 - edge, W / 2 - edge, tb + 0.01])
    root = _add(b, "case", difference(case, well), "body", fin, physical="electronics",
                collision=subtract_prism([reduced_hull(case)], well, (0, 0, 1)))
    # rows from the back (-X) to the front (+X); the front row: 1.5u keys either side of the spacebar
    spans: list[tuple[int, float, float]] = [(r, c, 1.0) for r in range(rows - 1) for c in range(cols)]
    side = 1.5
    spans += [(rows - 1, 0.0, side), (rows - 1, side, side), (rows - 1, 2 * side, cols - 4 * side),
              (rows - 1, cols - 2 * side, side), (rows - 1, cols - side, side)]
    top = tb + b.draw("key_height")
    for k, (r, c, units) in enumerate(spans):
        x = -D / 2 + margin + (r + 0.5) * pitch
        y0 = -W / 2 + margin + c * pitch + (pitch - cap) / 2
        y1 = y0 + units * pitch - (pitch - cap)
        key = rounded_box([x - cap / 2, y0, floor + travel + GAP], [x + cap / 2, y1, top], 0.0012, 2)
        name = "spacebar" if units > 2 else f"key_{k}"
        _add(b, name, key, "button", kfin, root, "button", origin=[x, (y0 + y1) / 2, tb], axis=[0, 0, -1],
             upper=travel, collision=[reduced_hull(key)])
    b.attributes.update({
        "kind": "compact", "materials": {"body": fin, "keys": kfin}, "buttons": len(spans),
        "extras": [f"{len(spans)} keys in five rows", "a spacebar", f"keys that travel {travel * 1000:.1f} mm"]})


# --------------------------------------------------------------------------------------------- registry

STEELS = ("brushed_metal", "chrome")

CATEGORIES: tuple[Category, ...] = (
    Category("scissors", "scissors: two steel blades on a pivot screw, moulded finger and thumb loops",
             {"length": frange(0.13, 0.23, "overall length, m"),
              "tip": choice("pointed", "rounded", doc="blade tips"),
              "blade_fraction": frange(0.46, 0.56, "blade length in front of the screw, share of the length",
                                       draw="inline"),
              "blade_thickness": frange(0.0018, 0.0026, "each blade's thickness, m", draw="inline"),
              "blade_width": frange(0.014, 0.019, "blade width at the screw, m", draw="inline"),
              "handle_finish": finish_param("plastic", doc="moulded handles (what a colour word paints)"),
              "blade_finish": finish_param(STEELS, ("stainless steel", "chrome", "black steel"), doc="blades"),
              "loop_width": frange(0.004, 0.006, "finger-loop ring width, m", draw="inline"),
              "finger_loop": frange(0.02, 0.028, "finger hole's width across, m", draw="inline"),
              "thumb_loop": frange(0.016, 0.02, "thumb hole's width across, m", draw="inline"),
              "handle_extra": frange(0.0015, 0.003, "how much thicker the handles are than the two blades, m",
                                     draw="inline"),
              "open_angle": frange(55, 75, "how far the blades open, degrees", draw="inline")},
             (0.12, 0.04, 0.005), (0.24, 0.09, 0.012), build_scissors,
             ("scissors", "pair of scissors", "shears")),
    Category("pliers", "pliers: two forged halves crossing at a rivet, jaws and gripped handles",
             {"length": frange(0.15, 0.24, "overall length, m"),
              "kind": choice("combination", "needle_nose", doc="short broad jaws or long thin jaws"),
              "thickness": frange(0.008, 0.011, "thickness at the jaws and handles, m", draw="inline"),
              "jaw_fraction": frange(0.18, 0.24, "jaw length in front of the rivet, share of the length "
                                     "(needle-nose jaws half as long again)", draw="inline"),
              "jaw_width": frange(0.008, 0.011, "each jaw's width at the rivet, m", draw="inline"),
              "handle_spread": frange(0.01, 0.018, "gap between the closed handles at their ends, m (half)",
                                      draw="inline"),
              "grip_finish": finish_param(("rubber", "plastic"), doc="handle grips (what a colour word paints)"),
              "steel_finish": finish_param(STEELS, ("stainless steel", "chrome", "black steel", "polished nickel"),
                                           doc="the forged halves"),
              "open_angle": frange(25, 35, "how far the jaws open, degrees", draw="inline")},
             (0.14, 0.035, 0.007), (0.26, 0.075, 0.015), build_pliers,
             ("pliers", "pair of pliers", "needle-nose pliers", "combination pliers")),
    Category("eyeglasses", "eyeglasses standing open: two rims with lenses, a bridge and temples folding on "
                           "hinges",
             {"lens_shape": choice("round", "oval", "rectangular", doc="lens outline"),
              "lens_width": frange(0.045, 0.056, "each lens's width, m", draw="inline"),
              "lens_height": frange(0.03, 0.042, "each lens's height, m", draw="inline"),
              "bridge_width": frange(0.015, 0.021, "gap between the lenses, m", draw="inline"),
              "rim_width": frange(0.0025, 0.005, "rim width round each lens, m", draw="inline"),
              "front_thickness": frange(0.0035, 0.005, "front's thickness, m", draw="inline"),
              "temple_length": frange(0.135, 0.15, "temple length to the earpiece's tip (horizontal), m",
                                      draw="inline"),
              "bend_at": frange(0.68, 0.75, "where the earpiece bends down, share of the temple's length",
                                draw="inline"),
              "lug_depth": frange(0.004, 0.008, "how far the end pieces reach back from the front, m",
                                  draw="inline"),
              "frame_finish": finish_param(("plastic", "plastic", "brushed_metal", "chrome"),
                                           doc="front and temples"),
              "lens_finish": finish_param("glass", ("clear", "smoked", "blue", "green", "amber"), doc="lenses")},
             (0.14, 0.11, 0.03), (0.17, 0.16, 0.06), build_eyeglasses,
             ("eyeglasses", "spectacles", "pair of glasses", "sunglasses", "reading glasses")),
    Category("stapler", "desk stapler: a base with an anvil and an arm hinged at the back",
             {"length": frange(0.13, 0.2, "m"),
              "width": frange(0.035, 0.048, "m", draw="inline"),
              "base_thickness": frange(0.007, 0.011, "m", draw="inline"),
              "arm_gap": frange(0.005, 0.012, "gap between the base and the arm at rest (the spring), m",
                                draw="inline"),
              "arm_height": frange(0.02, 0.03, "arm height, m", draw="inline"),
              "two_tone": choice(False, True, doc="the arm in a finish of its own"),
              "body_finish": finish_param(("painted_metal", "plastic"), doc="base (and arm unless two-tone)"),
              "arm_finish": finish_param(("painted_metal", "plastic", "chrome"), doc="arm when two-tone"),
              "anvil_finish": finish_param("chrome", doc="anvil plate"),
              "open_angle": frange(70, 100, "how far the arm lifts, degrees", draw="inline")},
             (0.13, 0.035, 0.035), (0.2, 0.048, 0.06), build_stapler, ("stapler", "desk stapler")),
    Category("pen", "ballpoint pen: click button at the back or a pull-off cap, pocket clip",
             {"length": frange(0.13, 0.15, "m"),
              "mechanism": choice("click", "cap", doc="push-button click pen or capped stick pen"),
              "barrel": choice("round", "hexagonal", doc="barrel cross-section"),
              "barrel_radius": frange(0.004, 0.0055, "m", draw="inline"),
              "body_finish": finish_param(("plastic", "plastic", "brushed_metal", "painted_metal"),
                                          doc="barrel (and cap)"),
              "clip_finish": finish_param(("chrome", "plastic"), doc="pocket clip"),
              "tip_finish": finish_param("brushed_metal", ("stainless steel", "brass"), doc="writing tip"),
              "click_travel": frange(0.0025, 0.004, "click button's travel, m", draw="inline"),
              "button_finish": finish_param(("plastic", "chrome"), doc="click button"),
              "grip_fraction": frange(0.3, 0.36, "capped pen: the length the cap covers, share of the pen's",
                                      draw="inline")},
             (0.13, 0.007, 0.008), (0.16, 0.012, 0.014), build_pen,
             ("pen", "ballpoint pen", "ballpoint", "click pen", "ball pen")),
    Category("knife", "folding pocket knife: scales with a spine, a blade that swings out on a pivot pin",
             {"handle_length": frange(0.08, 0.115, "closed length, m"),
              "handle_width": frange(0.018, 0.024, "m", draw="inline"),
              "handle_shape": choice("standard", "slim", doc="handle outline"),
              "scale_thickness": frange(0.0025, 0.004, "each scale's thickness, m", draw="inline"),
              "blade_thickness": frange(0.002, 0.003, "m", draw="inline"),
              "blade_fraction": frange(0.72, 0.85, "blade length, share of the handle's length", draw="inline"),
              "blade_style": choice("drop_point", "clip_point", doc="blade profile"),
              "handle_finish": finish_param(("wood", "plastic", "brushed_metal"), doc="scales and spine"),
              "blade_finish": finish_param(STEELS, ("stainless steel", "chrome", "black steel"), doc="blade")},
             (0.08, 0.015, 0.008), (0.125, 0.026, 0.014), build_knife,
             ("pocket knife", "folding knife", "penknife", "knife", "jackknife")),
    Category("usb", "USB flash drive: a body with a USB-A plug under a pull-off cap or a swivelling cover",
             {"length": frange(0.035, 0.055, "body length without the plug, m"),
              "style": choice("cap", "swivel", doc="pull-off cap or metal swivel cover"),
              "width": frange(0.016, 0.021, "m", draw="inline"),
              "thickness": frange(0.0065, 0.009, "m", draw="inline"),
              "body_finish": finish_param(("plastic", "plastic", "brushed_metal"), doc="body (and cap)"),
              "connector_finish": finish_param("chrome", ("chrome",), doc="plug shell"),
              "tongue_finish": finish_param("plastic", ("black", "blue", "white"), doc="the plug's tongue"),
              "cap_finish": finish_param(("plastic",), doc="cap (default: the body's finish)", draw="inline"),
              "cover_finish": finish_param(("brushed_metal", "chrome"), ("stainless steel", "aluminium", "chrome"),
                                           doc="swivel cover")},
             (0.045, 0.015, 0.006), (0.08, 0.022, 0.014), build_usb,
             ("usb stick", "usb flash drive", "flash drive", "thumb drive", "memory stick", "usb drive")),
    Category("lighter", "disposable lighter: a tank, a steel hood with a spark wheel, a gas lever",
             {"height": frange(0.07, 0.082, "m"),
              "width": frange(0.022, 0.026, "m", draw="inline"),
              "depth": frange(0.011, 0.014, "m", draw="inline"),
              "hood_height": frange(0.011, 0.014, "hood and wheel above the tank, m", draw="inline"),
              "wheel_radius": frange(0.0035, 0.0045, "spark wheel radius, m", draw="inline"),
              "lever_travel": frange(0.0022, 0.003, "gas lever's travel, m", draw="inline"),
              "body_finish": finish_param("plastic", doc="tank"),
              "hood_finish": finish_param(("chrome", "brushed_metal"), ("chrome", "stainless steel"), doc="hood"),
              "lever_finish": finish_param("plastic", ("black", "grey", "red", "white"), doc="gas lever")},
             (0.011, 0.022, 0.065), (0.015, 0.027, 0.09), build_lighter,
             ("lighter", "cigarette lighter", "disposable lighter")),
    Category("remote", "TV remote: a rounded body, a power button and a grid of keys pressing into pockets",
             {"length": frange(0.15, 0.21, "m"),
              "rows": irange(3, 6, "rows of keys below the power button"),
              "columns": irange(2, 3, "keys per row"),
              "width": frange(0.04, 0.055, "m", draw="inline"),
              "thickness": frange(0.016, 0.024, "m", draw="inline"),
              "key_travel": frange(0.002, 0.0028, "m", draw="inline"),
              "body_finish": finish_param("plastic", ("black", "grey", "white"), doc="body"),
              "key_finish": finish_param(("rubber", "plastic"), doc="keys"),
              "power_finish": finish_param("plastic", ("red",), doc="power button")},
             (0.15, 0.04, 0.017), (0.21, 0.055, 0.026), build_remote,
             ("remote", "remote control", "tv remote", "television remote")),
    Category("phone", "flip phone: a base with a keypad and a lid with the screen, hinged at the back",
             {"length": frange(0.085, 0.105, "closed length, m"),
              "width": frange(0.045, 0.053, "m", draw="inline"),
              "base_thickness": frange(0.009, 0.012, "m", draw="inline"),
              "lid_thickness": frange(0.007, 0.009, "m", draw="inline"),
              "body_finish": finish_param(("plastic", "painted_metal", "brushed_metal"),
                                          ("black", "silver grey", "aluminium", "red", "blue", "white", "anthracite"),
                                          doc="case"),
              "key_finish": finish_param("plastic", ("black", "grey", "white"), doc="keypad"),
              "open_angle": frange(155, 170, "how far the lid opens, degrees", draw="inline")},
             (0.085, 0.045, 0.017), (0.106, 0.054, 0.023), build_phone,
             ("flip phone", "mobile phone", "cell phone", "phone", "clamshell phone")),
    Category("mouse", "computer mouse: a domed shell, two buttons that press down, a scroll wheel",
             {"length": frange(0.1, 0.125, "m"),
              "two_tone": choice(False, True, doc="buttons in a finish of their own"),
              "width": frange(0.058, 0.068, "m", draw="inline"),
              "height": frange(0.033, 0.042, "m", draw="inline"),
              "hump_back": frange(0.04, 0.1, "how far behind the middle the dome peaks, share of the length",
                                  draw="inline"),
              "body_finish": finish_param("plastic", ("black", "grey", "white"), doc="shell (and buttons)"),
              "button_finish": finish_param("plastic", ("black", "grey", "white", "red", "blue"),
                                            doc="buttons when two-tone"),
              "button_travel": frange(0.002, 0.0025, "m", draw="inline"),
              "split_height": frange(0.55, 0.65, "buttons' lower edge, share of the height", draw="inline"),
              "wheel_radius": frange(0.0085, 0.0105, "scroll wheel radius, m", draw="inline"),
              "wheel_finish": finish_param("rubber", doc="scroll wheel")},
             (0.1, 0.058, 0.033), (0.125, 0.068, 0.045), build_mouse,
             ("computer mouse", "mouse", "wireless mouse", "optical mouse")),
    Category("switch", "toggle light switch: a plate on a surface-mount box, one or two toggles flipping up and down",
             {"height": frange(0.07, 0.086, "wall plate height, m"),
              "gangs": irange(1, 2, "toggles side by side"),
              "metal_toggle": choice(False, True, doc="toggles in metal rather than the plate's finish"),
              "double_width": frange(1.15, 1.35, "a two-gang plate's width over its height", draw="inline"),
              "plate_thickness": frange(0.006, 0.009, "m", draw="inline"),
              "box_depth": frange(0.025, 0.035, "surface-mount box's depth behind the plate, m", draw="inline"),
              "box_finish": finish_param("plastic", doc="surface-mount box (default: the plate's finish)"),
              "throw": frange(18, 25, "how far a toggle leans each way from the middle, degrees", draw="inline"),
              "bat_length": frange(0.012, 0.018, "toggle length in front of the pivot, m", draw="inline"),
              "body_finish": finish_param(("plastic", "plastic", "brushed_metal"),
                                          ("white", "beige", "black", "stainless steel", "brass", "ivory"),
                                          doc="plate (and toggles)"),
              "toggle_finish": finish_param(("chrome", "brushed_metal"), doc="metal toggles")},
             (0.04, 0.07, 0.07), (0.07, 0.12, 0.086), build_switch,
             ("light switch", "wall switch", "toggle switch", "switch"), mount="wall"),
    Category("keyboard", "compact computer keyboard: a case with a recessed well, five rows of keys pressing down",
             {"columns": irange(10, 14, "1u keys per row (the case's width follows)"),
              "key_gap": frange(0.0032, 0.0042, "gap between neighbouring keycaps, m", draw="inline"),
              "margin": frange(0.008, 0.016, "case border round the keys, m", draw="inline"),
              "case_height": frange(0.012, 0.018, "m", draw="inline"),
              "key_travel": frange(0.003, 0.004, "m", draw="inline"),
              "key_height": frange(0.004, 0.007, "keycaps above the case's top, m", draw="inline"),
              "body_finish": finish_param(("plastic", "plastic", "brushed_metal"), ("black", "grey", "white",
                                                                                   "aluminium"), doc="case"),
              "key_finish": finish_param("plastic", ("black", "white", "grey", "beige"), doc="keycaps")},
             (0.11, 0.2, 0.016), (0.14, 0.3, 0.026), build_keyboard,
             ("keyboard", "computer keyboard", "mechanical keyboard")),
)
