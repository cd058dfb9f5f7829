"""The last two PartNet-Mobility classes: a kitchen pot and a folding chair.

Kitchen pot (a round pot with two side handles fixed to it and a domed lid that lifts straight up off the rim on a
prismatic joint, with a knob or a bar on top) and folding chair (a frame of back posts, front legs, side rails and
a back rest, and a seat that folds up against the back on two pins turning in brackets on the frame).

As in ``seed3d.synth.household``: every moving part keeps at least 1 mm from everything else at rest and over its
range, and parts that are not convex get exact convex collision pieces (ring sectors, arc segments, boxes), so
the simulated clearances are the visual ones. The lid rests on its lower stop just above the rim (gravity holds it
there) and the seat on its lower stop, level.
"""

from __future__ import annotations

import numpy as np

from seed3d.asset import Mesh
from seed3d.synth.collision import arc_pieces, reduced_hull, ring_pieces
from seed3d.synth.containers import vessel_profile
from seed3d.synth.core import AssetBuilder, Category, choice, finish_param, flag, frange
from seed3d.synth.materials import finish
from seed3d.synth.primitives import (
    box,
    cylinder,
    cylinder_between,
    difference,
    intersection,
    lathe,
    rounded_box,
    torus,
    union,
)

# --------------------------------------------------------------------------------------------- kitchen pot


def _lid_top(z0: float, dome: float, radius: float, t: float, r: float) -> float:
    """Height of the lid's upper surface at distance ``r`` from the axis (a paraboloid dome)."""
    return z0 + dome * (1.0 - (r / radius) ** 2) + t


def build_kitchen_pot(b: AssetBuilder) -> None:
    """A round cooking pot: straight wall and thick floor, two side handles (loops or tabs) fixed below the rim,
    and a domed lid that lifts straight up off the rim, with a knob or a bar on top."""
    p = b.p
    R = p["radius"]
    H = 2 * R * p["height_ratio"]
    fin = b.draw("body_finish")
    wall, floor = 0.002, 0.004
    outer = [(R - 0.004, 0.0), (R, 0.004), (R, H)]
    body = lathe(vessel_profile(outer, wall, floor), 64)
    pieces = (ring_pieces([(R, floor), (R, H), (R - wall, H), (R - wall, floor)])
              + [reduced_hull(lathe([(0, 0), (R - 0.004, 0), (R, 0.004), (R, floor), (0, floor)], 32))])
    root = b.add("body", body, "body", fin, collision=pieces)
    # two handles, one each side (±Y), below the rim; each reaches into the wall but not into the pot
    style = p["handle_style"]
    hfin = b.draw("handle_finish")
    zh = H - b.draw("handle_drop")
    width = b.draw("handle_width")
    inside = cylinder(R - wall - 0.0003, H + 0.01, 64, at=(0, 0, floor))
    for k, s in enumerate((1.0, -1.0)):
        if style == "loop":
            a, tube = width / 2, 0.0045
            ring = torus(a, tube, 48, 12, at=(0, s * (R - 0.002), zh))
            y0, y1 = sorted((s * (R - 0.006), s * (R + a + 0.01)))
            handle = difference(intersection(ring, box([-a - 0.01, y0, zh - 0.01], [a + 0.01, y1, zh + 0.01])),
                                inside)
            hpieces = arc_pieces([0, s * (R - 0.002), zh], a, tube, 0.15, np.pi - 0.15, [0, 0, 1], [s, 0, 0], 10)
        else:
            half, reach = width / 2, 0.032
            y0, y1 = sorted((s * (R - 0.006), s * (R + reach)))
            tab = rounded_box([-half, y0, zh - 0.006], [half, y1, zh + 0.006], 0.004)
            slot = box([-half * 0.55, min(s * (R + 0.012), s * (R + reach - 0.008)), zh - 0.01],
                       [half * 0.55, max(s * (R + 0.012), s * (R + reach - 0.008)), zh + 0.01])
            handle = difference(tab, inside, slot)
            hpieces = [reduced_hull(handle)]
        b.add(f"handle_{k}", handle, "handle", hfin, root, origin=[0, s * R, zh], collision=hpieces)
    # the lid: a thin dome over the rim, lifted straight up (+Z) on a prismatic joint; at rest 1.5 mm above the rim
    glass = b.draw("glass_lid")
    lfin = b.derive("lid_finish", finish("glass", "clear") if glass else fin)
    Rl, g = R + 0.004, 0.0015
    t = 0.004 if lfin.kind == "glass" else 0.0025
    dome = R * b.draw("lid_dome")
    z0 = H + g
    rs = np.linspace(0.0, Rl, 17)
    zs = z0 + dome * (1.0 - (rs / Rl) ** 2)
    prof = ([(0.0, zs[0])] + [(r, z) for r, z in zip(rs[1:], zs[1:], strict=True)] + [(Rl, z0 + t)]
            + [(r, z + t) for r, z in zip(rs[-2:0:-1], zs[-2:0:-1], strict=True)] + [(0.0, zs[0] + t)])
    lid = lathe(prof, 64)
    lift = b.draw("lift")
    lid_name = b.add("lid", lid, "lid", lfin, root, "slide", origin=[0, 0, z0], axis=[0, 0, 1], upper=lift,
                     joint_name="lid_lift", collision=[reduced_hull(lid)])
    kfin = b.draw("knob_finish")
    top = _lid_top(z0, dome, Rl, t, 0.0)
    if p["knob_style"] == "knob":
        rk = b.draw("knob_radius")
        knob = lathe([(0, 0), (0.008, 0), (0.008, 0.012), (rk, 0.016), (rk, 0.024), (rk - 0.004, 0.028),
                      (0, 0.028)], 32).translated([0, 0, top - 0.002])
        b.add("lid_knob", knob, "knob", kfin, lid_name, origin=[0, 0, top], collision=[reduced_hull(knob)])
    else:
        half = b.draw("knob_radius") * 2.2
        zb = _lid_top(z0, dome, Rl, t, half) - 0.002
        zg = top + 0.026
        posts = [cylinder_between([x, 0, zb], [x, 0, zg], 0.005, 16) for x in (-half, half)]
        grip = cylinder_between([-half - 0.006, 0, zg], [half + 0.006, 0, zg], 0.0065, 20)
        b.add("lid_knob", union(*posts, grip), "handle", kfin, lid_name, origin=[0, 0, top],
              collision=[reduced_hull(m) for m in (*posts, grip)])
    mats = {"body": fin, "handles": hfin}
    if lfin != fin:
        mats["lid"] = lfin
    if kfin != hfin:
        mats["lid_knob"] = kfin
    b.attributes.update({
        "materials": mats,
        "lid": {"type": "that lifts straight off the rim", "lift_m": round(float(lift), 3), "glass": bool(glass)},
        "extras": [f"two {'loop' if style == 'loop' else 'tab'} handles on the sides",
                   "a round knob on the lid" if p["knob_style"] == "knob" else "a bar handle on the lid"]})


# --------------------------------------------------------------------------------------------- folding chair


_WOODS = ("wood", "painted_wood")
#: A folding chair's frame finish when only its material is given.
_FRAME_DEFAULT = {"metal": finish("painted_metal", "black"), "wood": finish("wood", "oak")}


def _member(p0: list[float], p1: list[float], r: float, metal: bool) -> tuple[Mesh, list[Mesh]]:
    """A frame member from ``p0`` to ``p1`` (axis-aligned): a round tube of radius ``r`` (metal) or a square
    batten ``2r`` across (wood); the mesh and its convex collision pieces."""
    if metal:
        m = cylinder_between(p0, p1, r, 16)
        return m, [reduced_hull(m)]
    lo = np.minimum(p0, p1) - r
    hi = np.maximum(p0, p1) + r
    d = int(np.argmax(np.abs(np.subtract(p1, p0))))
    lo[d], hi[d] = min(p0[d], p1[d]), max(p0[d], p1[d])
    m = box(lo, hi)
    return m, [m]


def build_folding_chair(b: AssetBuilder) -> None:
    """A folding chair: back posts, front legs, side rails and braces with a panel or slatted back; the seat
    turns on two pins in brackets at its back edge and folds up against the back."""
    p = b.p
    # the frame's finish decides its material (round metal tubes or square wooden battens) unless the material is
    # given, which then picks the finish's default
    given = b.derive("frame_material", None) if b.is_given("frame_material") else None
    ffin = b.draw("body_finish", when=given is None, otherwise=_FRAME_DEFAULT.get(given or ""))
    metal = (given or b.derive("frame_material", "wood" if ffin.kind in _WOODS else "metal")) == "metal"
    sfin = b.draw("seat_finish", when=metal, otherwise=ffin)
    padded = p["seat_style"] == "padded"
    cfin = b.draw("cushion_finish", when=padded)
    Ws, Ds, hs, H = p["seat_width"], p["seat_depth"], p["seat_height"], p["height"]
    r = 0.011 if metal else 0.016  # tube radius / half a batten
    t = 0.018 if sfin.kind in ("wood", "painted_wood") else 0.02
    ct = 0.03 if padded else 0.0
    zb1 = hs - ct  # top of the seat board
    zh = zb1 - t / 2  # the hinge line: the board's back edge, mid-thickness
    xh = -Ds / 2
    up = t / 2 + ct  # what of the seat stands above the hinge line (swings behind it when folded)
    Yf = Ws / 2 + 0.02 + r
    pt = 0.012 if metal else 0.016
    x_back = xh - up - 0.003  # the back rest's front face
    xp = x_back - pt / 2  # back posts' centre line
    xf = xh + Ds - 0.045  # front legs
    meshes: list[Mesh] = []
    pieces: list[Mesh] = []

    def add(m: Mesh, c: list[Mesh]) -> None:
        meshes.append(m)
        pieces.extend(c)

    for s in (-1.0, 1.0):
        add(*_member([xp, s * Yf, 0.0], [xp, s * Yf, H], r, metal))  # back post
        add(*_member([xf, s * Yf, 0.0], [xf, s * Yf, zh], r, metal))  # front leg
        add(*_member([xp, s * Yf, zh], [xf + r, s * Yf, zh], r, metal))  # side rail
    add(*_member([xf, -Yf, 0.12], [xf, Yf, 0.12], r * 0.8, metal))  # front brace
    add(*_member([xp, -Yf, 0.12], [xp, Yf, 0.12], r * 0.8, metal))  # back brace
    # the back rest, between the posts, behind what the folded seat reaches
    z_lo, z_hi = hs + 0.13, H - 0.025
    if p["back_style"] == "panel":
        rest = box([x_back - pt, -Yf, z_lo], [x_back, Yf, z_hi])
        add(rest, [rest])
    else:
        n = 3
        gap = 0.02
        h = (z_hi - z_lo - (n - 1) * gap) / n
        for k in range(n):
            slat = box([x_back - pt, -Yf, z_lo + k * (h + gap)], [x_back, Yf, z_lo + k * (h + gap) + h])
            add(slat, [slat])
    # hinge brackets: blocks from the side rails inward to 2.5 mm off the seat's sides, with a square-cut hole
    # each that the seat's pin turns in (1.5 mm round it)
    rp, hr, depth = 0.004, 0.0055, 0.0145
    for s in (-1.0, 1.0):
        ya, yb = sorted((s * (Ws / 2 + 0.0025), s * Yf))
        lo, hi = [xp, ya, zh - 0.012], [xh + 0.014, yb, zh + 0.012]
        yh0, yh1 = sorted((s * Ws / 2, s * (Ws / 2 + depth)))
        hole = box([xh - hr, yh0, zh - hr], [xh + hr, yh1, zh + hr])
        add(difference(box(lo, hi), hole), [])
        # collision: the block less the hole, as boxes round it and the solid block beyond its end
        yc = s * (Ws / 2 + depth)
        ys = sorted((ya, yc))
        for blo, bhi in (([lo[0], ys[0], lo[2]], [xh - hr, ys[1], hi[2]]),
                         ([xh + hr, ys[0], lo[2]], [hi[0], ys[1], hi[2]]),
                         ([xh - hr, ys[0], lo[2]], [xh + hr, ys[1], zh - hr]),
                         ([xh - hr, ys[0], zh + hr], [xh + hr, ys[1], hi[2]])):
            pieces.append(box(blo, bhi))
        yo = sorted((yc, s * Yf))
        pieces.append(box([lo[0], yo[0], lo[2]], [hi[0], yo[1], hi[2]]))
    frame = union(*meshes)
    root = b.add("frame", frame, "frame", ffin, collision=pieces)
    # the seat: a board (or slats on two battens), pins along the hinge line at its back edge
    seat_pieces: list[Mesh] = []
    if p["seat_style"] == "slats":
        n = 5
        gap = 0.012
        w = (Ds - (n - 1) * gap) / n
        parts = [box([xh + k * (w + gap), -Ws / 2, zh], [xh + k * (w + gap) + w, Ws / 2, zb1]) for k in range(n)]
        parts += [box([xh, y - 0.015, zb1 - t], [xh + Ds, y + 0.015, zh]) for y in (-Ws / 2 + 0.05, Ws / 2 - 0.05)]
    else:
        parts = [box([xh, -Ws / 2, zb1 - t], [xh + Ds, Ws / 2, zb1])]
    seat_pieces += parts
    pins = [cylinder_between([xh, s * (Ws / 2 - 0.001), zh], [xh, s * (Ws / 2 + depth - 0.002), zh], rp, 16)
            for s in (-1.0, 1.0)]
    seat_pieces += [reduced_hull(m) for m in pins]
    swing = float(np.deg2rad(b.draw("fold_angle")))
    seat = b.add("seat", union(*parts, *pins), "seat", sfin, root, "hinge", origin=[xh, 0, zh], axis=[0, -1, 0],
                 upper=swing, joint_name="seat_fold", collision=seat_pieces)
    mats = {"frame": ffin, "seat": sfin}
    if padded:
        cushion = rounded_box([xh + 0.01, -Ws / 2 + 0.01, zb1], [xh + Ds - 0.01, Ws / 2 - 0.01, hs], 0.008)
        b.add("cushion", cushion, "cushion", cfin, seat, origin=[xh + Ds / 2, 0, zb1],
              collision=[reduced_hull(cushion)])
        mats["cushion"] = cfin
    b.attributes.update({
        "materials": mats, "frame": "metal tube" if metal else "wooden",
        "extras": ["a seat that folds up against the back on two pins",
                   {"panel": "a solid seat", "slats": "a slatted seat", "padded": "a padded seat"}[p["seat_style"]],
                   "a slatted back" if p["back_style"] == "slats" else "a solid back panel",
                   "cross braces between the legs"]})


# --------------------------------------------------------------------------------------------- registry

CATEGORIES: tuple[Category, ...] = (
    Category("kitchen_pot", "cooking pot: two side handles, a domed lid that lifts straight off the rim, lid knob",
             {"radius": frange(0.08, 0.15, "pot radius, m (16 to 30 cm across)"),
              "height_ratio": frange(0.45, 0.9, "pot height over its diameter (a shallow casserole to a stock pot)"),
              "handle_style": choice("loop", "tab", doc="bent loop handles or flat tab handles with a slot"),
              "knob_style": choice("knob", "bar", doc="a round knob or a bar handle on the lid"),
              "body_finish": finish_param(("brushed_metal", "painted_metal"),
                                          ("stainless steel", "aluminium", "copper", "black steel", "red", "cream",
                                           "blue", "black", "green", "orange"), doc="pot"),
              "handle_finish": finish_param(("brushed_metal", "chrome", "plastic"),
                                            ("stainless steel", "aluminium", "chrome", "black", "brass"),
                                            doc="side handles"),
              "handle_drop": frange(0.018, 0.035, "handles' centre line below the rim, m", draw="inline"),
              "handle_width": frange(0.05, 0.07, "handle width along the wall, m", draw="inline"),
              "glass_lid": flag(0.4, "a glass lid (else one of the pot's finish)"),
              "lid_finish": finish_param(("brushed_metal", "painted_metal", "glass"),
                                         doc="lid (default: clear glass or the pot's)", draw="derived"),
              "lid_dome": frange(0.06, 0.16, "the lid's rise at the centre over the pot's radius", draw="inline"),
              "lift": frange(0.08, 0.15, "how far the lid lifts, m", draw="inline"),
              "knob_finish": finish_param(("plastic", "brushed_metal", "chrome"),
                                          ("black", "stainless steel", "chrome", "grey"), doc="lid knob or bar"),
              "knob_radius": frange(0.015, 0.022, "knob radius, m (a bar is 4.4 times as long)", draw="inline")},
             (0.168, 0.2, 0.1), (0.31, 0.4, 0.34), build_kitchen_pot,
             ("cooking pot", "pot", "kitchen pot")),
    Category("folding_chair", "folding chair: metal or wooden frame, panel or slatted back, seat folding up on pins",
             {"seat_height": frange(0.43, 0.47, "m, floor to the top of the seat"),
              "seat_width": frange(0.38, 0.44, "m"), "seat_depth": frange(0.36, 0.42, "m"),
              "height": frange(0.78, 0.88, "m, floor to the top of the back posts"),
              "body_finish": finish_param(("painted_metal", "chrome", "brushed_metal", "painted_metal", "wood",
                                           "painted_wood"),
                                          ("black", "silver grey", "white", "anthracite", "chrome", "stainless steel",
                                           "aluminium", "blue", "red", "oak", "beech", "pine", "walnut", "teak",
                                           "birch", "cream", "charcoal", "sage green"),
                                          doc="frame and back: a metal finish makes a frame of round tubes, a wood "
                                          "finish one of square battens"),
              "frame_material": choice("metal", "wood", doc="round metal tubes or square wooden battens (default: "
                                       "what the frame's finish is)", draw="derived"),
              "seat_style": choice("panel", "slats", "padded", doc="a solid board, slats on two battens or a board "
                                   "with a cushion"),
              "back_style": choice("panel", "slats", doc="a solid back panel or three slats"),
              "seat_finish": finish_param(("plastic", "wood", "painted_metal"), doc="seat (on a wooden frame: the "
                                          "frame's, unless given)"),
              "cushion_finish": finish_param("fabric", doc="a padded seat's cushion"),
              "fold_angle": frange(80, 88, "how far the seat folds up, degrees", draw="inline")},
             (0.38, 0.45, 0.77), (0.52, 0.56, 0.89), build_folding_chair,
             ("folding chair", "fold-up chair", "foldable chair")),
)
